import type { ConnectionStatus, ServerOrigin } from '../../shared/mcp';
import type { McpServerPhase } from '../../shared/resources/mcpServer';
import { savedSourceIds, prepareSource, type SourceKinds } from '../registry/ToolSourceKind';
import { SourceKind } from '../../shared/invocation';
import { AppError, CONFIRM_LAUNCH_STEP, isAppError } from '../../shared/errors';

/** A source that did not connect before the wait ended, and why (a phrase). */
export interface SourceNotConnected {
  id: string;
  reason: string;
  /** A workspace server held back because its command line is not confirmed for the folder: that line. */
  launchLines?: string[];
}

export interface ConnectSourcesOptions {
  /** Only the sources this says yes to (a suite's hand-picked tools name theirs); default every source. */
  only?: (id: string) => boolean;
  /** How long to wait for the slowest source (default DEFAULT_SOURCE_WAIT_MS). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Connects (or waits for) every tool source the console has before an eval or a Playground turn
 * picks its tools, at most `timeoutMs`; resolves with the sources that did not connect. Never throws.
 */
export type ConnectSources = (options?: ConnectSourcesOptions) => Promise<SourceNotConnected[]>;

/** Long enough for a stdio server started by `npx` or a slow HTTP handshake; a source that fails says so at once. */
export const DEFAULT_SOURCE_WAIT_MS = 20_000;

/** What the readiness check reads of the MCP servers: the one inventory (saved, workspace, provided). */
export interface InventoryServers {
  list(): readonly { name: string; origin: ServerOrigin; config?: { enabled: boolean }; problem?: string }[];
  /** Connects one now the way a one-shot command does (a workspace server through one reconcile, launch confirmation included). */
  connect(name: string): Promise<void>;
}

export interface McpConnections {
  connection(name: string): { state: { status: ConnectionStatus; message?: string } } | undefined;
  whenConnected(name: string): Promise<void>;
}

/** The workspace reconciler's view of its McpServers, which the console's reconciler starts in the background. */
export interface WorkspaceServerStatuses {
  statuses(): { mcpServers: readonly { name: string; spec?: unknown; status: { phase: McpServerPhase; lastError?: string; unconfirmedLaunch?: string } }[] };
  onChange(listener: () => void): () => void;
}

export interface SourceReadinessDeps {
  servers: InventoryServers;
  mcp: McpConnections;
  reconciler: WorkspaceServerStatuses;
  sourceKinds: SourceKinds;
  /**
   * The console: its reconciler starts the workspace's servers and saved ones connect at start, so
   * they are waited for (a server the user disconnected stays so). A one-shot command connects
   * each itself.
   */
  console: boolean;
}

/**
 * Every source the console has — saved MCP servers, the workspace's McpServers (their command lines
 * confirmed as everywhere), A2A agents, gRPC sources, HTTP services — connected before a suite or a
 * turn decides which tools exist.
 */
export function sourceReadiness(deps: SourceReadinessDeps): ConnectSources {
  return async ({ only = () => true, timeoutMs = DEFAULT_SOURCE_WAIT_MS, signal } = {}) => {
    const waits: Wait[] = [];
    for (const server of deps.servers.list()) {
      const id = `mcp:${server.name}`;
      // A saved server switched off in Servers is not one the console has connected (a workspace one's
      // config is never enabled: its reconciler, not the saved-server list, starts it).
      if (!only(id) || (server.origin.kind !== 'workspace' && server.config?.enabled === false)) continue;
      waits.push({ id, ready: (ended) => mcpServerReady(deps, server, ended) });
    }
    const others = (await savedSourceIds(deps.sourceKinds)).filter((id) => !id.startsWith('mcp:') && only(id));
    for (const id of others) {
      const kind = SourceKind.parse(id.slice(0, id.indexOf(':')));
      waits.push({ id, ready: () => prepareSource(deps.sourceKinds, { kind, name: id.slice(id.indexOf(':') + 1) }) });
    }
    return waitAll(waits, timeoutMs, signal);
  };
}

interface Wait {
  id: string;
  /** `ended` aborts when the wait is over, so listeners are let go. */
  ready: (ended: AbortSignal) => Promise<void>;
}

async function mcpServerReady(deps: SourceReadinessDeps, server: ReturnType<InventoryServers['list']>[number], ended: AbortSignal): Promise<void> {
  if (server.origin.kind === 'workspace' && !server.config) throw new Error(server.problem ?? `its McpServer in ${server.origin.file} is not valid`);
  if (!deps.console) return server.origin.kind === 'workspace' ? deps.servers.connect(server.name) : deps.mcp.whenConnected(server.name);
  if (server.origin.kind === 'workspace') return workspaceServerSettled(deps.reconciler, server.name, ended);
  const state = deps.mcp.connection(server.name)?.state;
  if (state?.status === 'closed') throw new Error('disconnected (connect it in Servers)');
  // Failed and waiting for its next retry: said at once, not tried again for every turn (a dead server would cost each one the whole wait).
  if (state?.status === 'error') throw new Error(state.message ?? 'its last connection attempt failed');
  return deps.mcp.whenConnected(server.name);
}

/** Resolves when the reconciler has this McpServer Ready; rejects with its error once it settles in Error. */
function workspaceServerSettled(reconciler: WorkspaceServerStatuses, name: string, ended: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stops: Array<() => void> = [];
    const stop = () => stops.forEach((item) => item());
    const check = () => {
      const view = reconciler.statuses().mcpServers.find((server) => server.name === name);
      if (!view || view.status.phase === 'Pending' || view.status.phase === 'Connecting') return;
      stop();
      const { lastError, unconfirmedLaunch } = view.status;
      if (view.status.phase === 'Ready') resolve();
      else reject(unconfirmedLaunch ? new AppError('PolicyDenied', lastError ?? unconfirmedLaunch, { step: CONFIRM_LAUNCH_STEP, details: [unconfirmedLaunch] }) : new Error(lastError ?? 'in Error'));
    };
    stops.push(reconciler.onChange(check));
    ended.addEventListener('abort', stop, { once: true });
    stops.push(() => ended.removeEventListener('abort', stop));
    check();
  });
}

