import type { ConnectionStatus, McpServerConfig, McpTool } from '../../shared/mcp';
import { sealServerConfig } from '../../shared/serverSecrets';
import type { McpServerStatus } from '../../shared/resources/mcpServer';
import type { McpServerResourceView, ObjectStatus, ResourceStatuses, ToolPermissionResourceView, ToolResourceView } from '../../shared/resources/statuses';
import type { GrpcSources, WorkspaceGrpcSource } from '../grpc/GrpcSources';
import type { McpService } from '../mcp/McpService';
import type { Logger } from '../platform/Logger';
import { canonicalJson } from '../registry/canonicalJson';
import { parseDuration } from '../registry/policy/duration';
import { resolveOperationClasses } from '../registry/policy/operationClasses';
import type { ToolPermission } from '../registry/policy/ToolPermission';
import { ReconcileLoop } from '../reconcile/ReconcileLoop';
import { defaultPlaceholderContext, type PlaceholderContext } from './commandPlaceholders';
import type { McpServerObject } from './kinds/normalizeMcpServer';
import { normalizeOrlojToolSpec, type OrlojToolObject } from './kinds/normalizeOrlojTool';
import type { ToolPermissionObject } from './kinds/normalizeToolPermissionResource';
import { ResourceIssues } from './kinds/ResourceIssues';
import { LastAppliedSet, type AppliedObject } from './LastAppliedSet';
import type { LaunchAllowList } from './LaunchAllowList';
import { isWorkspaceManaged, launchLineOf, mcpServerConfig } from './mcpServerConfig';
import { generatedToolName, isIncluded, permissionPlan, toolResourceFor, toolSettings, type ResourceToolLookup } from './resourcePolicy';
import type { Workspace } from './Workspace';
import { grpcToolSource } from './grpcToolSource';
import { Emitter } from '../platform/Emitter';

export interface LocalReconcilerOptions {
  workspace: Workspace;
  mcp: McpService;
  /** Where Tools of type grpc become sources; without it they are stored and not run. */
  grpc?: GrpcSources;
  logger: Logger;
  placeholders?: PlaceholderContext;
  /** After a round of the reconnect policy failed, the next round starts this much later (default 60 s). */
  resyncIntervalMs?: number;
  /**
   * Save, connect and remove servers (default true). Off for one-shot CLI commands: the workspace's
   * policy and permissions still apply, but no server is started or changed.
   */
  manageServers?: boolean;
  /** The command lines the user confirmed per folder: a stdio McpServer starts only when its line is here. */
  launchAllowList: LaunchAllowList;
  /**
   * Asks the user about a line not confirmed yet, where a host can ask at once (the CLI on a terminal,
   * or `--yes`); a yes is recorded in the allow-list. Without it, or on a no, the McpServer is not
   * started and its status names the line (`unconfirmedLaunch`) for the console's confirm action.
   */
  confirmLaunch?: LaunchConfirmer;
  now?: () => Date;
}

export type LaunchConfirmer = (request: { server: string; folder: string; line: string }) => Promise<boolean>;

/** The status sentence of a stdio McpServer whose command line the user has not confirmed for this folder. */
export function launchNotConfirmedMessage(line: string): string {
  return `launch not confirmed: ${line}`;
}

interface ServerRuntime {
  status: McpServerStatus;
  /** Failed attempts in the current round of the reconnect policy. */
  failures: number;
  /** The tools the server listed last (kept while it is down, as Orloj keeps generated Tools). */
  tools: McpTool[];
  lastSeen?: ConnectionStatus;
}

const DEFAULT_RESYNC_MS = 60_000;

/**
 * The embedded target. McpServer resources become live connections through McpService (saved as
 * workspace-managed servers, removed when their resource goes); their tools become generated Tool
 * resources `<server>--<tool>` kept in memory; Tool resources configure registry entries and
 * ToolPermission resources feed the invocation pipeline. Status is kept in memory and never
 * written into the user's files.
 */
