import { orlojVerdict, type AgentListItem, type AgentView } from '../../shared/agents';
import type { ToolApproval } from '../../shared/approvals';
import { agentCaller, callerAgent } from '../../shared/caller';
import { AppError } from '../../shared/errors';
import type { InvocationRecord } from '../../shared/invocation';
import type { InvocationOutcome } from '../../shared/registry';
import type { ApprovalHolder } from '../approvals/ApprovalHolder';
import type { InvocationRequest } from '../registry/InvocationPipeline';
import { holdRequestFor } from './agentApproval';
import { AgentCredentials, type GatewayCredentialCheck } from './AgentCredentials';
import { AgentGrants, type AgentGrantsDeps } from './AgentGrants';
import { agentAdmission, type ClusterAgentSource } from './AgentIdentity';
import { AgentMetrics } from './AgentMetrics';
import { AgentTraffic } from './AgentTraffic';
import { ModelGrants } from './ModelGrants';

/** How a door wants an agent's held call to wait: the one approval hook builds the rest. */
export interface AgentHold {
  /** Where the call came from: `<door>/<agent>/<session>`. */
  taskRef: string;
  /** The agent went away or its deadline passed: the approval ends Denied. */
  signal?: AbortSignal;
  /** The approval exists (Pending): the door tells its agent which one it waits on. */
  onPending?: (approval: ToolApproval) => void;
  /** A person decided (either way): the door stops saying the call waits. */
  onDecided?: () => void;
}

/** An agent door's call: an InvocationRequest, with how a held call waits instead of an approval function. */
export interface AgentCall extends InvocationRequest {
  hold?: AgentHold;
}

export interface AgentsDeps {
  dataDir: string;
  /** The one invocation pipeline (its grants stage asks `grants.isGranted`). */
  pipeline: (request: InvocationRequest) => Promise<InvocationOutcome>;
  /** Where held calls wait: the data dir's ApprovalBook or a cluster's ToolApprovals. */
  approvals: ApprovalHolder;
  grants: AgentGrantsDeps;
  /** Language Operator agents of a cluster (`gateway --agent-namespace`): their credentials, grants and model grants. */
  clusterAgents?: ClusterAgentSource;
  /** The agent's latest recorded calls, newest first (the history store). */
  recentCalls?: (agent: string, limit: number) => Promise<InvocationRecord[]>;
}

const RECENT_CALLS_SHOWN = 20;

/**
 * The agent as one domain, whatever door it comes through (the MCP gateway, model mediation,
 * RockBot's bus): who it is (`admission` over gateway credentials and a cluster's agents; the bus's
 * broker-validated user), what it may call and why (`grants`, with provenance), which models it may
 * use (`models`), the one approval hook for its held calls, one live traffic record and one set of
 * per-agent metrics. Doors are thin protocol adapters: they translate their protocol to an
 * `AgentCall` and hand it to `invoke`.
 */
export class Agents {
  readonly credentials: AgentCredentials;
  /** What an HTTP door lets in: a cluster's agents (when given), then the data dir's. */
  readonly admission: GatewayCredentialCheck;
  readonly grants: AgentGrants;
  readonly models: ModelGrants;
  readonly metrics = new AgentMetrics();
  readonly traffic = new AgentTraffic();
  private readonly approvals: ApprovalHolder;
  private readonly counted: (request: InvocationRequest) => Promise<InvocationOutcome>;

  constructor(private readonly deps: AgentsDeps) {
    this.credentials = new AgentCredentials(deps.dataDir);
    this.admission = agentAdmission(this.credentials, deps.clusterAgents);
    this.grants = new AgentGrants(deps.grants);
    const cluster = deps.clusterAgents;
    this.models = new ModelGrants(
      deps.dataDir,
      cluster ? { knows: (name) => cluster.knows(name), models: (name) => cluster.languageAgents().find((agent) => agent.name === name)?.models ?? [] } : undefined,
    );
    this.approvals = this.metrics.countApprovals(deps.approvals);
    this.counted = this.metrics.countCalls(deps.pipeline);
  }

  /** Whether `agent` holds a live credential (the data dir's or a cluster's). */
  isLive(agent: string): boolean {
    return this.admission.isLive(agent);
  }

