import { AppError } from '../../shared/errors';
import type { McpTool } from '../../shared/mcp';
import { McpIcon } from '../../shared/icons';
import { TaskSupport, type ToolEntry, type ToolResult } from '../../shared/registry';
import type { Logger } from '../platform/Logger';
import { createToolEntry, type DescribedTool, type ToolConfig } from '../registry/createToolEntry';
import type { ToolCatalog } from '../registry/ToolCatalog';
import type { ExecutionContext, ToolExecutor } from '../registry/types';
import { RESULT_TOO_LARGE_CODE } from './LinearReadBuffer';
import { callTracing, SpanKind, traceparentOf } from '../metrics/CallTracing';
import type { McpConnection } from './McpConnection';
import type { McpService } from './McpService';

/** What an operator configured for a server's tool (Orloj `Tool` resources); Orloj defaults otherwise. */
export type McpToolConfigLookup = (server: string, tool: McpTool) => { config?: ToolConfig; tags?: string[]; excluded?: boolean } | undefined;

export function mcpToolEntry(server: string, tool: McpTool, configured?: ReturnType<McpToolConfigLookup>): ToolEntry {
  return createToolEntry({ source: { kind: 'mcp', name: server }, tool: describedTool(tool), config: configured?.config, tags: configured?.tags });
}

function describedTool(tool: McpTool): DescribedTool {
  const annotations = tool.annotations;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: annotations && {
      title: annotations.title,
      readOnlyHint: annotations.readOnlyHint,
      destructiveHint: annotations.destructiveHint,
      idempotentHint: annotations.idempotentHint,
      openWorldHint: annotations.openWorldHint,
    },
    taskSupport: TaskSupport.safeParse(tool.execution?.taskSupport).data,
    appResourceUri: appResourceUri(tool),
    icons: McpIcon.array().safeParse(tool.icons).data,
  };
}

/** MCP Apps: `_meta.ui.resourceUri` (or the older flat `_meta["ui/resourceUri"]`), when it names a ui:// resource. */
function appResourceUri(tool: McpTool): string | undefined {
  const meta = tool._meta as { ui?: { resourceUri?: unknown }; 'ui/resourceUri'?: unknown } | undefined;
  const uri = meta?.ui?.resourceUri ?? meta?.['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

const BACKSTOP_MARGIN_MS = 5_000;

/** Runs registry entries of one MCP server through its live connection. */
export class McpToolExecutor implements ToolExecutor {
  constructor(private readonly connection: () => McpConnection) {}

  execute(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext): Promise<ToolResult> {
    // The transport stage of the call's trace: the tools/call request carries this span's traceparent.
    if (!callTracing.exporting && ctx.span) return this.executeNow(entry, args, ctx, traceparentOf(ctx.span));
    return callTracing.within(
      'transport',
      { 'rpc.system': 'mcp', 'rpc.method': 'tools/call', 'mcp.server': entry.source.name, 'mcp.tool': entry.toolName },
      (span) => this.executeNow(entry, args, ctx, traceparentOf(span)),
      SpanKind.CLIENT,
      ctx.span,
    );
  }

  private async executeNow(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext, traceparent: string): Promise<ToolResult> {
    // A tool that supports tasks runs as one when asked (optional) or always (required); the
    // task's status changes count as progress for the pipeline's timeouts. With the 2026 tasks
    // extension the server decides instead, and any plain call may come back as a task (below).
    const tasks = this.connection().tasks;
    if (!tasks.serverDecides && (entry.taskSupport === 'required' || (entry.taskSupport === 'optional' && ctx.task))) {
      return tasks.callTool(entry.toolName, args, {
        options: ctx.task ?? { mode: 'wait' },
        signal: ctx.signal,
        backstopMs: ctx.totalLeftMs + BACKSTOP_MARGIN_MS,
        onUpdate: (update) => ctx.onTask?.(update),
        traceparent,
      });
    }
    if (ctx.task && !tasks.serverDecides) throw new AppError('InvalidInput', `${entry.name} cannot run as a task: the server does not declare task support for it (execution.taskSupport).`, { step: 'validate' });
    // The pipeline is the one timeout authority (per request, reset on progress, total): it aborts
    // through the signal, which the SDK turns into notifications/cancelled. The SDK's own timer
    // only backstops the call's whole remaining budget, so it never fires first.
    try {
      // The attempt itself hears of progress, task updates and arriving bytes (no closures per call).
      const result = await this.connection().callTool(entry.toolName, args, {
        signal: ctx.signal,
        listener: ctx,
        backstopMs: ctx.totalLeftMs + BACKSTOP_MARGIN_MS,
        ...(ctx.task ? { task: ctx.task } : {}),
        traceparent,
      });
      return result as ToolResult;
    } catch (error) {
      if ((error as { code?: unknown }).code === RESULT_TOO_LARGE_CODE) throw new AppError('ResultTooLarge', `${entry.name}: ${(error as Error).message.replace(/^MCP error -?\d+: /, '')}`, { cause: error });
      throw error;
    }
  }

  explainFailure(_entry: ToolEntry, _error: AppError, since: number): string | undefined {
    return this.connection().noiseSince(since);
  }
}

/** Registers an unsaved connection's tools (one-shot CLI calls) so they too go through the pipeline. */
export function registerEphemeral(catalog: ToolCatalog, name: string, connection: McpConnection): () => void {
  const source = { kind: 'mcp' as const, name };
  catalog.replaceSource(
    source,
    connection.tools.map((tool) => mcpToolEntry(name, tool)),
    new McpToolExecutor(() => connection),
  );
  return () => catalog.removeSource(source);
}

/**
 * Keeps the catalog in step with the servers: a ready server's tools are its entries, a server that
 * is gone or down has none.
 */
export class McpCatalogSync {
  private readonly executors = new Map<string, McpToolExecutor>();
  private readonly stop: () => void;

  constructor(
    private readonly service: McpService,
    private readonly catalog: ToolCatalog,
    private readonly logger: Logger,
    private readonly configured?: McpToolConfigLookup,
  ) {
    this.stop = service.onToolsChanged((server) => this.sync(server));
    for (const config of service.configs()) this.sync(config.name);
  }

  /** Re-derives a server's entries, e.g. after policy resources changed. */
  sync(server: string) {
    const source = { kind: 'mcp' as const, name: server };
    const exists = this.service.configs().some((c) => c.name === server);
    const connection = exists ? this.service.connection(server) : undefined;
    // Until its tools are listed, a just-connected server registers nothing (not an empty list).
    if (!connection || connection.state.status !== 'ready' || connection.state.listing) {
      this.catalog.removeSource(source);
      return;
    }
    let executor = this.executors.get(server);
    if (!executor) {
      executor = new McpToolExecutor(() => {
        const live = this.service.connection(server);
        if (!live) throw new AppError('ConnectionFailed', `Server "${server}" is not connected`);
        return live;
      });
      this.executors.set(server, executor);
    }
    // A workspace McpServer's tool_filter.include leaves the other tools out of the registry.
    const entries = connection.tools.flatMap((tool) => {
      const configured = this.configured?.(server, tool);
      return configured?.excluded ? [] : [mcpToolEntry(server, tool, configured)];
    });
    try {
      this.catalog.replaceSource(source, entries, executor);
    } catch (error) {
      this.logger.warn('mcp tools not registered', { server, message: (error as Error).message });
    }
  }

  resyncAll() {
    for (const config of this.service.configs()) this.sync(config.name);
  }

  close() {
    this.stop();
  }
}
