import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InvocationRecord } from '../shared/invocation';
import { agentCaller } from '../shared/caller';
import type { HostKind, SystemInfo } from '../shared/system';
import { A2aAgentService } from './a2a/A2aAgentService';
import { Collections } from './collections/Collections';
import type { A2aCatalogSync } from './a2a/A2aCatalogSync';
import { A2aSourceKind } from './a2a/a2aSourceKind';
import { A2aTurns, isTurnEntry } from './a2a/A2aTurns';
import { GrpcSources } from './grpc/GrpcSources';
import { GrpcSourceKind } from './grpc/grpcSourceKind';
import { HttpServices } from './http/HttpServices';
import { HttpSourceKind } from './http/httpSourceKind';
import type { ClawPod } from '../shared/resources/clawPod';
import { AgentToolAccess, lookupWithFallback } from './registry/compile/AgentToolAccess';
import { decidingReasons } from '../shared/policy';
import type { KubeSession } from './kube/KubeSession';
import { mcpToolEntry } from './mcp/McpToolSource';
import { McpSourceKind } from './mcp/mcpSourceKind';
import { McpAppHost } from './apps/McpAppHost';
import { McpRegistry } from './mcpRegistry/McpRegistry';
import type { BundleNetwork } from './mcpRegistry/mcpbBundle';
import { McpService } from './mcp/McpService';
import type { PlaceholderContext } from './resources/commandPlaceholders';
import { createLocalResources, type LocalResources } from './resources/createLocalResources';
import type { LaunchConfirmer } from './resources/LocalReconciler';
import { ServerInventory } from './resources/ServerInventory';
import type { Logger } from './platform/Logger';
import { RedactingSecretStore, redactingLogger } from './platform/RedactingSecretStore';
import { SecretRedactor } from './platform/SecretRedactor';
import type { SecretStore } from './platform/SecretStore';
import { secureDataDir } from './platform/secureDataDir';
import { InvocationPipeline } from './registry/InvocationPipeline';
import { callTracing } from './metrics/CallTracing';
import { LiveFeed } from './metrics/LiveFeed';
import type { ToolMetrics } from './metrics/ToolMetrics';
import { SettingsStore } from './settings/SettingsStore';
import type { HistoryStore } from './store/HistoryStore';
import { openHistoryStore } from './store/openHistoryStore';
import type { StoreOpenReport } from './store/openInvocationStore';
import { defaultReplicaName } from './store/replicaName';
import { agentDocuments, AgentSearchDocuments } from './registry/search/agentDocuments';
import { ToolSearchIndex, type SearchOptions } from './registry/search/ToolSearchIndex';
import type { SearchHit } from '../shared/registry';
import { ToolCatalog } from './registry/ToolCatalog';
import { closeSourceKinds, isLastingSource, sourceEndpoints, type SourceKinds } from './registry/ToolSourceKind';
import { SystemService } from './system/SystemService';
import { USER_LOCK_DECISIONS_FILE, UserLockDecisions } from './lock/UserLockDecisions';
import { DefinitionLock } from './lock/DefinitionLock';
import { DEFINITIONS_FILE_NAME, DefinitionStore } from './lock/DefinitionStore';
import { Gateway } from './gateway/Gateway';
import { mcpSourceSync } from './gateway/gatewayReadiness';
import { mcpUpstreamFeatures } from './gateway/relayedFeatures';
import { Evals } from './evals/Evals';
import { Playground } from './evals/Playground';
import { sourceReadiness, type ConnectSources } from './evals/sourceReadiness';
import { isAppError } from '../shared/errors';
import type { EvalSuite } from '../shared/evals';
import type { WorkspaceLanguageAgent } from './agents/AgentGrants';
import type { ClusterAgentSource } from './agents/AgentIdentity';
import { Agents } from './agents/Agents';
import { Mediation } from './mediation/Mediation';
import { mediationRoutes } from './mediation/mediationRoutes';
import { GATEWAY_MAX_BODY_BYTES } from './gateway/GatewayServer';
import { ModelProviders } from './mediation/ModelProviders';
import type { LanguageAgentSpec } from '../shared/kube';
import { ApprovalBook } from './approvals/ApprovalBook';
import { BusBridge } from './bus/BusBridge';
import { AMQP_URL_ENV, BusSourceKind } from './bus/busSourceKind';
import { PeerBridges } from './bus/PeerBridges';
import type { ApprovalStore } from './approvals/ApprovalHolder';

