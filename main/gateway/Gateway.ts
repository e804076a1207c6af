import type { Server } from '@modelcontextprotocol/server';
import type { GatewayStatus } from '../../shared/gateway';
import { DEFAULT_GATEWAY_PORT } from '../../shared/gateway';
import type { InvocationOutcome } from '../../shared/registry';
import type { ApprovalHolder } from '../approvals/ApprovalHolder';
import type { Logger } from '../platform/Logger';
import type { InvocationRequest } from '../registry/InvocationPipeline';
import { AgentCredentials, presentedCredential, type CredentialCheck, type GatewayCredentialCheck } from './AgentCredentials';
import { Emitter } from '../platform/Emitter';
import { AgentGrants, type AgentGrantsDeps, type WorkspaceLanguageAgent } from './AgentGrants';
import { gatewayServer, holdRequestFor, type GatewayCallDeps } from './GatewayMcpServer';
import { Mediation } from '../mediation/Mediation';
import { ModelProviders } from '../mediation/ModelProviders';
import type { SecretStore } from '../platform/SecretStore';
import type { ProvidedServer } from '../mcp/McpService';
import type { ToolPermission } from '../../shared/policy';
import { startGateway, type RunningGateway } from './GatewayServer';
import { gatewayReadiness, type SourceSync } from './gatewayReadiness';
import type { SourceFeatureGrants, UpstreamFeatures } from './relayedFeatures';
import { GatewayTraffic } from './GatewayTraffic';
import { GatewayMetrics } from './GatewayMetrics';
import { startMetricsServer, type RunningMetricsServer } from './GatewayMetricsServer';

export interface GatewayDeps {
  dataDir: string;
  appVersion: string;
  logger: Logger;
  invoke: (request: InvocationRequest) => Promise<InvocationOutcome>;
  approvals: ApprovalHolder;
  grants: AgentGrantsDeps;
  /** Subscribes to every change that may change what an agent sees (the catalog, grants, the lock); returns the unsubscribe. */
  onToolsChanged: (listener: () => void) => () => void;
  /** How often a held call tells the agent it still waits (default 15 s). */
  heartbeatMs?: number;
  /** Where model providers' API keys are kept (mediation). */
  secrets: SecretStore;
  /** Language Operator agents of a cluster with credentials the operator issued (`gateway --agent-namespace`); checked before the data dir's. */
  clusterAgents?: ClusterAgentSource;
  /** The sources' first sync, which an agent's first tools/list and /ready wait for (bounded); none: ready at once. */
  sourceSync?: SourceSync;
  /** The MCP sources' resources, prompts and completion, relayed to agents granted them (relayedFeatures.ts). */
  upstream?: UpstreamFeatures;
  /** What each agent is granted of each source beside tools; none given: nothing (deny by default). */
  sourceGrants?: (agent: string) => SourceFeatureGrants;
}

/** Agents whose credentials live in a cluster (kept there by the operator), as the gateway asks about them. */
export interface ClusterAgentSource {
  /** Whether `name` is a cluster agent name this source answers for (then the data dir's credentials are not asked). */
  knows(name: string): boolean;
  verify(name: string, secret: string): CredentialCheck;
  isLive(name: string): boolean;
  /** The agents holding a credential and the LanguageTools each references (their grants). */
  languageAgents(): WorkspaceLanguageAgent[];
  /** The cluster's ToolPermissions for these agents, as the pipeline enforces them. */
  permissions(): ToolPermission[];
  /** Those of them that grant tools (Orloj's scoped ones). */
  grantingPermissions(): ToolPermission[];
  /** The cluster's tool servers (LanguageTools) as MCP sources, named as languageAgents() references them. */
  toolSources(): ProvidedServer[];
  onChange(listener: () => void): () => void;
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
 * The MCP gateway for agents: one endpoint through which an agent calls the tools granted to it,
 * as itself, through the one pipeline. Started by `tooldeck gateway` or from the console's
 * Gateway section; `stdio()` serves one agent to an MCP host that launches its servers.
 */
export class Gateway {
  readonly credentials: AgentCredentials;
  /** What the gateway's port lets in: a cluster's agents (when given), then the data dir's. */
  private readonly admission: GatewayCredentialCheck;
  readonly traffic = new GatewayTraffic();
  /** Calls, errors, held calls, approvals decided and rate-limited requests per agent, since this gateway was made. */
  readonly metrics = new GatewayMetrics();
  readonly grants: AgentGrants;
  private running?: RunningGateway;
  private metricsServer?: RunningMetricsServer;
  /** The one pipeline and the approvals, counted in `metrics` whichever way in (MCP or mediation) the call came. */
  private readonly invoke: GatewayDeps['invoke'];
  private readonly approvals: ApprovalHolder;
  private metaToolsForAll = false;
  private lastError?: string;
  private readonly stdioServers = new Set<Server>();
  private readonly stopChanges: () => void;
  private readonly statusChanges = new Emitter();

  /** Model mediation (Clawdapus cllama) on the gateway's port: its providers and mediated turns. */
  readonly providers: ModelProviders;
  readonly mediation: Mediation;

