import type { ServerSnapshot } from '../../shared/mcp';
import type { Logger } from '../platform/Logger';

/** Where the gateway's sources stand: ids as `<kind>:<name>` (e.g. `mcp:everything`). */
export interface SourceSyncReport {
  connected: string[];
  /** Not connected with their tools listed yet: connecting, listing, or failed and retrying. */
  pending: string[];
}

/** What the gateway asks of the core about its sources' first sync. */
export interface SourceSync {
  /** Settles once every source has connected and listed (it may never, hence the gateway's bound); `signal` stops the waiting. */
  firstSync(signal?: AbortSignal): Promise<SourceSyncReport>;
  /** Where the sources stand right now (the 503 body of /ready). */
  progress(): SourceSyncReport;
}

/** How long the first tools/list (and /ready) waits for the sources before answering with those connected. */
export const FIRST_SYNC_BOUND_MS = 15_000;

/** The gateway's readiness: done once the first sync is, or once its bound has passed. */
export interface GatewayReadiness {
  /** True once the first sync is done or its bound has passed (then /ready answers 200). */
  readonly ready: boolean;
  /** Resolves when `ready` turns true; never rejects. */
  whenReady(): Promise<void>;
  /** What /ready answers: 200 when ready, 503 naming the sources still pending before. */
  status(): { ready: boolean } & SourceSyncReport;
  close(): void;
}

/**
 * Starts the bounded wait for the sources' first sync: from now, at most `boundMs`. When the bound
 * passes first, the gateway answers with what is connected and the rest are logged by name (a
 * source that never comes up must not keep every agent, or a Deployment's rollout, waiting).
 * Without a `sync` (a process that connects nothing at start) it is ready at once.
 */
export function gatewayReadiness(sync: SourceSync | undefined, options: { logger: Logger; boundMs?: number }): GatewayReadiness {
  if (!sync) {
    return { ready: true, whenReady: () => Promise.resolve(), status: () => ({ ready: true, connected: [], pending: [] }), close: () => undefined };
  }
  const boundMs = options.boundMs ?? FIRST_SYNC_BOUND_MS;
  const stop = new AbortController();
  let ready = false;
  let markReady!: () => void;
  const done = new Promise<void>((resolve) => (markReady = resolve));
  const finish = () => {
    if (ready) return;
    ready = true;
    clearTimeout(timer);
    stop.abort();
    markReady();
  };
  const timer = setTimeout(() => {
    if (ready) return;
    const { connected, pending } = sync.progress();
    options.logger.warn(`The gateway's sources did not all sync within ${Math.round(boundMs / 1000)} s; agents get the tools of those connected`, { connected, pending });
    finish();
  }, boundMs);
  timer.unref?.();
  sync.firstSync(stop.signal).then(finish, (error: Error) => {
    if (stop.signal.aborted) return;
    options.logger.warn('waiting for the sources\' first sync failed; agents get the tools of those connected', { error: error.message });
    finish();
  });
  return {
    get ready() {
      return ready;
    },
    whenReady: () => done,
    status: () => ({ ready, ...sync.progress() }),
    close: () => {
      clearTimeout(timer);
      stop.abort();
    },
  };
}

/** The MCP service as the first sync reads it: its servers' snapshots and its change events. */
export interface McpServersView {
  list(): ServerSnapshot[];
  onChange(listener: () => void): () => void;
  onToolsChanged(listener: (server: string) => void): () => void;
}

/**
 * The first sync of the MCP servers a process connects at start — the enabled saved ones and
 * `declared` (a workspace's McpServers: saved disabled and connected by its reconciler, perhaps not
 * saved yet when the gateway starts) — every one connected with its tools listed (in the registry:
 * the service tells its tool listeners, the registry's sync among them, right after). Read again a
 * turn after each change, so the registry's sync has run.
 */
export function mcpSourceSync(servers: McpServersView, declared: () => readonly string[] = () => []): SourceSync {
  const progress = (): SourceSyncReport => {
    const snapshots = new Map(servers.list().map((snapshot) => [snapshot.config.name, snapshot]));
    const expected = new Set([...[...snapshots.values()].filter((snapshot) => snapshot.config.enabled).map((snapshot) => snapshot.config.name), ...declared()]);
    const connected: string[] = [];
    const pending: string[] = [];
    for (const name of expected) {
      const state = snapshots.get(name)?.state;
      (state?.status === 'ready' && !state.listing ? connected : pending).push(`mcp:${name}`);
    }
    return { connected, pending };
  };
  return {
    progress,
    firstSync: (signal) =>
      new Promise<SourceSyncReport>((resolve, reject) => {
        let queued = false;
        const stops: Array<() => void> = [];
        const end = () => stops.forEach((unsubscribe) => unsubscribe());
        const check = () => {
          queued = false;
          const report = progress();
          if (report.pending.length) return;
          end();
          resolve(report);
        };
        const later = () => {
          if (queued) return;
          queued = true;
          setImmediate(check);
        };
        if (signal?.aborted) return reject(signal.reason as Error);
        signal?.addEventListener('abort', () => {
          end();
          reject(signal.reason as Error);
        }, { once: true });
        stops.push(servers.onChange(later), servers.onToolsChanged(later));
        later();
      }),
  };
}