/** The platform pieces a host injects; everything below main/ stays free of host specifics. */
export interface CoreDeps {
  appVersion: string;
  host: HostKind;
  dataDir: string;
  secretStore: SecretStore;
  logger: Logger;
  versions?: Partial<SystemInfo['versions']>;
  /** Connect saved, enabled servers at start: yes for the UI hosts, no for one-shot CLI commands. */
  autoConnect?: boolean;
  /** Tests only: how mcpb bundles are downloaded (their CA, their loopback server); public https addresses otherwise. */
  registryBundleNetwork?: BundleNetwork;
  connectTimeoutMs?: number;
  /** See McpServiceOptions.shutdownGraceMs: short for one-shot CLI commands. */
  shutdownGraceMs?: number;
  /** A new data dir starts with the example workspace (default true). */
  exampleWorkspace?: boolean;
  /** Open this workspace folder instead of the one last opened (`tooldeck apply --workspace`). */
  workspaceDir?: string;
  /** Asks the user about a workspace command line not confirmed yet (the CLI: a terminal question, or `--yes`). */
  confirmLaunch?: LaunchConfirmer;
  /**
   * Where calls held for approval are kept, instead of the data dir: `tooldeck gateway --kubeconfig`
   * or `--in-cluster` keeps them as ToolApproval objects in a cluster, shared by every replica.
   * Given the core's logger; the core closes the store.
   */
  approvals?: (logger: Logger) => Promise<ApprovalStore>;
  /**
   * Language Operator agents of a cluster that use the gateway (`tooldeck gateway --agent-namespace`):
   * their credentials (issued by the operator) and their grants (LanguageAgent spec.tools) come
   * from the cluster instead of the workspace. Given the core's logger; the core closes it.
   */
  clusterAgents?: (logger: Logger) => Promise<ClusterAgentSource & { close(): Promise<void> }>;
  /** What `${node}` and `${module:…}` mean in workspace commands: the desktop app names the Node.js and servers it ships. */
  placeholders?: PlaceholderContext;
  /** History in this PostgreSQL (`--history-url`, TOOLDECK_HISTORY_URL) instead of the data dir's SQLite file. */
  historyUrl?: string;
  /** What this process's records carry as `replica` (`--replica-name`); default: the pod's name in a cluster, else the host's. */
  replicaName?: string;
  /** `--history-retention`: calls older than this many days are deleted (instead of the saved setting's). */
  historyRetentionDays?: number;
  /** The console (`serve`, the desktop app) shows calls other replicas record in the shared history as they land. */
  historyLive?: boolean;
}

