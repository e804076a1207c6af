import { ProtocolError, ProtocolErrorCode, Server, TRACEPARENT_META_KEY, type CallToolResult, type ServerContext, type Tool } from '@modelcontextprotocol/server';
import { agentCaller } from '../../shared/caller';
import { AppError } from '../../shared/errors';
import type { InvocationOutcome, ToolEntry } from '../../shared/registry';
import type { CallRelay } from '../registry/types';
import type { AgentGrants } from '../agents/AgentGrants';
import type { AgentCall } from '../agents/Agents';
import type { AgentTraffic } from '../agents/AgentTraffic';
import { gatewayToolNames } from './gatewayToolNames';
import { entryFor, listServices, META_TOOL_NAMES, META_TOOLS, searchServices, serviceDetails } from './metaTools';
import { NO_SOURCE_GRANTS, RELAYED_CAPABILITIES, registerRelayedFeatures, type SourceFeatureGrants, type UpstreamFeatures } from './relayedFeatures';

/** Clients must not time out a call that waits for a person: a progress notification this often says it is alive. */
export const APPROVAL_HEARTBEAT_MS = 15_000;

export interface GatewayCallDeps {
  grants: Pick<AgentGrants, 'granted'>;
  /** An agent's call (main/agents/Agents.invoke): the one pipeline, the one approval hook, the live record. */
  invoke: (call: AgentCall) => Promise<InvocationOutcome>;
  /** The agents' open sessions, for the live view. */
  traffic: AgentTraffic;
  serverInfo: { name: string; version: string };
  /** Default APPROVAL_HEARTBEAT_MS; shorter in tests. */
  heartbeatMs?: number;
  /** Whether an agent sees RockBot's meta-tools instead of its tools. */
  metaTools?: (agent: string) => boolean;
  /** The sources' first sync (gatewayReadiness.ts): tools/list and tools/call wait for it, within its bound. */
  sourcesSynced?: { readonly ready: boolean; whenReady(): Promise<void> };
  /** The sources' resources, prompts and completion (relayedFeatures.ts); without it the gateway serves tools only. */
  upstream?: UpstreamFeatures;
  /** What an agent is granted of each source beside tools (resources, prompts): nothing unless it says so. */
  sourceGrants?: (agent: string) => SourceFeatureGrants;
}

/** Who is on the other end of one MCP server instance of the gateway. */
export interface GatewayPeer {
  agent: string;
  /** The session (2025-11-25) or the request's own id (2026-07-28 is stateless). */
  sessionId: string;
  /** Aborted when the agent goes away (its connection closed, its session ended, its credential revoked) or the gateway stops. */
  gone: AbortSignal;
  /** The end of the HTTP request a handler serves (the agent hung up mid-call), when there is one. */
  requestSignal?: (request: Request | undefined) => AbortSignal | undefined;
}

/**
 * The MCP server an agent talks to: `tools/list` offers exactly the tools granted to it, each named
 * `<source>.<tool>`, and `tools/call` runs the named tool through the one invocation pipeline as
 * that agent (`via: gateway`) — validation, the policy for that agent, the definition lock,
 * timeouts, retries, caps, the record, metrics and traces. A call the policy wants approved waits
 * for a person (an Orloj ToolApproval bound to its exact arguments), sending progress while it
 * waits when the agent asked for progress.
 */