export class LocalReconciler {
  private readonly servers = new LastAppliedSet<McpServerObject>('McpServer');
  private readonly tools = new LastAppliedSet<OrlojToolObject>('Tool');
  private readonly permissionSet = new LastAppliedSet<ToolPermissionObject>('ToolPermission');
  private readonly runtime = new Map<string, ServerRuntime>();
  /** Servers the reconciler itself is saving, connecting or removing: their events are its own. */
  private readonly busy = new Set<string>();
  private readonly loop: ReconcileLoop;
  private readonly statusChanges = new Emitter((error) => this.options.logger.warn('local reconciler listener failed', { error: (error as Error).message }));
  private readonly policyChanges = new Emitter((error) => this.options.logger.warn('local reconciler listener failed', { error: (error as Error).message }));
  private readonly placeholders: PlaceholderContext;
  private readonly now: () => Date;
  private policyKey = '';
  private enforced: ToolPermission[] = [];
  private stops: Array<() => void> = [];

  constructor(private readonly options: LocalReconcilerOptions) {
    this.placeholders = options.placeholders ?? defaultPlaceholderContext();
    this.now = options.now ?? (() => new Date());
    this.loop = new ReconcileLoop({ reconcile: (name) => this.reconcileServer(name), workers: 2, logger: options.logger });
  }

  /** Servers waiting for their command line to be confirmed, retried as soon as a line is. */
  private readonly awaitingConfirmation = () => {
    for (const [name, state] of this.runtime) if (state.status.unconfirmedLaunch) this.loop.enqueue(name);
  };

  /** Reads the workspace, removes managed servers whose resource is gone, and starts converging. */
  start() {
    if (this.options.manageServers !== false) this.loop.start();
    this.stops = [
      this.options.workspace.onChange(() => this.sync()),
      this.options.mcp.onChange(() => this.observeConnections()),
      this.options.mcp.onToolsChanged((server) => this.toolsChanged(server)),
      this.options.launchAllowList.onChange(this.awaitingConfirmation),
      ...(this.options.grpc ? [this.options.grpc.onChange(() => this.emitStatus())] : []),
    ];
    this.sync();
    const unreadable = this.options.workspace.listing().files.some((file) => this.options.workspace.isUnreadable(file.path));
    // A file that cannot be parsed may hold a server's resource: then nobody can tell it is gone.
    if (!unreadable) {
      for (const config of this.options.mcp.configs()) if (isWorkspaceManaged(config) && !this.serverItem(config.name)) this.loop.enqueue(config.name);
    }
  }

  async stop() {
    for (const stop of this.stops.splice(0)) stop();
    await this.loop.stop();
  }

  /**
   * Reconciles these McpServers (every one in the workspace when none are named) now, and waits for
   * each to settle — Ready, or Error once its reconnect policy is spent — whether or not this
   * reconciler manages servers continuously. `tooldeck apply --target local`, `tooldeck reconcile
   * --once` and CLI commands that name a workspace server report what it returns.
   */
  async reconcileOnce(names?: readonly string[]): Promise<McpServerResourceView[]> {
    this.sync();
    const targets = names ?? this.servers.applied().map((item) => item.identity.name);
    await Promise.all(
      targets.map(async (name) => {
        for (;;) {
          const result = await this.reconcileServer(name);
          if (this.runtime.get(name)?.status.phase !== 'Connecting' || !result?.requeueAfterMs) return;
          await new Promise((resolve) => setTimeout(resolve, result.requeueAfterMs));
        }
      }),
    );
    return this.serverViews().filter((view) => targets.includes(view.name));
  }

  /** The McpServer resources of the workspace, each with the saved-server config it stands for (secrets sealed). */
  workspaceServers(): Array<{ name: string; file: string; config?: McpServerConfig; problem?: string }> {
    return this.servers.list().map((item) => {
      const name = item.identity.name;
      if (!item.value) return { name, file: item.source.file, problem: item.problem };
      try {
        return { name, file: item.source.file, config: sealServerConfig(mcpServerConfig(name, item.value.spec, this.placeholders)).config };
      } catch (error) {
        return { name, file: item.source.file, problem: (error as Error).message };
      }
    });
  }