export interface Core {
  readonly deps: CoreDeps;
  /**
   * The SecretStore every service uses: deps.secretStore, with every value it holds taught to
   * `redactor`. Services must use this one, not deps.secretStore.
   */
  readonly secrets: SecretStore;
  /** Masks every stored secret wherever it appears verbatim: history, transcripts, errors, logs. */
  readonly redactor: SecretRedactor;
  /** deps.logger behind the redactor: what services log with. */
  readonly logger: Logger;
  readonly system: SystemService;
  readonly mcp: McpService;
  /** MCP registries: search, server.json, install plans, installs remembered for the newer-version notice. */
  readonly mcpRegistry: McpRegistry;
  readonly a2a: A2aAgentService;
  readonly a2aSkills: A2aCatalogSync;
  /** Conversation turns: each one call of the agent's turn entry through the pipeline. */
  readonly a2aTurns: A2aTurns;
  readonly http: HttpServices;
  /** gRPC tool servers (tools.v1) and reflected services, saved or declared by Orloj Tools of type grpc. */
  readonly grpc: GrpcSources;
  /** One adapter per source kind: how a call prepares a source, whether the lock tracks it, its endpoint, its saved sources. */
  readonly sourceKinds: SourceKinds;
  /** The YAML workspace and its local reconcile (McpServer, Tool, ToolPermission resources). */
  readonly resources: LocalResources;
  /** Every MCP server, saved or declared in the workspace: what the CLI and the views list. */
  readonly servers: ServerInventory;
  /**
   * The cluster chosen in the Cluster section; connects to nothing until first used. Absent in
   * one-shot CLI commands (kube commands bring their own connection), which then skip loading the
   * Kubernetes client.
   */
  readonly kube?: KubeSession;
  readonly catalog: ToolCatalog;
  /** Tool-definition trust: revisions of every source's definitions, the workspace's tooldeck.lock, holds, the linter. */
  readonly lock: DefinitionLock;
  /** Agents of the workspace's pod files, their tool grants, and their compiled tools.json / config.yaml. */
  readonly agentTools: AgentToolAccess;
  readonly search: ToolSearchIndex;
  /** Search over tools, skills and agents (saved A2A agents and the agents of the workspace's pod files). */
  searchAll(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  readonly pipeline: InvocationPipeline;
  /** Saved requests and their runs, through the pipeline. */
  readonly collections: Collections;
  /** MCP Apps: a tool's ui:// app served from its own loopback origin, its calls through the pipeline. */
  readonly apps: McpAppHost;
  /** Invocation history (SQLite, or PostgreSQL shared by replicas); how it opened (e.g. recovered from a corrupt file) is in historyReport. */
  readonly history: HistoryStore;
  readonly historyReport: StoreOpenReport;
  /**
   * The OpenTelemetry instruments and exporters. Absent in one-shot CLI commands: nothing could
   * scrape or export them before the process ends, and loading OpenTelemetry is a third of start-up.
   */
  readonly metrics?: ToolMetrics;
  /** Every recorded call as it happens, for live charts and the history view. */
  readonly liveCalls: LiveFeed<InvocationRecord>;
  readonly settings: SettingsStore;
  /**
   * Calls held for a person's approval, as Orloj ToolApprovals: in the data dir (listed and decided
   * from any process on it), or in a cluster when the host chose one (CoreDeps.approvals).
   */
  readonly approvals: ApprovalStore;
  /**
   * Connects (or waits for) every tool source before something reads what can be called now: an
   * eval, a Playground turn, `tooldeck agents` (bounded; resolves with the sources that did not connect).
   */
  readonly connectSources: ConnectSources;
  /** Agents, whatever door they use: identity, grants (with where each comes from), model grants, the approval hook, traffic, metrics. */
  readonly agents: Agents;
  /** The MCP gateway: the MCP face for agents (and mediation's endpoints on its port); started on demand. */
  readonly gateway: Gateway;
  /** Model providers (their keys sealed in the secret store), for mediation, the Playground and evals. */
  readonly providers: ModelProviders;
  /** Model mediation as Clawdapus's cllama does it: the engine the gateway's endpoints, the Playground and evals share. */
  readonly mediation: Mediation;
  /** Eval suites (`evals/*.yml`) run through the gateway's mediation engine: `tooldeck eval` and the Evals view. */
  readonly evals: Evals;
  /** A conversation with a model over a tool set on the same engine; turns saved as eval cases. */
  readonly playground: Playground;
  /** The RockBot MCP bridge on RabbitMQ: RockBot agents' tool calls through the pipeline; started on demand. */
  readonly bus: BusBridge;
  close(): Promise<void>;
}

/** The one composition function: every host (Electron, web, CLI) builds its services here. */
export async function createCore(deps: CoreDeps): Promise<Core> {
  mkdirSync(deps.dataDir, { recursive: true, mode: 0o700 });
  // Data dirs made by an older Tooldeck (or another program) may be group- or world-readable.
  secureDataDir(deps.dataDir);
  const redactor = new SecretRedactor([], { minLength: 4 });
  const secrets = new RedactingSecretStore(deps.secretStore, redactor);
  await secrets.learnStoredValues();
  const logger = redactingLogger(deps.logger, redactor);
  const system = new SystemService({ appVersion: deps.appVersion, host: deps.host, dataDir: deps.dataDir, versions: deps.versions });
  const settings = new SettingsStore(deps.dataDir);
  const { history: retention } = await settings.load();
  const approvals = deps.approvals ? await deps.approvals(logger) : new ApprovalBook({ dataDir: deps.dataDir, logger });
  const clusterAgents = deps.clusterAgents ? await deps.clusterAgents(logger) : undefined;
  const { store: history, report: historyReport } = await openHistoryStore({
    dataDir: deps.dataDir,
    url: deps.historyUrl,
    retention: deps.historyRetentionDays === undefined ? retention : { ...retention, maxAgeDays: deps.historyRetentionDays },
    live: deps.historyLive,
  });
  const replica = deps.replicaName ?? defaultReplicaName();
  if (historyReport.recovered || !historyReport.persistent) logger.warn(historyReport.message);
  history.onWriteError((error) => logger.error('history write failed', { error: error.message }));
  const metrics = deps.host === 'cli' ? undefined : new (await import('./metrics/ToolMetrics')).ToolMetrics({ serviceVersion: deps.appVersion });
  const exporters = settings.get().metrics;
  if (metrics && exporters.prometheus.enabled) {
    await metrics.startPrometheus({ port: exporters.prometheus.port }).catch((error: Error) => logger.warn('Prometheus exporter not started', { error: error.message }));
  }
  if (metrics && exporters.otlp.enabled && exporters.otlp.url) await metrics.configureOtlp({ url: exporters.otlp.url, intervalMs: exporters.otlp.intervalMs });
  // Call spans over OTLP: the saved setting, else the standard OpenTelemetry environment variable.
  const traceUrl = settings.get().tracing.otlp.enabled ? settings.get().tracing.otlp.url : process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traceUrl) await callTracing.configureOtlp({ url: traceUrl });
  // Each call as an OTLP log record (GenAI/MCP semantic conventions), to the standard endpoint variable.
  const logsUrl = process.env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT;
  const callLogs = logsUrl ? await (await import('./metrics/CallLogs')).CallLogs.start({ url: logsUrl, serviceVersion: deps.appVersion }) : undefined;
  const liveCalls = new LiveFeed<InvocationRecord>();
  // Calls other replicas recorded into a shared history join the feed the History view follows.
  history.onOtherReplicas((record) => liveCalls.publish(record));
  const catalog = new ToolCatalog();
  // Every call is recorded once, here: history, the metric instruments and the live feed all see
  // the same record, so charts, exporters and history cannot disagree.
  // Secrets are masked once, here, before any of them keeps the record.
  const recorder = {
    record(raw: InvocationRecord) {
      const record = { ...redactRecord(raw, redactor), replica };
      history.record(record);
      metrics?.observe(record);
      callLogs?.emit(record);
      liveCalls.publish(record);
    },
  };
  const mcp = new McpService({
    dataDir: deps.dataDir,
    secretStore: secrets,
    logger,
    clientInfo: { name: 'tooldeck', version: deps.appVersion },
    redactor,
    maxResultBytes: settings.get().limits.maxResultMiB * 1024 * 1024,
    autoConnect: deps.autoConnect,
    connectTimeoutMs: deps.connectTimeoutMs,
    shutdownGraceMs: deps.shutdownGraceMs,
  });
  await mcp.init();
  // A detached task-augmented call is recorded before its task ends: its record gets the final status.
  mcp.tasks.onSettled((task) => history.setTaskStatus(task.server, task.taskId, task.status));
  // Listed in the background like A2A cards (an unreachable server must not delay start-up); one-shot
  // CLI commands list a source when they call it.
  const grpc = new GrpcSources({ dataDir: deps.dataDir, catalog, secretStore: secrets, logger, autoList: deps.autoConnect === true });
  await grpc.init();
  if (deps.autoConnect) void grpc.refreshAll();
  // One-shot CLI commands apply workspace policy but never start or change workspace servers.
  const resources = await createLocalResources({
    dataDir: deps.dataDir,
    mcp,
    grpc,
    logger,
    manageServers: deps.autoConnect === true,
    watch: deps.autoConnect === true,
    seedExamples: deps.exampleWorkspace,
    placeholders: deps.placeholders,
    confirmLaunch: deps.confirmLaunch,
    workspaceDir: deps.workspaceDir,
  });
  const servers = new ServerInventory(mcp, resources.reconciler);
  const a2a = new A2aAgentService({ dataDir: deps.dataDir, secretStore: secrets, logger });
  const http = new HttpServices({ dataDir: deps.dataDir, catalog, secretStore: secrets, logger });
  // Other RockBot bridges' tools, discovered while the bus bridge runs (it lends them its connection).
  const busPeers = new PeerBridges({ catalog, logger });
  // One line per source kind (docs/architecture.md, "Adding a source kind").
  const sourceKinds = {
    mcp: new McpSourceKind({ service: mcp, catalog, logger, configured: resources.toolConfig, onPolicyChange: (listener) => resources.onPolicyChange(listener) }),
    a2a: new A2aSourceKind({ agents: a2a, catalog, logger }),
    grpc: new GrpcSourceKind(grpc),
    http: new HttpSourceKind(http, catalog),
    // A one-off `tooldeck call bus:…` joins the broker named in the environment (no bus bridge runs in that process).
    bus: new BusSourceKind({ peers: busPeers, brokerUrl: () => (deps.host === 'cli' ? process.env[AMQP_URL_ENV] : undefined) }),
  } satisfies SourceKinds;
  const a2aSkills = sourceKinds.a2a.catalogSync;
  // A cluster's LanguageTools are MCP sources (`gateway --agent-namespace`), in memory only, in step with the cluster.
  const stopClusterTools = clusterAgents ? mcp.provideFrom({ servers: () => clusterAgents.toolSources(), onChange: (listener) => clusterAgents.onChange(listener) }) : () => undefined;
  // Cards are fetched in the background: an unreachable agent must not delay start-up.
  if (deps.autoConnect) void a2aSkills.syncAll();
  await http.init();
  const definitions = DefinitionStore.open(join(deps.dataDir, DEFINITIONS_FILE_NAME));
  if (definitions.report) logger.warn(definitions.report);
  const lock = new DefinitionLock({
    catalog,
    store: definitions,
    workspaceDir: () => resources.workspace.dir,
    // One-off targets (an MCP server or gRPC source given on the command line, an agent addressed by URL) are not tracked.
    tracked: (source) => isLastingSource(sourceKinds, source),
    // An agent's turn entries are Tooldeck's own definitions, not the agent's: nothing to review.
    reviews: (entry) => !isTurnEntry(entry),
    logger,
    watch: deps.autoConnect === true,
    userDecisions: new UserLockDecisions(join(deps.dataDir, USER_LOCK_DECISIONS_FILE)),
  });
  await lock.init();
  // Built once the workspace (its ToolPermissions) and tooldeck.lock (its holds) are open. Permissions
  // are read on every call, so edits apply at once.
  // A cluster's ToolPermissions (`gateway --agent-namespace`) govern its agents' calls beside the workspace's.
  const permissions = clusterAgents ? () => [...resources.permissions(), ...clusterAgents.permissions()] : resources.permissions;
  // The grants stage: an agent's call, through any door, is refused unless the agent is granted the tool.
  const pipeline: InvocationPipeline = new InvocationPipeline({ catalog, recorder, logger, redactor, permissions, holds: (entry) => lock.hold(entry), grants: (agent, entry) => agents.grants.isGranted(agent, entry.name) });
  const apps = new McpAppHost({ mcp, catalog, pipeline, logger });
  const a2aTurns = new A2aTurns({ agents: a2a, pipeline, catalog, sync: (agent) => a2aSkills.sync(agent) });
  const collections = new Collections({ dataDir: deps.dataDir, secrets, sourceKinds, pipeline, history, logger });
  const stopLockWorkspace = resources.workspace.onChange(() => void lock.workspaceChanged());
  const stopPins = grpc.onPinned((source, tool, version) => lock.acceptPin({ kind: 'grpc', name: source }, tool, version));
  const kube = deps.host === 'cli' ? undefined : new (await import('./kube/KubeSession')).KubeSession({ logger, definitions });
  const search = new ToolSearchIndex();
  const detachSearch = search.attach(catalog);
  const workspacePods = () =>
    resources.workspace.documents().flatMap((doc) => (doc.identity?.kind === 'ClawPod' && doc.valid && doc.stored ? [{ file: doc.file, pod: doc.stored as ClawPod }] : []));
  const agentSearch = new AgentSearchDocuments(search);
  const agentTools = new AgentToolAccess({
    pods: workspacePods,
    // A server that is not connected right now still grants what it listed at its last discovery;
    // only those servers' cache files are read.
    tools: async () =>
      lookupWithFallback(
        catalog,
        await Promise.all(
          mcp
            .configs()
            .filter((config) => catalog.list({ source: `mcp:${config.name}` }).length === 0)
            .map(async (config) => ({
              source: { kind: 'mcp' as const, name: config.name },
              entries: ((await mcp.toolCache.read(config.name))?.tools ?? []).flatMap((tool) => {
                const configured = resources.toolConfig(config.name, tool);
                return configured?.excluded ? [] : [mcpToolEntry(config.name, tool, configured)];
              }),
            })),
        ),
      ),
    endpoints: () => sourceEndpoints(sourceKinds),
    workspaceDir: () => resources.workspace.dir,
    // An agent is never handed a tool the console itself would refuse: held for review, rejected or denied.
    held: (entry) => {
      const hold = lock.hold(entry);
      if (hold) return `${hold.state === 'rejected' ? 'rejected' : 'held for review'}: ${hold.reason}`;
      const verdict = pipeline.policy.verdict(entry);
      return verdict.verdict === 'deny' ? `denied (${decidingReasons(verdict).join('; ')})` : undefined;
    },
  });

