import type { Server } from '@modelcontextprotocol/server';
import type { GatewayStatus } from '../../shared/gateway';
import { DEFAULT_GATEWAY_PORT } from '../../shared/gateway';
import type { InvocationOutcome } from '../../shared/registry';
import type { GatewayCredentialCheck } from '../agents/AgentCredentials';
import type { AgentGrants } from '../agents/AgentGrants';
import type { AgentMetrics } from '../agents/AgentMetrics';
import type { AgentCall } from '../agents/Agents';
import type { AgentTraffic } from '../agents/AgentTraffic';
import type { HttpRoute } from '../platform/guardedHttpServer';
import { Emitter } from '../platform/Emitter';
import type { Logger } from '../platform/Logger';
import { gatewayServer, type GatewayCallDeps } from './GatewayMcpServer';
import { startGateway, type RunningGateway } from './GatewayServer';
import { gatewayReadiness, type SourceSync } from './gatewayReadiness';
import type { SourceFeatureGrants, UpstreamFeatures } from './relayedFeatures';
import { startMetricsServer, type RunningMetricsServer } from './GatewayMetricsServer';

export interface GatewayAgents {
  /** What the gateway's port lets in: a cluster's agents (when given), then the data dir's credentials. */
  admission: GatewayCredentialCheck;
  grants: Pick<AgentGrants, 'granted'>;
  /** Every agent call: counted, shown live, held calls through the one approval hook. */
  invoke: (call: AgentCall) => Promise<InvocationOutcome>;
  traffic: AgentTraffic;
  metrics: AgentMetrics;
  /** Whether the agent was given RockBot's meta-tools instead of its tools. */
  metaTools: (agent: string) => boolean;
}

export interface GatewayDeps {
  appVersion: string;
  logger: Logger;
  agents: GatewayAgents;
  /** Other doors' routes served on the gateway's port behind the same guards (mediation's: mediation/mediationRoutes.ts). */
  routes?: readonly HttpRoute[];
  /** Subscribes to every change that may change what an agent sees (the catalog, grants, the lock); returns the unsubscribe. */
  onToolsChanged: (listener: () => void) => () => void;
  /** How often a held call tells the agent it still waits (default 15 s). */
  heartbeatMs?: number;
  /** The sources' first sync, which an agent's first tools/list and /ready wait for (bounded); none: ready at once. */
  sourceSync?: SourceSync;
  /** The MCP sources' resources, prompts and completion, relayed to agents granted them (relayedFeatures.ts). */
  upstream?: UpstreamFeatures;
  /** What each agent is granted of each source beside tools; none given: nothing (deny by default). */
  sourceGrants?: (agent: string) => SourceFeatureGrants;
}

export interface GatewayStartOptions {
  port?: number;
  host?: string;
  dangerouslyBindAll?: boolean;
  rate?: { perSecond: number; burst: number };
  /** Every agent sees RockBot's meta-tools instead of its tools (else per agent, as its credential says). */
  metaTools?: boolean;
  /** Host names agents may address besides the bound address (`--allowed-host`: a Service's DNS names). */
  allowedHostNames?: readonly string[];
  /** Serve Prometheus metrics at /metrics on this port (0: a free one), on the same address; else none are served. */
  metricsPort?: number;
}

/**
 * The MCP face for agents: one endpoint through which an agent calls the tools granted to it, as
 * itself, through the one pipeline. Who the agent is, what it may call, how a held call waits and
 * what is recorded belong to the agents domain (main/agents/); this class serves MCP (sessions,
 * eras, the listing, relayed features); other doors (mediation) mount their routes on its port. Started by
 * `tooldeck gateway` or from the console's Gateway section; `stdioServer()` serves one agent to an
 * MCP host that launches its servers.
 */
export class Gateway {
  private running?: RunningGateway;
  private metricsServer?: RunningMetricsServer;
  private metaToolsForAll = false;
  private lastError?: string;
  private readonly stdioServers = new Set<Server>();
  private readonly stopChanges: () => void;
  private readonly statusChanges = new Emitter();

  constructor(private readonly deps: GatewayDeps) {
    this.stopChanges = deps.onToolsChanged(() => this.toolsChanged());
  }

  private get callDeps(): GatewayCallDeps {
    const { agents } = this.deps;
    return { grants: agents.grants, invoke: (call) => agents.invoke(call), traffic: agents.traffic, serverInfo: { name: 'tooldeck-gateway', version: this.deps.appVersion }, heartbeatMs: this.deps.heartbeatMs, metaTools: (agent) => this.metaToolsForAll || agents.metaTools(agent), ...this.relayDeps };
  }