  /** Resolves when no server is being reconciled or waiting for a reconnect attempt or a resync (of a server in Error). */
  whenIdle(): Promise<void> {
    return this.loop.whenIdle();
  }

  /** For McpCatalogSync: runtime policy, risk and classes from Tool resources; tool_filter exclusions. */
  // An McpServer resource's settings (tool_filter, default_tool_runtime) belong to the connection it
  // manages; a saved server that merely shares its name is the user's own and keeps all its tools.
  readonly toolConfig: ResourceToolLookup = (server, tool) => {
    const saved = this.options.mcp.configs().find((c) => c.name === server);
    const resource = !saved || isWorkspaceManaged(saved) ? this.serverItem(server)?.value : undefined;
    return toolSettings(resource, toolResourceFor(this.appliedTools(), server, tool.name), tool.name);
  };

  /** For the invocation pipeline: the global ToolPermissions with operation rules, in registry terms. */
  readonly permissions = (): ToolPermission[] => this.enforced;

  statuses(): ResourceStatuses {
    return { mcpServers: this.serverViews(), tools: this.toolViews(), toolPermissions: this.permissionViews() };
  }

  /** Statuses changed (connection, discovery, workspace edits). */
  onChange(listener: () => void): () => void {
    return this.statusChanges.on(listener);
  }

  /** Tool or ToolPermission resources (or a server's filter and default runtime) changed: registry entries must be re-derived. */
  onPolicyChange(listener: () => void): () => void {
    return this.policyChanges.on(listener);
  }

  private sync() {
    const documents = this.options.workspace.documents();
    const unreadable = (file: string) => this.options.workspace.isUnreadable(file);
    const changedServers = this.servers.update(documents, unreadable);
    this.tools.update(documents, unreadable);
    this.permissionSet.update(documents, unreadable);
    for (const key of changedServers) this.loop.enqueue(key.split('/').slice(2).join('/'));
    this.options.grpc?.applyWorkspace(this.grpcSources());
    this.refreshPolicy();
    this.emitStatus();
  }

  private refreshPolicy() {
    const tools = this.appliedTools();
    this.enforced = this.permissionSet.applied().flatMap((item) => {
      const permission = permissionPlan(item.value, tools).permission;
      return permission ? [{ ...permission, file: item.source.file }] : [];
    });
    const key = canonicalJson({
      tools,
      permissions: this.enforced,
      servers: this.servers.applied().map((item) => [item.value.metadata.name, item.value.spec.tool_filter, item.value.spec.default_tool_runtime]),
    });
    if (key === this.policyKey) return;
    this.policyKey = key;
    this.policyChanges.emit();
  }

  /** The first Tool of type grpc of a name (any namespace) declares that source; a saved source of the name wins. */
  private grpcSources(): WorkspaceGrpcSource[] {
    const declared = new Map<string, WorkspaceGrpcSource>();
    for (const tool of this.appliedTools()) {
      if (tool.spec.type !== 'grpc' || declared.has(tool.metadata.name) || this.options.grpc?.savedSource(tool.metadata.name)) continue;
      const plan = grpcToolSource(tool);
      if ('source' in plan) declared.set(tool.metadata.name, plan.source);
    }
    return [...declared.values()];
  }

  private appliedTools(): OrlojToolObject[] {
    return this.tools.applied().map((item) => item.value);
  }