  const workspaceLanguageAgents = (): WorkspaceLanguageAgent[] =>
    resources.workspace.documents().flatMap((doc) => {
      if (doc.identity?.kind !== 'LanguageAgent' || !doc.valid || !doc.stored) return [];
      const spec = (doc.stored as { spec?: Partial<LanguageAgentSpec> }).spec;
      return [{ name: doc.identity.name, file: doc.file, tools: (spec?.tools ?? []).filter((tool) => tool.enabled !== false).map((tool) => tool.name) }];
    });
  // In a cluster, the agents' grants are the cluster's LanguageAgents, not the workspace's.
  const languageAgents = clusterAgents ? () => clusterAgents.languageAgents() : workspaceLanguageAgents;
  // The agent as one domain: identity, grants with provenance, model grants, the one approval hook, traffic and metrics for every door.
  const agents: Agents = new Agents({
    dataDir: deps.dataDir,
    pipeline: (request) => pipeline.invoke(request),
    approvals,
    ...(clusterAgents ? { clusterAgents } : {}),
    recentCalls: async (agent, limit) => (await history.list({ agent, limit })).items,
    grants: {
      catalog,
      pods: workspacePods,
      languageAgents,
      permissions: clusterAgents ? () => [...resources.permissions(), ...clusterAgents.grantingPermissions()] : resources.permissions,
      verdict: (entry, caller) => pipeline.policy.verdict(entry, caller),
      held: (entry) => lock.hold(entry)?.reason,
    },
  });
  /** Every change that may change what an agent is granted or offered: the catalog, the policy, the lock, the workspace, a cluster's agents. */
  const onGrantsChanged = (listener: () => void) => {
    const stops = [catalog.onChange(listener), resources.onPolicyChange(listener), lock.onChange(listener), resources.workspace.onChange(listener), ...(clusterAgents ? [clusterAgents.onChange(listener)] : [])];
    return () => stops.forEach((stop) => stop());
  };
  // Resolved grants are forgotten at once (the pipeline's grants stage reads them on every call).
  const stopGrantsCache = onGrantsChanged(() => agents.grants.invalidate());
  const providers = new ModelProviders(deps.dataDir, secrets);
  const mediation = new Mediation({
    providers,
    managedTools: (agent, caller) => agents.grants.granted(agent, caller),
    invoke: (call) => agents.invoke(call),
    models: agents.models,
    isLive: (agent) => agents.isLive(agent),
    settings: (agent) => {
      const policy = agents.grants.toolsPolicy(agent);
      return { maxRounds: policy.max_rounds, timeoutPerToolMs: policy.timeout_per_tool_ms, totalTimeoutMs: policy.total_timeout_ms, duplicates: policy.duplicate_tool_calls ?? 'replay' };
    },
  });
  const gateway = new Gateway({
    agents: {
      admission: agents.admission,
      grants: agents.grants,
      invoke: (call) => agents.invoke(call),
      traffic: agents.traffic,
      metrics: agents.metrics,
      metaTools: (agent) => agents.credentials.metaTools(agent),
    },
    // Model mediation's door shares the gateway's port and guards: the same credential names the agent.
    routes: mediationRoutes(mediation, GATEWAY_MAX_BODY_BYTES),
    // Servers connect at start only with autoConnect; the gateway's first tools/list and /ready wait for them (bounded).
    ...(deps.autoConnect ? { sourceSync: mcpSourceSync(mcp, () => resources.reconciler.workspaceServers().flatMap((server) => (server.config ? [server.name] : []))) } : {}),
    // Resources, prompts and completion of the MCP sources, relayed to agents whose pod grants say `resources: true` / `prompts: true` (deny by default).
    upstream: mcpUpstreamFeatures(mcp),
    sourceGrants: (agent) => agents.grants.sourceFeatures(agent),
    appVersion: deps.appVersion,
    logger,
    onToolsChanged: (listener) => {
      // Many changes come together (a server's tools listed, a workspace saved): one notification for them.
      let queued = false;
      return onGrantsChanged(() => {
        if (queued) return;
        queued = true;
        setImmediate(() => {
          queued = false;
          listener();
        });
      });
    },
  });

