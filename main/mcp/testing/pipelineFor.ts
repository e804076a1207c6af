import { AppError } from '../../../shared/errors';
import type { InvocationProgress, ToolResult } from '../../../shared/registry';
import { silentLogger } from '../../platform/Logger';
import { InvocationPipeline } from '../../registry/InvocationPipeline';
import { ToolCatalog } from '../../registry/ToolCatalog';
import type { McpService } from '../McpService';
import { McpCatalogSync } from '../McpToolSource';
import { operatorCaller } from '../../../shared/caller';

export interface PipelineCallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: InvocationProgress) => void;
  timeoutMs?: number;
}

/**
 * For tests of MCP connections: the saved servers of `service` in a catalog, called through the
 * invocation pipeline exactly as the console calls them (approved, so policy is not the subject).
 * A failed call rejects with its AppError, like a direct call would.
 */
export function pipelineFor(service: McpService, options: { maxToolResultBytes?: number } = {}) {
  const catalog = new ToolCatalog();
  const sync = new McpCatalogSync(service, catalog, silentLogger);
  const pipeline = new InvocationPipeline({ catalog, ...options });
  return {
    pipeline,
    async call(server: string, tool: string, args: Record<string, unknown>, options: PipelineCallOptions = {}): Promise<ToolResult> {
      const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: `mcp:${server}.${tool}`, arguments: args, confirmed: true, ...options });
      if (outcome.error) throw new AppError(outcome.error.code, outcome.error.message, { retryable: outcome.error.retryable, step: outcome.error.step });
      return outcome.result!;
    },
    close: () => sync.close(),
  };
}