  /**
   * For McpService's launch gate: a stdio server the workspace manages starts only while the open
   * folder declares it as saved and its line is confirmed for that folder — so a server saved for
   * another folder, or before the folder's line changed, is not started by a Connect click or a
   * collection run either.
   */
  async launchRefusal(config: McpServerConfig): Promise<string | undefined> {
    if (config.transport !== 'stdio' || !isWorkspaceManaged(config)) return undefined;
    const declared = this.serverItem(config.name)?.value;
    const line = declared && launchLineOf(config.name, declared.spec);
    if (!declared || !line) return `${config.name} is not a stdio McpServer of the open folder ${this.options.workspace.dir}; it is not started.`;
    if (await this.options.mcp.differsFromSaved(config.name, mcpServerConfig(config.name, declared.spec, this.placeholders))) {
      return `${config.name} as saved is not what the McpServer of ${this.options.workspace.dir} declares; it starts once the folder's server is reconciled.`;
    }
    return (await this.options.launchAllowList.isConfirmed(this.options.workspace.dir, line)) ? undefined : launchNotConfirmedMessage(line);
  }

  /** Server names are global in McpService: the first McpServer of a name (any namespace) owns it. */
  private serverItem(name: string): AppliedObject<McpServerObject> | undefined {
    return this.servers.list().find((item) => item.identity.name === name);
  }

  private async reconcileServer(name: string): Promise<{ requeueAfterMs?: number } | void> {
    const { mcp } = this.options;
    const item = this.serverItem(name);
    const saved = mcp.configs().find((config) => config.name === name);
    if (!item) {
      if (saved && isWorkspaceManaged(saved)) await this.exclusively(name, () => mcp.remove(name));
      this.runtime.delete(name);
      this.emitStatus();
      return;
    }
    // Never valid since the workspace was opened: leave whatever a previous run saved alone.
    if (!item.value) return;
    const { value: server, generation } = item;
    const state = this.state(name);
    const settle = (patch: Partial<McpServerStatus>, requeueAfterMs?: number) => {
      state.status = { ...state.status, ...patch, observedGeneration: generation };
      this.emitStatus();
      return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
    };
    if (saved && !isWorkspaceManaged(saved)) {
      return settle({ phase: 'Error', lastError: `A server named "${name}" is already saved and not managed by the workspace; rename the McpServer or remove that server.`, nextAttemptAt: undefined }, this.resyncMs);
    }
    let config;
    try {
      config = mcpServerConfig(name, server.spec, this.placeholders);
    } catch (error) {
      return settle({ phase: 'Error', lastError: (error as Error).message, nextAttemptAt: undefined }, this.resyncMs);
    }
    // The one gate every workspace launch passes (watcher, open folder, start-up, CLI): nothing is
    // saved or started until the user confirmed this exact line for this folder.
    const line = config.transport === 'stdio' ? launchLineOf(name, server.spec) : undefined;
    if (line !== undefined && !(await this.launchConfirmed(name, line))) {
      state.failures = 0;
      if (saved && mcp.connection(name)) await this.exclusively(name, () => mcp.disconnect(name));
      // Retried when a line is confirmed in this process, and at the resync for one confirmed elsewhere (the CLI).
      return settle({ phase: 'Error', lastError: launchNotConfirmedMessage(line), unconfirmedLaunch: line, attempts: 0, nextAttemptAt: undefined }, this.resyncMs);
    }
    if (state.status.unconfirmedLaunch) state.status = { ...state.status, unconfirmedLaunch: undefined };
    // Read again after the awaits above: the CLI confirming this line from another process saves the
    // server there too, and the console may have reloaded servers.json meanwhile (a stale answer
    // would make the save refuse a name that now exists).
    const savedNow = () => mcp.configs().find((other) => other.name === name);
    if (!savedNow() || (await mcp.differsFromSaved(name, config))) {
      state.failures = 0;
      this.setStatus(name, { phase: 'Connecting', nextAttemptAt: undefined });
      try {
        await this.exclusively(name, () => mcp.save({ config, ...(savedNow() ? { previousName: name } : {}) }));
      } catch (error) {
        return settle({ phase: 'Error', lastError: `Saving the server failed: ${(error as Error).message}` }, this.resyncMs);
      }
    }
    const connected = mcp.connection(name)?.state;
    if (connected?.status === 'ready' && !connected.listing) {
      state.failures = 0;
      this.captureTools(name);
      return settle({ phase: 'Ready', lastError: undefined, attempts: 0, nextAttemptAt: undefined });
    }
    this.setStatus(name, { phase: 'Connecting', nextAttemptAt: undefined });
    try {
      await this.exclusively(name, () => mcp.whenConnected(name));
      state.failures = 0;
      this.captureTools(name);
      return settle({ phase: 'Ready', lastError: undefined, attempts: 0, nextAttemptAt: undefined });
    } catch (error) {
      state.failures++;
      const { max_attempts, backoff } = server.spec.reconnect;
      const failures = state.failures;
      const lastError = (error as Error).message;
      if (failures < max_attempts) {
        const delay = parseDuration(backoff);
        return settle({ phase: 'Connecting', lastError, attempts: failures, nextAttemptAt: this.at(delay) }, delay);
      }
      // The round is spent: Error until the next one (Orloj: "retries on the next reconcile cycle").
      state.failures = 0;
      return settle({ phase: 'Error', lastError, attempts: failures, nextAttemptAt: this.at(this.resyncMs) }, this.resyncMs);
    }
  }