  // Evals and the Playground wait for every source (a one-shot command connects each) before they read a tool set.
  const connectSources = sourceReadiness({ servers, mcp, reconciler: resources.reconciler, sourceKinds, console: deps.autoConnect === true });
  const evals = new Evals({
    runTurn: (input) => mediation.runTurn(input),
    providers: () => providers.list(),
    resolveTool: (name) => catalog.get(name),
    granted: (agent, caller) => agents.grants.granted(agent, caller),
    suites: () =>
      resources.workspace.documents().flatMap((doc) =>
        doc.identity?.kind !== 'EvalSuite' ? [] : [{ file: doc.file, ...(doc.valid && doc.stored ? { suite: doc.stored as EvalSuite } : { problem: doc.diagnostics.find((d) => d.severity === 'error')?.message ?? 'not a valid eval suite' }) }],
      ),
    definitions: (tool) => {
      const entry = catalog.get(tool);
      if (!entry) return {};
      const diff = lock.compare({ source: `${entry.source.kind}:${entry.source.name}`, from: 'approved', to: 'current' }).tools.find((item) => item.name === entry.toolName);
      return { ...(diff?.before ? { approved: diff.before } : {}), ...(diff?.after ? { current: diff.after } : {}) };
    },
    connectSources,
  });
  const playground = new Playground({
    dataDir: deps.dataDir,
    runTurn: (input) => mediation.runTurn(input),
    providers: () => providers.list(),
    resolveTool: (name) => catalog.get(name),
    workspace: {
      get dir() {
        return resources.workspace.dir;
      },
      read: (path) => {
        try {
          return resources.workspace.read(path);
        } catch (error) {
          if (isAppError(error) && error.code === 'NotFound') return { version: null };
          throw error;
        }
      },
      save: (input) => resources.workspace.save(input),
    },
    connectSources,
  });
  // RockBot's bus serves an agent (the broker-validated user) only its grants, like every other door.
  const bus = new BusBridge({
    invoke: (request) => agents.invoke(request),
    entries: () => catalog.list(),
    grantedTo: (agent) => agents.grants.granted(agent, agentCaller(agent, 'bus')),
    onToolsChanged: (listener) => onGrantsChanged(() => listener()),
    peers: busPeers,
    logger,
  });