async function waitAll(waits: readonly Wait[], timeoutMs: number, signal?: AbortSignal): Promise<SourceNotConnected[]> {
  if (waits.length === 0) return [];
  const outcomes = new Map<string, Omit<SourceNotConnected, 'id'> | null>();
  const ended = new AbortController();
  const end = () => ended.abort();
  const timer = setTimeout(end, timeoutMs);
  signal?.addEventListener('abort', end, { once: true });
  if (signal?.aborted) end();
  const all = Promise.all(
    waits.map(({ id, ready }) =>
      Promise.resolve()
        .then(() => ready(ended.signal))
        .then(
          () => void outcomes.set(id, null),
          (error: unknown) => void outcomes.set(id, { reason: phrase(error), ...(isAppError(error) && error.step === CONFIRM_LAUNCH_STEP && error.details ? { launchLines: [...error.details] } : {}) }),
        ),
    ),
  );
  await Promise.race([all, new Promise((resolve) => ended.signal.addEventListener('abort', resolve, { once: true }))]);
  clearTimeout(timer);
  signal?.removeEventListener('abort', end);
  end();
  const seconds = Math.round(timeoutMs / 1000);
  return waits.flatMap(({ id }) => {
    const outcome = outcomes.get(id);
    if (outcome === null) return [];
    return [{ id, ...(outcome ?? { reason: signal?.aborted ? 'still connecting when the run was canceled' : `still connecting after ${seconds} s` }) }];
  });
}

function phrase(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  return (message || 'failed without a reason').slice(0, 300);
}

/** One sentence naming the sources that did not connect: `Not connected: mcp:x (why); a2a:y (still connecting after 20 s).` */
export function notConnectedSentence(sources: readonly SourceNotConnected[]): string {
  if (sources.length === 0) return '';
  return `Not connected: ${sources.map((source) => `${source.id} (${source.reason})`).join('; ')}.`;
}

/** The command lines of the workspace servers held back for a confirmation, among these. */
export function unconfirmedLaunchLines(sources: readonly SourceNotConnected[]): string[] {
  return [...new Set(sources.flatMap((source) => source.launchLines ?? []))];
}

/** The source ids a suite's hand-picked tools name (`mcp:everything.echo` → `mcp:everything`), as a filter. */
export function sourcesOfTools(tools: readonly string[]): (id: string) => boolean {
  return (id) => tools.some((tool) => tool.startsWith(`${id}.`));
}