  /** Resources, prompts and completion, when the core relays them (made once: the relay holds the upstream subscriptions). */
  private get relayDeps(): Pick<GatewayCallDeps, 'upstream' | 'sourceGrants'> {
    return { ...(this.deps.upstream ? { upstream: this.deps.upstream } : {}), ...(this.deps.sourceGrants ? { sourceGrants: this.deps.sourceGrants } : {}) };
  }

  async start(options: GatewayStartOptions = {}): Promise<GatewayStatus> {
    if (this.running) return this.status();
    this.metaToolsForAll = options.metaTools === true;
    const { metaTools: _forAll, metricsPort, ...listen } = options;
    const port = options.port ?? DEFAULT_GATEWAY_PORT;
    const inUse = (error: unknown, what: string) => ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? `${what} is in use; pick another.` : (error as Error).message);
    try {
      const onRateLimited = (agent: string) => this.deps.agents.metrics.rateLimited(agent);
      this.running = await startGateway({ ...this.callDeps, credentials: this.deps.agents.admission, logger: this.deps.logger, ...(this.deps.routes ? { routes: this.deps.routes } : {}), onRateLimited, ...(this.deps.sourceSync ? { sourceSync: this.deps.sourceSync } : {}), ...listen, port });
    } catch (error) {
      this.failed(inUse(error, `Port ${port}`));
      throw error;
    }
    if (metricsPort !== undefined) {
      try {
        this.metricsServer = await startMetricsServer({ metrics: this.deps.agents.metrics, logger: this.deps.logger, port: metricsPort, host: this.running.host, allowedHostNames: options.allowedHostNames });
      } catch (error) {
        // Both or neither: a gateway asked to serve metrics that serves none would be read as idle.
        await this.running.close();
        this.running = undefined;
        this.failed(inUse(error, `Metrics port ${metricsPort}`));
        throw error;
      }
    }
    this.lastError = undefined;
    this.emit();
    return this.status();
  }

  async stop(): Promise<void> {
    const running = this.running;
    const metricsServer = this.metricsServer;
    this.running = undefined;
    this.metricsServer = undefined;
    await Promise.all([running?.close(), metricsServer?.close()]);
    this.emit();
  }

  status(): GatewayStatus {
    const running = this.running;
    if (!running) return { running: false, ...(this.lastError ? { error: this.lastError } : {}) };
    return { running: true, url: running.url, host: running.host, port: running.port, ...(this.metricsServer ? { metricsUrl: this.metricsServer.url } : {}) };
  }

  /** Ends every open session of `agent` at once (its credential was revoked). */
  endSessionsOf(agent: string): void {
    this.running?.endSessionsOf(agent);
  }

  /** An MCP server instance for one agent over stdio (`tooldeck gateway --stdio --agent NAME`). */
  stdioServer(agent: string, gone: AbortSignal, metaTools = false): Server {
    this.metaToolsForAll = metaTools;
    const sourcesSynced = gatewayReadiness(this.deps.sourceSync, { logger: this.deps.logger });
    gone.addEventListener('abort', () => sourcesSynced.close(), { once: true });
    const server = gatewayServer({ ...this.callDeps, sourcesSynced }, { agent, sessionId: `stdio-${process.pid}`, gone });
    // The sources' resource and prompt lists changed: the agent re-lists (as the HTTP face tells its sessions).
    const stopLists = this.deps.upstream?.onListsChanged((what) => void (what === 'resources' ? server.sendResourceListChanged() : server.sendPromptListChanged()).catch(() => undefined));
    gone.addEventListener('abort', () => stopLists?.(), { once: true });
    this.stdioServers.add(server);
    this.deps.agents.traffic.openSession({ id: `stdio-${process.pid}`, agent, era: 'stdio', openedAt: Date.now() });
    return server;
  }

  /** Calls `listener` when what agents may see may have changed (the catalog, grants, the policy, the lock). */
  onToolsChanged(listener: () => void): () => void {
    return this.deps.onToolsChanged(listener);
  }

  onStatusChange(listener: () => void): () => void {
    return this.statusChanges.on(listener);
  }

  async close(): Promise<void> {
    this.stopChanges();
    await this.stop();
    for (const server of this.stdioServers) await server.close().catch(() => undefined);
  }

  private toolsChanged() {
    this.running?.toolsChanged();
    for (const server of this.stdioServers) {
      void server.sendToolListChanged().catch(() => undefined);
      // Grants may have changed which sources' resources and prompts the agent sees.
      if (this.deps.upstream) void Promise.all([server.sendResourceListChanged(), server.sendPromptListChanged()]).catch(() => undefined);
    }
  }

  private failed(message: string) {
    this.lastError = message;
    this.emit();
  }

  private emit() {
    this.statusChanges.emit();
  }
}