  return {
    deps,
    secrets,
    redactor,
    logger,
    system,
    mcp,
    mcpRegistry: new McpRegistry({ dataDir: deps.dataDir, bundleNetwork: deps.registryBundleNetwork }),
    a2a,
    a2aSkills,
    a2aTurns,
    http,
    grpc,
    sourceKinds,
    resources,
    servers,
    kube,
    catalog,
    lock,
    agentTools,
    search,
    async searchAll(query, options) {
      // Agents change without catalog events (a card read, a pod file edited): brought up to date per search, cheaply.
      const saved = await a2a.list();
      agentSearch.replace(agentDocuments(saved.map((agent) => ({ name: agent.name, url: agent.url, card: a2aSkills.cardOf(agent.name) })), workspacePods().map((item) => item.pod)));
      return search.search(query, options);
    },
    pipeline,
    collections,
    apps,
    history,
    historyReport,
    metrics,
    liveCalls,
    settings,
    approvals,
    connectSources,
    agents,
    gateway,
    providers,
    mediation,
    evals,
    playground,
    bus,
    async close() {
      evals.close();
      // The bus bridge hands back the requests it still runs (another bridge takes them).
      await bus.stop();
      // The gateway stops taking calls first; then calls still held for approval end (denied: Tooldeck stopped), before what they would call closes.
      await gateway.close();
      stopGrantsCache();
      await agents.close();
      stopClusterTools();
      await clusterAgents?.close();
      await approvals.close();
      detachSearch();
      stopLockWorkspace();
      stopPins();
      await apps.closeAll();
      await resources.close();
      await kube?.close();
      // Stops each kind's catalog sync and closes its connections (MCP, A2A, gRPC, in that order).
      await closeSourceKinds(sourceKinds);
      lock.close();
      await lock.flush();
      definitions.close();
      await history.close();
      await callLogs?.shutdown();
      await metrics?.shutdown();
      await callTracing.flush().catch(() => undefined);
    },
  };
}

/** A record with every known secret masked in what it keeps verbatim: arguments, result preview, error. */
function redactRecord(record: InvocationRecord, redactor: SecretRedactor): InvocationRecord {
  if (redactor.size === 0) return record;
  return {
    ...record,
    argumentsJson: redactor.text(record.argumentsJson),
    resultPreview: redactor.text(record.resultPreview),
    ...(record.errorMessage === undefined ? {} : { errorMessage: redactor.text(record.errorMessage) }),
  };
}