  private async launchConfirmed(server: string, line: string): Promise<boolean> {
    const { launchAllowList, confirmLaunch, workspace } = this.options;
    const folder = workspace.dir;
    if (await launchAllowList.isConfirmed(folder, line)) return true;
    if (!confirmLaunch || !(await confirmLaunch({ server, folder, line }))) return false;
    await launchAllowList.confirm(folder, [line]);
    return true;
  }

  private get resyncMs(): number {
    return this.options.resyncIntervalMs ?? DEFAULT_RESYNC_MS;
  }

  private at(delayMs: number): string {
    return new Date(this.now().getTime() + delayMs).toISOString();
  }

  private async exclusively<T>(name: string, work: () => Promise<T>): Promise<T> {
    this.busy.add(name);
    try {
      return await work();
    } finally {
      this.busy.delete(name);
      const state = this.runtime.get(name);
      if (state) state.lastSeen = this.options.mcp.connection(name)?.state.status;
    }
  }

  private state(name: string): ServerRuntime {
    let state = this.runtime.get(name);
    if (!state) {
      state = { status: { phase: 'Pending', discoveredTools: [], generatedTools: [], observedGeneration: 0, attempts: 0 }, failures: 0, tools: [] };
      this.runtime.set(name, state);
    }
    return state;
  }

  private setStatus(name: string, patch: Partial<McpServerStatus>) {
    const state = this.state(name);
    state.status = { ...state.status, ...patch };
    this.emitStatus();
  }

  /** A managed server that was ready and dropped starts a new round of its reconnect policy. */
  private observeConnections() {
    for (const item of this.servers.applied()) {
      const name = item.identity.name;
      const state = this.runtime.get(name);
      if (!state || this.busy.has(name)) continue;
      const connection = this.options.mcp.connection(name);
      const status = connection?.state.status;
      const previous = state.lastSeen;
      state.lastSeen = status;
      if (previous === 'ready' && status !== 'ready') {
        state.status = { ...state.status, phase: 'Connecting', lastError: connection?.state.message ?? 'connection closed' };
        this.loop.enqueue(name);
      }
    }
    // Tool resources of servers saved outside the workspace follow those connections too.
    this.emitStatus();
  }

  private toolsChanged(server: string) {
    if (!this.serverItem(server)?.value || this.options.mcp.connection(server)?.state.status !== 'ready') return;
    this.captureTools(server);
    this.emitStatus();
  }

  /** Discovered tools, and the generated Tools `tool_filter.include` lets through. */
  private captureTools(name: string) {
    const state = this.state(name);
    const tools = this.options.mcp.connection(name)?.tools ?? [];
    const server = this.serverItem(name)?.value;
    state.tools = tools;
    state.status = {
      ...state.status,
      discoveredTools: tools.map((tool) => tool.name),
      generatedTools: tools.filter((tool) => isIncluded(server, tool.name)).map((tool) => generatedToolName(name, tool.name)),
      lastSyncedAt: this.now().toISOString(),
    };
  }