export function gatewayServer(deps: GatewayCallDeps, peer: GatewayPeer): Server {
  const server = new Server(deps.serverInfo, {
    capabilities: { tools: { listChanged: true }, logging: {}, ...(deps.upstream ? RELAYED_CAPABILITIES : {}) },
    instructions: `Tooldeck gateway: the tools granted to agent ${peer.agent}. Calls are recorded, and some wait for a person's approval.`,
  });
  // Read per request: a 2025-11-25 session has its id only once initialize is answered.
  const callerNow = () => agentCaller(peer.agent, 'gateway', peer.sessionId ? { sessionId: peer.sessionId } : {});
  const offered = () => gatewayToolNames(deps.grants.granted(peer.agent, callerNow()));

  const meta = () => deps.metaTools?.(peer.agent) === true;

  // Until the sources' first sync, an empty or partial list would be taken for the agent's tools.
  const synced = deps.sourcesSynced;
  if (deps.upstream) {
    const sourceGrants = deps.sourceGrants ?? (() => NO_SOURCE_GRANTS);
    registerRelayedFeatures(server, { upstream: deps.upstream, sourceGrants, whenSynced: async () => (synced && !synced.ready ? synced.whenReady() : undefined) }, peer.agent, peer.gone);
  }
  server.setRequestHandler('tools/list', async () => {
    if (synced && !synced.ready) await synced.whenReady();
    return { tools: meta() ? META_TOOLS : [...offered()].map(([name, entry]) => mcpTool(name, entry)) };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    if (synced && !synced.ready) await synced.whenReady();
    const { name, arguments: args = {} } = request.params;
    if (meta()) {
      if (!META_TOOL_NAMES.has(name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const granted = deps.grants.granted(peer.agent, callerNow());
      const input = args as { query?: unknown; server_name?: unknown; tool_name?: unknown; arguments?: unknown };
      if (name === 'search_known_services') return structured(searchServices(granted, String(input.query ?? '')));
      if (name === 'list_services') return structured(listServices(granted));
      if (name === 'get_service_details') return structured(serviceDetails(granted, String(input.server_name ?? ''), typeof input.tool_name === 'string' ? input.tool_name : undefined));
      const entry = entryFor(granted, String(input.server_name ?? ''), String(input.tool_name ?? ''));
      if (!entry) return { content: [{ type: 'text', text: `ToolNotFound: no tool ${String(input.tool_name)} of ${String(input.server_name)} is available to you.` }], isError: true };
      const toolArgs = input.arguments && typeof input.arguments === 'object' && !Array.isArray(input.arguments) ? (input.arguments as Record<string, unknown>) : {};
      return callEntry(entry, toolArgs, request.params._meta, ctx);
    }
    const entry = offered().get(name);
    // Not granted and not existing answer alike: an agent learns nothing about tools it may not call.
    if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return callEntry(entry, args, request.params._meta, ctx);
  });

  /** One granted entry's call through the pipeline, as this agent. */
  async function callEntry(entry: ToolEntry, args: Record<string, unknown>, meta: Record<string, unknown> | undefined, ctx: ServerContext): Promise<CallToolResult> {
    const progressToken = meta?.progressToken as string | number | undefined;
    const notifyProgress = (progress: { progress: number; total?: number; message?: string }) => {
      if (progressToken === undefined) return;
      void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, ...progress } }).catch(() => undefined);
    };
    const hungUp = peer.requestSignal?.(ctx.http?.req);
    const signal = AbortSignal.any(hungUp ? [ctx.mcpReq.signal, peer.gone, hungUp] : [ctx.mcpReq.signal, peer.gone]);
    let progressCount = 0;
    const waiting = (approval: string) => notifyProgress({ progress: ++progressCount, message: `Waiting for a person to approve ${entry.name} (approval ${approval})` });
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    const outcome = await deps.invoke({
      caller: callerNow(),
      name: entry.name,
      arguments: args,
      signal,
      onProgress: (progress) => {
        progressCount = Math.max(progressCount, progress.progress);
        notifyProgress(progress);
      },
      relay: relayTo(server, ctx),
      ...traceparentOfRequest(meta, ctx),
      // A held call says it waits while the agent asked for progress, so its client does not time it out.
      hold: {
        taskRef: `gateway/${peer.agent}/${peer.sessionId}`,
        signal,
        onPending: (approval) => {
          waiting(approval.metadata.name);
          heartbeat = setInterval(() => waiting(approval.metadata.name), deps.heartbeatMs ?? APPROVAL_HEARTBEAT_MS);
        },
        onDecided: () => clearInterval(heartbeat),
      },
    }).finally(() => clearInterval(heartbeat));
    return callResult(outcome, ctx);
  }
  return server;
}