  /**
   * Every agent door's call: counted per agent, shown live, and — when the door says how a held
   * call waits — held through the one approval hook. The operator's calls (Playground, evals)
   * pass straight to the pipeline.
   */
  invoke(call: AgentCall): Promise<InvocationOutcome> {
    const { hold, ...request } = call;
    const agent = callerAgent(request.caller);
    if (agent === undefined) return this.deps.pipeline(request);
    const live = this.traffic.started({ agent, via: request.caller.via, ...(request.caller.sessionId ? { sessionId: request.caller.sessionId } : {}), tool: request.name, startedAt: Date.now() });
    if (hold && !request.approval) request.approval = (held) => this.hold(held, agent, hold, live);
    return this.counted(request).then(
      (outcome) => {
        this.traffic.finished(live, { status: outcome.record.status, latencyMs: outcome.record.latencyMs, recordId: outcome.record.id, ...(outcome.error ? { error: outcome.error.message } : {}) });
        return outcome;
      },
      (error: Error) => {
        this.traffic.finished(live, { status: 'error', error: error.message });
        throw error;
      },
    );
  }

  /**
   * Every agent Tooldeck knows of — holding a credential, named by a grant, or a cluster's — with
   * its doors, its models and how many tools it is granted.
   */
  async list(): Promise<AgentListItem[]> {
    const credentials = await this.credentials.list();
    const names = new Set([...credentials.map((agent) => agent.name), ...this.grants.agentNames(), ...(this.deps.clusterAgents?.languageAgents().map((agent) => agent.name) ?? [])]);
    return [...names].sort().map((name) => {
      const credential = credentials.find((agent) => agent.name === name);
      return { name, doors: this.doorsOf(name, credential), models: this.models.patterns(name), toolCount: this.grants.grants(name).length };
    });
  }

  /**
   * "What may agent X do, and why?": its doors, each granted tool with every place that grants it
   * and the verdict policy gives it for this agent (in Orloj's words), its models, its sessions and
   * its recent calls. The same resolver every door enforces, so this is what they serve.
   */
  async show(name: string): Promise<AgentView> {
    const credential = (await this.credentials.list()).find((agent) => agent.name === name);
    const grants = this.grants.grants(name);
    const known = credential !== undefined || grants.length > 0 || this.grants.agentNames().includes(name) || this.deps.clusterAgents?.knows(name) === true;
    if (!known) throw new AppError('NotFound', `No agent named ${name}: it holds no credential and no pod file, ToolPermission or LanguageAgent grants it anything.`);
    const caller = agentCaller(name, 'gateway');
    const recentCalls = (await this.deps.recentCalls?.(name, RECENT_CALLS_SHOWN)) ?? [];
    const budget = this.models.dailyTokens(name);
    return {
      name,
      doors: { ...this.doorsOf(name, credential), ...(recentCalls.some((call) => call.via === 'bus') ? { bus: true } : {}) },
      tools: grants.map(({ entry, grantedBy }) => {
        const withheld = this.grants.withheld(entry, caller);
        return { name: entry.name, grantedBy, verdict: orlojVerdict(this.deps.grants.verdict(entry, caller).verdict), ...(withheld ? { withheld } : {}) };
      }),
      models: this.models.patterns(name),
      ...(budget !== undefined ? { dailyTokenBudget: budget, tokensToday: this.models.tokensToday(name) } : {}),
      sessions: this.traffic.snapshot().sessions.filter((session) => session.agent === name),
      recentCalls,
    };
  }

  async close(): Promise<void> {
    this.credentials.close();
    await this.models.flushTokens();
  }

  private doorsOf(name: string, credential: { createdAt: string; revokedAt?: string } | undefined): AgentView['doors'] {
    return {
      ...(credential ? { credential: { createdAt: credential.createdAt, ...(credential.revokedAt ? { revokedAt: credential.revokedAt } : {}) } } : {}),
      ...(this.deps.clusterAgents?.knows(name) ? { cluster: true } : {}),
    };
  }

  private async hold(held: Parameters<NonNullable<InvocationRequest['approval']>>[0], agent: string, hold: AgentHold, live: string): Promise<void> {
    try {
      await this.approvals.hold(holdRequestFor(held, agent, hold.taskRef), {
        ...(hold.signal ? { signal: hold.signal } : {}),
        onPending: (approval) => {
          this.traffic.held(live, approval.metadata.name);
          hold.onPending?.(approval);
        },
      });
      this.traffic.resumed(live);
    } finally {
      hold.onDecided?.();
    }
  }
}