  private emitStatus() {
    this.statusChanges.emit();
  }

  private serverViews() {
    return this.servers.list().map((item) => {
      const name = item.identity.name;
      const status = this.runtime.get(name)?.status ?? { phase: 'Pending' as const, discoveredTools: [], generatedTools: [], observedGeneration: 0, attempts: 0 };
      const owner = this.serverItem(name);
      const problem = owner !== item ? `Another McpServer named "${name}" (${owner?.source.file}) owns that server name` : item.problem;
      return {
        name,
        namespace: item.identity.namespace ?? 'default',
        generation: item.generation,
        source: item.source,
        ...(item.value ? { spec: item.value.spec } : {}),
        status: problem ? { ...status, phase: item.value && owner === item ? status.phase : ('Error' as const), lastError: problem } : status,
      };
    });
  }

  private toolViews(): ToolResourceView[] {
    const userTools = this.tools.list().map((item): ToolResourceView => {
      const spec = item.value?.spec;
      const registryName = spec?.type === 'mcp' ? `mcp:${spec.mcp_server_ref}.${spec.mcp_tool_name}` : spec?.type === 'grpc' ? `grpc:${item.identity.name}.*` : undefined;
      return {
        name: item.identity.name,
        namespace: item.identity.namespace ?? 'default',
        generated: false,
        source: item.source,
        ...(registryName ? { registryName } : {}),
        ...(spec ? { spec } : {}),
        status: item.problem ? { phase: 'Error', lastError: item.problem, observedGeneration: item.generation } : this.userToolStatus(item.value!, item.generation),
      };
    });
    const configured = new Set(userTools.flatMap((tool) => (tool.registryName && !tool.status.lastError ? [tool.registryName] : [])));
    const generated = this.servers.applied().flatMap((item) => {
      const name = item.identity.name;
      const state = this.runtime.get(name);
      if (!state || this.serverItem(name) !== item) return [];
      return state.tools
        .filter((tool) => isIncluded(item.value, tool.name) && !configured.has(`mcp:${name}.${tool.name}`))
        .map((tool): ToolResourceView => ({
          name: generatedToolName(name, tool.name),
          namespace: item.identity.namespace ?? 'default',
          generated: true,
          registryName: `mcp:${name}.${tool.name}`,
          spec: generatedSpec(item.value, tool),
          status: generatedStatus(state.status, item.generation),
        }));
    });
    return [...userTools, ...generated];
  }

  private userToolStatus(tool: OrlojToolObject, generation: number): ObjectStatus {
    const { spec } = tool;
    if (spec.type === 'grpc' && this.options.grpc) return this.grpcToolStatus(tool, generation);
    if (spec.type !== 'mcp') return { phase: 'Pending', message: `type ${spec.type} tools are stored here; the local target runs MCP and gRPC tools only`, observedGeneration: generation };
    const server = spec.mcp_server_ref!;
    const managed = this.serverItem(server)?.value;
    if (managed && !isIncluded(managed, spec.mcp_tool_name!)) {
      return { phase: 'Pending', message: `excluded by tool_filter.include of McpServer ${server}`, observedGeneration: generation };
    }
    const connection = this.options.mcp.connection(server);
    if (!managed && !this.options.mcp.configs().some((config) => config.name === server)) {
      return { phase: 'Error', lastError: `No McpServer resource or saved server named "${server}"`, observedGeneration: generation };
    }
    if (connection?.state.status !== 'ready') return { phase: 'Pending', message: `server ${server} is not connected`, observedGeneration: generation };
    if (connection.state.listing) return { phase: 'Pending', message: `server ${server} is listing its tools`, observedGeneration: generation };
    if (!connection.tools.some((listed) => listed.name === spec.mcp_tool_name)) {
      return { phase: 'Error', lastError: `server ${server} lists no tool named "${spec.mcp_tool_name}"`, observedGeneration: generation };
    }
    return { phase: 'Ready', message: `configures mcp:${server}.${spec.mcp_tool_name}`, observedGeneration: generation };
  }