/** A meta-tool's answer: the JSON as text (what models read) and as structured content. */
function structured(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * What the tool's server asks during the call goes to the agent that made it: elicitation and
 * sampling requests, answered by the agent, and log lines. Over a 2025-11-25 session they travel as
 * the spec's server-to-client requests, when the agent declared it can answer them; otherwise (or
 * in the 2026-07-28 era, whose multi-round-trip form the gateway does not relay yet) a question is
 * declined, never answered for the agent by someone else.
 */
function relayTo(server: Server, ctx: ServerContext): CallRelay {
  const session = !ctx.mcpReq.envelope;
  const capabilities = session ? server.getClientCapabilities() : undefined;
  return {
    elicit: (params, signal) =>
      capabilities?.elicitation ? (ctx.mcpReq.elicitInput(params as never, { signal }) as Promise<Record<string, unknown>>) : Promise.resolve({ action: 'decline' }),
    sample: (params, signal) => {
      if (!capabilities?.sampling) return Promise.reject(new AppError('PolicyDenied', 'The agent behind the Tooldeck gateway does not answer sampling requests.'));
      return ctx.mcpReq.requestSampling(params as never, { signal }) as Promise<Record<string, unknown>>;
    },
    log: (params) => {
      const { level, data, logger } = params as { level?: string; data?: unknown; logger?: string };
      void ctx.mcpReq.log((level ?? 'info') as never, data, logger).catch(() => undefined);
    },
  };
}

/** The agent's W3C traceparent: in `_meta` (SEP-414), in the 2026-07-28 envelope, or as the HTTP header. */
function traceparentOfRequest(meta: Record<string, unknown> | undefined, ctx: ServerContext): { traceparent?: string } {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const found = [meta?.traceparent, envelope?.[TRACEPARENT_META_KEY], ctx.http?.req?.headers.get('traceparent')].find((value) => typeof value === 'string');
  return typeof found === 'string' ? { traceparent: found } : {};
}

/** A registry entry as an MCP tool under its offered name, schema, output schema, annotations and icons intact. */
function mcpTool(name: string, entry: ToolEntry): Tool {
  return {
    name,
    ...(entry.title !== undefined ? { title: entry.title } : {}),
    ...(entry.description !== undefined ? { description: entry.description } : {}),
    inputSchema: { type: 'object', ...entry.inputSchema } as Tool['inputSchema'],
    ...(entry.outputSchema ? { outputSchema: { type: 'object', ...entry.outputSchema } as Tool['outputSchema'] } : {}),
    ...(entry.annotations ? { annotations: entry.annotations } : {}),
    ...(entry.icons?.length ? { icons: entry.icons } : {}),
  };
}

/**
 * The pipeline's outcome as the agent receives it. A result (even `isError`) passes intact; a call
 * that ended without one (refused, denied, timed out, failed) is an error result saying why, so a
 * model can read it. Only a call the agent itself canceled has nothing to answer.
 */
function callResult(outcome: InvocationOutcome, ctx: ServerContext): CallToolResult {
  if (outcome.result) {
    const { content, structuredContent, isError } = outcome.result;
    return {
      content: content as CallToolResult['content'],
      ...(structuredContent !== undefined ? { structuredContent: structuredContent as Record<string, unknown> } : {}),
      ...(isError ? { isError: true } : {}),
      ...(outcome.truncated ? { _meta: { 'dev.tooldeck/truncated': true } } : {}),
    };
  }
  const error = outcome.error ?? new AppError('Internal', 'The call ended without a result.').toShape();
  if (ctx.mcpReq.signal.aborted) throw new ProtocolError(ProtocolErrorCode.InternalError, 'The call was canceled.');
  return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], isError: true };
}