  constructor(private readonly deps: GatewayDeps) {
    this.invoke = this.metrics.countCalls(deps.invoke);
    this.approvals = this.metrics.countApprovals(deps.approvals);
    this.credentials = new AgentCredentials(deps.dataDir);
    this.admission = deps.clusterAgents ? withClusterAgents(this.credentials, deps.clusterAgents) : this.credentials;
    this.grants = new AgentGrants(deps.grants);
    this.providers = new ModelProviders(deps.dataDir, deps.secrets);
    this.mediation = new Mediation({
      providers: this.providers,
      managedTools: (agent, caller) => this.grants.granted(agent, caller),
      invoke: this.invoke,
      approval: (agent, taskRef) => (held) => this.approvals.hold(holdRequestFor(held, agent, taskRef)).then(() => undefined),
      settings: (agent) => {
        const policy = this.grants.toolsPolicy(agent);
        return { maxRounds: policy.max_rounds, timeoutPerToolMs: policy.timeout_per_tool_ms, totalTimeoutMs: policy.total_timeout_ms, duplicates: policy.duplicate_tool_calls ?? 'replay' };
      },
    });
    this.stopChanges = deps.onToolsChanged(() => this.toolsChanged());
  }

  private get callDeps(): GatewayCallDeps {
    return { grants: this.grantsNow, invoke: this.invoke, approvals: this.approvals, traffic: this.traffic, serverInfo: { name: 'tooldeck-gateway', version: this.deps.appVersion }, heartbeatMs: this.deps.heartbeatMs, metaTools: (agent) => this.metaToolsForAll || this.credentials.metaTools(agent), ...this.relayDeps };
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
      const onRateLimited = (agent: string) => this.metrics.rateLimited(agent);
      this.running = await startGateway({ ...this.callDeps, credentials: this.admission, logger: this.deps.logger, mediation: this.mediation, onRateLimited, ...(this.deps.sourceSync ? { sourceSync: this.deps.sourceSync } : {}), ...listen, port });
    } catch (error) {
      this.failed(inUse(error, `Port ${port}`));
      throw error;
    }
    if (metricsPort !== undefined) {
      try {
        this.metricsServer = await startMetricsServer({ metrics: this.metrics, logger: this.deps.logger, port: metricsPort, host: this.running.host, allowedHostNames: options.allowedHostNames });
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

  /** Revokes an agent's credential and ends its open sessions at once. */
  async revoke(agent: string): Promise<void> {
    await this.credentials.revoke(agent);
    this.running?.endSessionsOf(agent);
  }

  /** An MCP server instance for one agent over stdio (`tooldeck gateway --stdio --agent NAME`). */
  stdioServer(agent: string, gone: AbortSignal, metaTools = false): Server {
    this.metaToolsForAll = metaTools;
    const sourcesSynced = gatewayReadiness(this.deps.sourceSync, { logger: this.deps.logger });
    gone.addEventListener('abort', () => sourcesSynced.close(), { once: true });
    const server = gatewayServer({ ...this.callDeps, sourcesSynced }, { agent, sessionId: `stdio-${process.pid}`, gone });
    this.stdioServers.add(server);
    this.traffic.openSession({ id: `stdio-${process.pid}`, agent, era: 'stdio', openedAt: Date.now() });
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
    this.credentials.close();
  }

  /**
   * What each agent is granted, resolved once per change rather than per call (resolving walks the
   * whole registry). Cleared whenever the registry, the grants, the policy or the lock change; a
   * call that slips in before the clearing is still judged by the pipeline under the rules in force.
   */
  private readonly grantedByAgent = new Map<string, ReturnType<AgentGrants['granted']>>();
  private readonly grantsNow: Pick<AgentGrants, 'granted'> = {
    granted: (agent, caller) => {
      let entries = this.grantedByAgent.get(agent);
      if (!entries) {
        entries = this.grants.granted(agent, caller);
        this.grantedByAgent.set(agent, entries);
      }
      return entries;
    },
  };

  private toolsChanged() {
    this.grantedByAgent.clear();
    this.running?.toolsChanged();
    for (const server of this.stdioServers) void server.sendToolListChanged().catch(() => undefined);
  }

  private failed(message: string) {
    this.lastError = message;
    this.emit();
  }

  private emit() {
    this.statusChanges.emit();
  }
}

/** A cluster's agents answer for the names they know; every other name is the data dir's. */
function withClusterAgents(local: AgentCredentials, cluster: ClusterAgentSource): GatewayCredentialCheck {
  return {
    check: (headers) => {
      const presented = presentedCredential(headers);
      if (!('name' in presented)) return presented;
      return cluster.knows(presented.name) ? cluster.verify(presented.name, presented.secret) : local.verify(presented.name, presented.secret);
    },
    isLive: (name) => (cluster.knows(name) ? cluster.isLive(name) : local.isLive(name)),
    onChange: (listener) => {
      const stops = [local.onChange(listener), cluster.onChange(listener)];
      return () => stops.forEach((stop) => stop());
    },
  };
}