  /** A grpc Tool's status is its source's: listing, the tools it lists (with versions), or why it cannot. */
  private grpcToolStatus(tool: OrlojToolObject, generation: number): ObjectStatus {
    const grpc = this.options.grpc!;
    const name = tool.metadata.name;
    const plan = grpcToolSource(tool);
    if ('problem' in plan) return { phase: 'Error', lastError: plan.problem, observedGeneration: generation };
    if (grpc.savedSource(name)) return { phase: 'Error', lastError: `A gRPC source named "${name}" is already saved and not managed by the workspace; rename the Tool or remove that source.`, observedGeneration: generation };
    const owner = this.appliedTools().find((other) => other.spec.type === 'grpc' && other.metadata.name === name);
    if (owner !== tool) return { phase: 'Error', lastError: `Another grpc Tool named "${name}" declares that source`, observedGeneration: generation };
    if (!grpc.has(name)) return { phase: 'Pending', message: `not listed yet (${plan.source.address})`, observedGeneration: generation };
    const view = grpc.get(name);
    if (view.state === 'error') return { phase: 'Error', lastError: `${view.error?.step ? `${view.error.step}: ` : ''}${view.error?.message ?? 'listing failed'}`, observedGeneration: generation };
    if (view.state === 'pending') return { phase: 'Pending', message: `listing the tools at ${view.address}`, observedGeneration: generation };
    const usable = view.tools.filter((item) => !item.unusable);
    const unusable = view.tools.length - usable.length;
    const listed = usable.map((item) => `${item.registryName} (v${item.callVersion})`).join(', ');
    return { phase: 'Ready', message: `${usable.length} tools from ${view.address}${listed ? `: ${listed}` : ''}${unusable ? `; ${unusable} unusable` : ''}`, observedGeneration: generation };
  }

  private permissionViews(): ToolPermissionResourceView[] {
    const tools = this.appliedTools();
    return this.permissionSet.list().map((item) => {
      const plan = item.value ? permissionPlan(item.value, tools) : undefined;
      const status: ObjectStatus = item.problem
        ? { phase: 'Error', lastError: item.problem, observedGeneration: item.generation }
        : { phase: plan?.permission ? 'Ready' : 'Pending', ...(plan?.message ? { message: plan.message } : {}), observedGeneration: item.generation };
      return {
        name: item.identity.name,
        namespace: item.identity.namespace ?? 'default',
        source: item.source,
        ...(item.value ? { spec: item.value.spec } : {}),
        ...(plan?.registryToolRef ? { registryToolRef: plan.registryToolRef } : {}),
        enforced: !!plan?.permission,
        status,
      };
    });
  }
}

/** The Tool Orloj generates for an MCP tool: its description and schema, the server's default runtime, Orloj's defaults. */
function generatedSpec(server: McpServerObject, tool: McpTool) {
  const spec = normalizeOrlojToolSpec(
    {
      type: 'mcp',
      mcp_server_ref: server.metadata.name,
      mcp_tool_name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      input_schema: tool.inputSchema,
      ...(server.spec.default_tool_runtime ? { runtime: server.spec.default_tool_runtime } : {}),
    },
    new ResourceIssues(),
  );
  // Without a Tool resource the registry takes the classes from the server's annotations; show those.
  return { ...spec, operation_classes: resolveOperationClasses(undefined, tool.annotations, spec.risk_level) };
}

function generatedStatus(server: McpServerStatus, generation: number): ObjectStatus {
  if (server.phase === 'Ready') return { phase: 'Ready', observedGeneration: generation };
  if (server.phase === 'Error') return { phase: 'Error', lastError: `server not connected: ${server.lastError ?? 'unknown error'}`, observedGeneration: generation };
  return { phase: 'Pending', message: 'server not connected', observedGeneration: generation };
}
