import {
  AGENT_CONFIG_KEY,
  agentConfigMapName,
  agentDeploymentName,
  LANGOP_API_VERSION,
  LANGOP_FINALIZER,
  LanguageToolSpec,
  TOOLDECK_FIELD_MANAGER,
  type AgentToolEntry,
  type LanguageToolStatus,
} from '../../shared/kube';
import type { DefinitionStore } from '../lock/DefinitionStore';
import type { Logger } from '../platform/Logger';
import { injectToolEndpoints } from '../reconcile/agentConfig';
import type { BackoffOptions } from '../reconcile/ExponentialBackoff';
import { ReconcileLoop, type KeyFailure } from '../reconcile/ReconcileLoop';
import { computeToolStatus, needsDiscovery, type DiscoveryOutcome, type WorkloadState } from '../reconcile/toolStatus';
import { isConflict, isKubeApiError, isNotFound, KubeApiError } from './KubeApiError';
import type { KubeConnection } from './KubeConnection';
import { CONTENT_TYPE } from './KubeRest';
import { discoverTools } from './McpDiscovery';
import { conflictingManagers, extractOwned } from './managedFields';
import { findCondition, setCondition } from '../reconcile/conditions';
import {
  GATEWAY_AGENT_LABEL,
  GATEWAY_CREDENTIAL_ENV,
  GATEWAY_CREDENTIAL_HASH_ANNOTATION,
  GATEWAY_CREDENTIAL_KEY,
  GATEWAY_ENV_FIELD_MANAGER,
  gatewayAgentName,
  gatewayCredentialSecretName,
  gatewayToolEntry,
  issueGatewayCredential,
  optedIn,
  type GatewayTarget,
} from './gatewayAgents';
import { observeDeployment } from './observeDeployment';
import { ResilientInformer, type InformerEvent } from './ResilientInformer';
import { semanticEqual } from './semanticEqual';
import { APPROVALS_FIELD_MANAGER, approvalApplyConfiguration, approvedHashOf, definitionHashes, definitionsHeld, recordClusterDefinitions, withDefinitionStatus } from './toolDefinitions';
import {
  AGENT_LABEL,
  belongsToAgent,
  desiredAgentSidecars,
  desiredDeployment,
  desiredService,
  isOwnedBy,
  madeForTool,
  MANAGED_BY_LABEL,
  MANAGED_BY_SELECTOR,
  MANAGED_TOOLS_ANNOTATION,
  ownablePart,
  ownedSidecarNames,
  ownerReference,
  ReconcileRefusal,
  secretReferences,
  SERVICE_PORT_NAME,
  SIDECAR_FIELD_MANAGER,
  sidecarContainer,
  sidecarContainerName,
  TOOL_SECRETS_LABEL,
  toolEndpoint,
  type ApplyConfiguration,
  type ConfigMapObject,
  type Container,
  type DeploymentObject,
  type KubeObject,
  type LanguageAgentObject,
  type LanguageToolObject,
  type ObjectMeta,
  type ServiceObject,
} from './toolResources';

export interface LanguageToolReconcilerOptions {
  connection: KubeConnection;
  logger: Logger;
  clientInfo: { name: string; version: string };
  workers?: number;
  backoff?: BackoffOptions;
  /** Restart delays of a failed watch. */
  informerBackoff?: BackoffOptions;
  discoveryTimeoutMs?: number;
  now?: () => Date;
  /** Told after every reconcile pass: the operator turns these into metrics and Events. */
  onOutcome?: (outcome: ReconcileOutcome) => void;
  /** A tool's first discovered definitions are approved (annotation written); false holds them for approval too. Default true. */
  trustFirstDiscovery?: boolean;
  /** The local revision store (`kube reconcile`): every tool's discovered definitions, as its informer sees them, are recorded there. */
  definitions?: DefinitionStore;
  /**
   * Which Secrets a LanguageTool may read through `secretKeyRef`: only those labelled
   * `tooldeck.dev/allow-tool-secrets: "true"` (the default), or any (a cluster whose LanguageTool
   * authors may read every Secret of their namespaces anyway).
   */
  toolSecrets?: 'labelled' | 'any';
  /**
   * Agents that opt in (label `tooldeck.dev/gateway: enabled` on the agent or its namespace) reach
   * their tools through this gateway: each gets a credential Secret, and its config.yaml names the
   * gateway for every tool. Unset: no agent is sent to a gateway (and namespaces are not watched).
   */
  gateway?: GatewayTarget;
}

export interface ReconcileOutcome {
  kind: 'LanguageTool' | 'LanguageAgent';
  namespace: string;
  name: string;
  /** The object as the cache held it when the pass started; absent once it is gone. */
  object?: KubeObject;
  durationMs: number;
  /** What the pass changed in the cluster, in words ("created Deployment ns/x"); empty when it found nothing to do. */
  changes: string[];
  /** Why the pass failed (it is retried with backoff). */
  error?: string;
  /** For a refusal (a name clash, fields another manager owns, a Secret not labelled for tools): its reason, e.g. NameConflict. */
  reason?: ReconcileRefusal['reason'];
}

/** Collects what a reconcile pass changed, for its outcome. */
type Note = (change: string) => void;

const CONFLICT_RETRIES = 5;
/** The LanguageAgent condition that says whether its tools could be put into its Deployment and ConfigMap. */
export const TOOLS_ATTACHED = 'ToolsAttached';
const STATUS_KEYS = ['phase', 'endpoint', 'toolSchemas', 'availableTools', 'definitions', 'approvedToolSchemas', 'conditions', 'observedGeneration'] as const;

/**
 * The Kubernetes target: reconciles LanguageTools into a Deployment + Service (or agent sidecars),
 * discovers their tools over MCP through the apiserver proxy, writes status, and keeps each
 * referencing agent's config.yaml pointing at the tool. Informer events only enqueue keys
 * (`tool:<ns>/<name>`, `agent:<ns>/<name>`); every write is preceded by a comparison with the
 * cached object, so a converged cluster sees no writes at all.
 */
export class LanguageToolReconciler {
  readonly loop: ReconcileLoop;
  private readonly tools: ResilientInformer<LanguageToolObject>;
  private readonly agents: ResilientInformer<LanguageAgentObject>;
  /** Deployments Tooldeck made for tools in service mode (selected on its managed-by label). */
  private readonly deployments: ResilientInformer<DeploymentObject>;
  /** Agent Deployments that sidecars may go into (selected on the agent label). */
  private readonly agentDeployments: ResilientInformer<DeploymentObject>;
  private readonly services: ResilientInformer<ServiceObject>;
  private readonly configMaps: ResilientInformer<ConfigMapObject>;
  /** Namespaces, for their gateway opt-in label (only with options.gateway). */
  private readonly namespaces?: ResilientInformer<KubeObject>;
  private readonly informers: Array<Pick<ResilientInformer<unknown>, 'start' | 'stop' | 'synced'>>;
  private started = false;
  private syncedCount = 0;

  constructor(private readonly options: LanguageToolReconcilerOptions) {
    const { kc, rest, namespace } = options.connection;
    const scoped = (base: string, plural: string) => `${base}${namespace ? `/namespaces/${namespace}` : ''}/${plural}`;
    const informer = <T extends KubeObject>(path: string, onEvent: (event: InformerEvent, obj: T) => void, labelSelector?: string) =>
      new ResilientInformer<T>({
        kc,
        rest,
        path,
        labelSelector,
        logger: options.logger,
        backoff: options.informerBackoff,
        onEvent,
      });
    this.tools = informer(scoped(`/apis/${LANGOP_API_VERSION}`, 'languagetools'), (event, tool: LanguageToolObject) => {
      if (options.definitions && event !== 'delete') recordClusterDefinitions(options.definitions, options.connection.context, tool, { logger: options.logger });
      this.onTool(tool);
    });
    this.agents = informer(scoped(`/apis/${LANGOP_API_VERSION}`, 'languageagents'), (_e, agent: LanguageAgentObject) => this.onAgent(agent));
    // Only what Tooldeck made or was let into: the caches never hold, and so nothing decides on, anyone else's objects.
    this.deployments = informer(scoped('/apis/apps/v1', 'deployments'), (_e, dep: DeploymentObject) => this.onWorkload(dep), MANAGED_BY_SELECTOR);
    this.agentDeployments = informer(scoped('/apis/apps/v1', 'deployments'), (_e, dep: DeploymentObject) => this.onWorkload(dep), AGENT_LABEL);
    this.services = informer(scoped('/api/v1', 'services'), (_e, svc: ServiceObject) => this.onWorkload(svc), MANAGED_BY_SELECTOR);
    this.configMaps = informer(scoped('/api/v1', 'configmaps'), (_e, cm: ConfigMapObject) => this.onConfigMap(cm), AGENT_LABEL);
    this.informers = [this.tools, this.agents, this.deployments, this.agentDeployments, this.services, this.configMaps];
    if (options.gateway) {
      // Cluster-scoped: a namespace's label opts in all its agents (read only: get/list/watch namespaces).
      this.namespaces = informer('/api/v1/namespaces', (_e, nsObject: KubeObject) => {
        if (!namespace || nsObject.metadata.name === namespace) for (const agent of this.agents.list(nsObject.metadata.name)) this.loop.enqueue(agentKey(nsObject.metadata.name, agent.metadata.name));
      });
      this.informers.push(this.namespaces);
    }
    for (const informer of this.informers) void informer.synced.then(() => this.syncedCount++);
    this.loop = new ReconcileLoop({ reconcile: (key) => this.reconcile(key), workers: options.workers, backoff: options.backoff, logger: options.logger });
  }

  get stats() {
    return this.options.connection.rest.stats;
  }

  /** The caller's connection: the reconciler uses it and leaves closing it to the caller. */
  get connection(): KubeConnection {
    return this.options.connection;
  }

  /** Starts the informers and, once every cache is filled, the workers (so nothing is decided on a partial view). */
  async start() {
    await this.startInformers();
    this.startWorkers();
  }

  /**
   * Fills the caches and keeps them current; events queue keys but nothing is reconciled until
   * `startWorkers` (an operator's followers stay here, ready to take over with warm caches).
   */
  async startInformers() {
    if (this.started) return;
    this.started = true;
    await Promise.all(this.informers.map((i) => i.start()));
  }

  startWorkers() {
    this.loop.start();
  }

  /** Takes no new keys and resolves once the passes in flight have finished. */
  async stopWorkers() {
    await this.loop.stop();
  }

  async stop() {
    await this.stopWorkers();
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Resolves once every informer has listed everything once. */
  async whenSynced(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.synced));
  }

  /** True once every informer has listed everything once. */
  get synced(): boolean {
    return this.syncedCount === this.informers.length;
  }

  /**
   * Resolves once nothing is queued or retrying and no reconcile ran for `quietMs` (the watch
   * events of the last writes have come back and changed nothing). Unrelated churn in the cluster
   * enqueues nothing and so does not hold it up.
   */
  async whenSteady(quietMs = 1_000): Promise<void> {
    await Promise.all(this.informers.map((i) => i.synced));
    for (;;) {
      await this.loop.whenIdle();
      const runs = this.loop.runs;
      await new Promise((resolve) => setTimeout(resolve, quietMs));
      if (this.loop.runs === runs && this.loop.queue.isIdle()) return;
    }
  }

  failures(): Map<string, KeyFailure> {
    return this.loop.failures();
  }

  // ---- event mapping -------------------------------------------------------------------------

  private onTool(tool: LanguageToolObject) {
    const ns = tool.metadata.namespace ?? '';
    this.loop.enqueue(toolKey(ns, tool.metadata.name));
    for (const agent of this.agentsReferencing(ns, tool.metadata.name, false)) this.loop.enqueue(agentKey(ns, agent.metadata.name));
  }

  private onAgent(agent: LanguageAgentObject) {
    const ns = agent.metadata.namespace ?? '';
    this.loop.enqueue(agentKey(ns, agent.metadata.name));
    for (const ref of agent.spec?.tools ?? []) this.loop.enqueue(toolKey(ns, ref.name));
    // A sidecar tool's readiness depends on every agent using it, including one that just stopped.
    for (const tool of this.tools.list(ns)) {
      if ((tool.spec as { deploymentMode?: string } | undefined)?.deploymentMode === 'sidecar') this.loop.enqueue(toolKey(ns, tool.metadata.name));
    }
  }

  /** Deployments and Services: their owning tool; for an agent's Deployment, the agent and its tools. */
  private onWorkload(obj: KubeObject) {
    const ns = obj.metadata.namespace ?? '';
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (ref.kind === 'LanguageTool' && ref.apiVersion === LANGOP_API_VERSION) this.loop.enqueue(toolKey(ns, ref.name));
    }
    const agent = this.agents.get(obj.metadata.name, ns);
    if (agent) this.onAgent(agent);
    this.enqueueDeletingTools(ns);
  }

  private onConfigMap(cm: ConfigMapObject) {
    const ns = cm.metadata.namespace ?? '';
    const name = cm.metadata.name;
    if (!name.endsWith('-config')) return;
    const agent = this.agents.get(name.slice(0, -'-config'.length), ns);
    if (agent) this.onAgent(agent);
    this.enqueueDeletingTools(ns);
  }

  /** A deleting tool waits for agent configs to drop it; any change there may release it. */
  private enqueueDeletingTools(ns: string) {
    for (const tool of this.tools.list(ns)) {
      if (tool.metadata.deletionTimestamp) this.loop.enqueue(toolKey(ns, tool.metadata.name));
    }
  }

  private agentsReferencing(ns: string, tool: string, enabledOnly: boolean): LanguageAgentObject[] {
    return this.agents.list(ns).filter((a) => (a.spec?.tools ?? []).some((ref) => ref.name === tool && (!enabledOnly || ref.enabled !== false)));
  }

  // ---- reconcile -----------------------------------------------------------------------------

  private async reconcile(key: string): Promise<void> {
    const [kind, rest] = splitOnce(key, ':');
    const [ns, name] = splitOnce(rest, '/');
    const isTool = kind === 'tool';
    const object = isTool ? this.tools.get(name, ns) : this.agents.get(name, ns);
    const changes: string[] = [];
    const note: Note = (change) => changes.push(change);
    const started = performance.now();
    const report = (error?: unknown) =>
      this.options.onOutcome?.({
        kind: isTool ? 'LanguageTool' : 'LanguageAgent',
        namespace: ns,
        name,
        ...(object ? { object } : {}),
        durationMs: performance.now() - started,
        changes,
        ...(error !== undefined ? { error: (error as Error)?.message ?? String(error) } : {}),
        ...(error instanceof ReconcileRefusal ? { reason: error.reason } : {}),
      });
    try {
      if (isTool) await this.reconcileTool(ns, name, note);
      else await this.reconcileAgent(ns, name, note);
    } catch (error) {
      report(error);
      throw error;
    }
    report();
  }

  private async reconcileTool(ns: string, name: string, note: Note): Promise<void> {
    let tool = this.tools.get(name, ns);
    if (!tool) return;
    if (tool.metadata.deletionTimestamp) return this.finalizeTool(tool, note);
    if (!tool.metadata.finalizers?.includes(LANGOP_FINALIZER)) {
      tool = await this.updateFinalizers(tool, (f) => (f.includes(LANGOP_FINALIZER) ? f : [...f, LANGOP_FINALIZER]), note);
      if (!tool) return;
    }
    const generation = tool.metadata.generation ?? 1;
    const parsed = LanguageToolSpec.safeParse(tool.spec ?? {});
    if (!parsed.success) {
      const message = parsed.error.issues.map((i) => `${i.path.join('.') || 'spec'}: ${i.message}`).join('; ');
      await this.writeToolStatus(tool, (prev) => computeToolStatus(prev, { generation, workload: { state: 'failed', reason: 'InvalidSpec', message } }, this.options.now), note);
      return;
    }
    const spec = parsed.data;
    let endpoint: string | undefined = toolEndpoint(name, ns, spec);

    let workload: WorkloadState;
    let discoveryUrl: () => Promise<string | undefined> = async () => undefined;
    let refusal: ReconcileRefusal | undefined;
    try {
      await this.checkSecretReferences(ns, spec);
      if (spec.deploymentMode === 'service') {
        try {
          const depPath = `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
          const svcPath = `/api/v1/namespaces/${ns}/services/${name}`;
          const liveDep = await this.liveMadeForTool(this.deployments, 'Deployment', depPath, tool);
          const liveSvc = await this.liveMadeForTool(this.services, 'Service', svcPath, tool);
          const dep = await this.applyIfChanged(desiredDeployment(tool, spec), liveDep, TOOLDECK_FIELD_MANAGER, note);
          await this.applyIfChanged(desiredService(tool, spec), liveSvc, TOOLDECK_FIELD_MANAGER, note);
          workload = observeDeployment(dep, `${ns}/${name}`);
        } catch (error) {
          if (error instanceof ReconcileRefusal || !isPermanentApiError(error)) throw error;
          workload = { state: 'applyFailed', message: (error as Error).message };
        }
        discoveryUrl = async () => `${this.options.connection.server}/api/v1/namespaces/${ns}/services/${name}:${SERVICE_PORT_NAME}/proxy/mcp`;
      } else {
        await this.deleteServiceModeResources(tool, note);
        workload = this.observeSidecars(tool, spec.image);
        discoveryUrl = () => this.sidecarDiscoveryUrl(tool!, spec.port);
      }
    } catch (error) {
      if (!(error instanceof ReconcileRefusal)) throw error;
      // Nothing was written for the tool: no endpoint goes to agents (under a clash it would name someone else's Service).
      refusal = error;
      endpoint = undefined;
      workload = { state: 'failed', reason: error.reason, message: error.message };
    }

    let discovery: DiscoveryOutcome | undefined;
    if (needsDiscovery(tool.status, generation, workload)) {
      const url = await discoveryUrl();
      discovery = url
        ? await discoverTools(url, { fetch: this.options.connection.rest.fetch, clientInfo: this.options.clientInfo, timeoutMs: this.options.discoveryTimeoutMs })
        : { ok: false, permanent: false, message: 'No running agent pod to reach the sidecar through' };
    }
    // Definitions are pinned as tooldeck.lock pins a local server's: changed ones wait for approval.
    const approved = (await this.approveFirstDiscovery(tool, discovery)) ?? approvedHashOf(tool.metadata);
    await this.writeToolStatus(tool, (prev) => withDefinitionStatus(computeToolStatus(prev, { generation, endpoint, workload, discovery }, this.options.now), prev, approved, generation, this.options.now), note);
    if (refusal) throw refusal;
    if (discovery && !discovery.ok) throw new Error(`tools/list for ${ns}/${name} failed: ${discovery.message}`);
    if (workload.state === 'applyFailed') throw new Error(`applying ${ns}/${name} failed: ${workload.message}`);
  }

  /**
   * The tool's Deployment or Service as it is now, when Tooldeck made it for this tool; undefined
   * when there is none. Anything else of that name is someone else's: a ReconcileRefusal, never
   * an apply. The informer holds only Tooldeck's objects, so a miss is read from the server.
   */
  private async liveMadeForTool<T extends KubeObject>(informer: ResilientInformer<T>, kind: string, path: string, tool: LanguageToolObject): Promise<T | undefined> {
    const { name, namespace } = tool.metadata;
    const live = informer.get(name, namespace) ?? (await this.getOrUndefined<T>(path));
    if (!live || madeForTool(live.metadata, tool.metadata)) return live;
    throw new ReconcileRefusal(
      'NameConflict',
      `${kind} ${namespace}/${name} already exists and Tooldeck did not make it for this LanguageTool; it is left untouched. Rename the LanguageTool, or remove that ${kind} if it is no longer used`,
    );
  }

  /** Refuses a spec that reads a Secret through `secretKeyRef` unless the Secret is labelled for tools (or the policy allows any). */
  private async checkSecretReferences(ns: string, spec: LanguageToolSpec): Promise<void> {
    if (this.options.toolSecrets === 'any') return;
    const refused: string[] = [];
    for (const name of new Set(secretReferences(spec))) {
      if (name === undefined) {
        refused.push('a secretKeyRef without a name');
        continue;
      }
      // Metadata only: the operator learns the Secret's labels, never its values.
      const secret = await this.options.connection.rest
        .request<KubeObject>('GET', `/api/v1/namespaces/${ns}/secrets/${encodeURIComponent(name)}`, { accept: CONTENT_TYPE.partialObjectMetadata })
        .catch((error: unknown) => {
          if (isNotFound(error) || (isKubeApiError(error) && error.status === 403)) return undefined;
          throw error;
        });
      if (secret?.metadata.labels?.[TOOL_SECRETS_LABEL] !== 'true') refused.push(`Secret ${ns}/${name}`);
    }
    if (refused.length === 0) return;
    throw new ReconcileRefusal(
      'SecretNotAllowed',
      `secretKeyRef is allowed only for Secrets labelled ${TOOL_SECRETS_LABEL}: "true"; not labelled (or not readable): ${refused.join(', ')}. Label the Secret if this tool may read it`,
    );
  }

  private async getOrUndefined<T>(path: string): Promise<T | undefined> {
    return this.options.connection.rest.request<T>('GET', path).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  }

  /**
   * Trust on first discovery: a tool that never had definitions gets the approval annotation for
   * what it lists now. Returns the approved hash, or undefined when nothing was approved here.
   */
  private async approveFirstDiscovery(tool: LanguageToolObject, discovery: DiscoveryOutcome | undefined): Promise<string | undefined> {
    if (!discovery?.ok || this.options.trustFirstDiscovery === false || approvedHashOf(tool.metadata) || tool.status?.definitions) return undefined;
    const hash = definitionHashes(discovery.tools).hash;
    await this.options.connection.rest.request('PATCH', toolPath(tool.metadata), {
      body: approvalApplyConfiguration(tool.metadata, LANGOP_API_VERSION, hash),
      contentType: CONTENT_TYPE.apply,
      // Not forced: the annotation is absent (checked above), so no other manager owns it.
      query: { fieldManager: APPROVALS_FIELD_MANAGER },
    });
    return hash;
  }

  /** Removes the tool from every agent first; the finalizer goes only when no config or pod uses it. */
  private async finalizeTool(tool: LanguageToolObject, note: Note) {
    if (!tool.metadata.finalizers?.includes(LANGOP_FINALIZER)) return;
    const ns = tool.metadata.namespace ?? '';
    const name = tool.metadata.name;
    const using = this.agents.list(ns).filter((agent) => {
      const cm = this.configMaps.get(agentConfigMapName(agent.metadata.name), ns);
      const inConfig = managedTools(cm).includes(name);
      const dep = this.agentDeployments.get(agentDeploymentName(agent.metadata.name), ns);
      const asSidecar = !!dep && ownedSidecarNames(dep).includes(sidecarContainerName(name));
      return inConfig || asSidecar;
    });
    for (const agent of using) this.loop.enqueue(agentKey(ns, agent.metadata.name));
    if (using.length) {
      this.options.logger.debug('tool deletion waits for agents', { tool: `${ns}/${name}`, agents: using.map((a) => a.metadata.name) });
      return;
    }
    await this.updateFinalizers(tool, (f) => f.filter((x) => x !== LANGOP_FINALIZER), note);
  }

  private observeSidecars(tool: LanguageToolObject, image: string): WorkloadState {
    const ns = tool.metadata.namespace ?? '';
    const agents = this.agentsReferencing(ns, tool.metadata.name, true);
    if (agents.length === 0) return { state: 'waiting', reason: 'NoAgents', message: 'No LanguageAgent uses this sidecar tool' };
    let rolloutComplete = true;
    const messages: string[] = [];
    for (const agent of agents) {
      const depName = agentDeploymentName(agent.metadata.name);
      const dep = this.agentDeployments.get(depName, ns);
      if (!dep) {
        const refused = findCondition(agent.status?.conditions, TOOLS_ATTACHED);
        if (refused?.status === 'False') return { state: 'failed', reason: refused.reason, message: `Agent ${agent.metadata.name}: ${refused.message}` };
        return { state: 'waiting', reason: 'AgentDeploymentMissing', message: `Deployment ${ns}/${depName} of agent ${agent.metadata.name} not found` };
      }
      const sidecar = (dep.spec?.template?.spec?.initContainers ?? []).find((c) => c.name === sidecarContainerName(tool.metadata.name));
      if (!sidecar || sidecar.image !== image) return { state: 'waiting', reason: 'SidecarPending', message: `The sidecar is not yet in Deployment ${ns}/${depName}` };
      const state = observeDeployment(dep, `${ns}/${depName}`);
      if (state.state !== 'available') return state;
      rolloutComplete &&= state.rolloutComplete;
      messages.push(state.message);
    }
    return { state: 'available', rolloutComplete, message: messages.join('; ') };
  }

  /** Sidecars have no Service: discovery goes through the pod proxy of a running agent pod. */
  private async sidecarDiscoveryUrl(tool: LanguageToolObject, port: number): Promise<string | undefined> {
    const ns = tool.metadata.namespace ?? '';
    for (const agent of this.agentsReferencing(ns, tool.metadata.name, true)) {
      const dep = this.agentDeployments.get(agentDeploymentName(agent.metadata.name), ns);
      const labels = dep?.spec?.selector?.matchLabels;
      if (!labels || Object.keys(labels).length === 0) continue;
      const selector = Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const pods = await this.options.connection.rest.request<{ items: Array<{ metadata: ObjectMeta; status?: { phase?: string; podIP?: string } }> }>('GET', `/api/v1/namespaces/${ns}/pods`, {
        query: { labelSelector: selector },
      });
      const pod = pods.items.find((p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running' && p.status.podIP);
      if (pod) return `${this.options.connection.server}/api/v1/namespaces/${ns}/pods/${pod.metadata.name}:${port}/proxy/mcp`;
    }
    return undefined;
  }

  /** After a switch to sidecar mode the tool's own Deployment and Service have to go (owner references alone need a garbage collector). */
  private async deleteServiceModeResources(tool: LanguageToolObject, note: Note) {
    const ns = tool.metadata.namespace ?? '';
    const name = tool.metadata.name;
    for (const [informer, path, kind] of [
      [this.deployments, `/apis/apps/v1/namespaces/${ns}/deployments/${name}`, 'Deployment'],
      [this.services, `/api/v1/namespaces/${ns}/services/${name}`, 'Service'],
    ] as const) {
      const live = informer.get(name, ns);
      if (!live || !isOwnedBy(live.metadata, tool.metadata)) continue;
      await this.options.connection.rest
        .request('DELETE', path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: live.metadata.uid }, propagationPolicy: 'Background' } })
        .then(() => note(`deleted ${kind} ${ns}/${name} (the tool runs as a sidecar now)`))
        .catch((error: unknown) => {
          if (!isNotFound(error) && !isConflict(error)) throw error;
        });
    }
  }

  private async reconcileAgent(ns: string, name: string, note: Note): Promise<void> {
    const agent = this.agents.get(name, ns);
    if (!agent || agent.metadata.deletionTimestamp) {
      // No garbage collector is relied on: a gone agent's credential Secret is removed here (its ownerReference covers a cluster that has one).
      if (this.options.gateway) await this.removeGatewaySecret(ns, name, note);
      return;
    }
    const gateway = this.options.gateway && optedIn(agent.metadata.labels, this.namespaces?.get(ns)?.metadata.labels) ? this.options.gateway : undefined;
    const entries: Record<string, AgentToolEntry> = {};
    const sidecars: Container[] = [];
    for (const ref of agent.spec?.tools ?? []) {
      if (ref.enabled === false) continue;
      const tool = this.tools.get(ref.name, ns);
      if (!tool || tool.metadata.deletionTimestamp) continue;
      const parsed = LanguageToolSpec.safeParse(tool.spec ?? {});
      if (!parsed.success) continue;
      if (parsed.data.deploymentMode === 'sidecar') {
        // The tool's own pass reports the refusal; here the sidecar just stays out.
        const allowed = await this.checkSecretReferences(ns, parsed.data).then(
          () => true,
          (error: unknown) => {
            if (error instanceof ReconcileRefusal) return false;
            throw error;
          },
        );
        if (allowed) sidecars.push(sidecarContainer(tool, parsed.data));
      }
      // Definitions that changed since they were approved: the agent does not get the endpoint until they are.
      if (definitionsHeld(tool.status)) continue;
      // An opted-in agent reaches every tool through the gateway, which calls the tool for it under policy.
      if (gateway) entries[ref.name] = gatewayToolEntry(gateway);
      // The endpoint the tool's own reconcile published: agents follow the tool's observed state.
      else if (tool.status?.endpoint) entries[ref.name] = { endpoint: tool.status.endpoint, protocol: 'mcp' };
    }
    const refusals: ReconcileRefusal[] = [];
    const attempt = async (sync: () => Promise<void>) => {
      try {
        await sync();
      } catch (error) {
        if (!(error instanceof ReconcileRefusal)) throw error;
        refusals.push(error);
      }
    };
    // The credential before the config that uses it; a revocation before anything else.
    if (gateway) await attempt(() => this.syncGatewayCredential(agent, note));
    else if (this.options.gateway) await this.revokeGatewayCredential(agent, note);
    await attempt(() => this.syncAgentConfig(agent, entries, note));
    await attempt(() => this.syncSidecars(agent, sidecars, note));
    if (this.options.gateway) await attempt(() => this.syncGatewayEnv(agent, gateway !== undefined, note));
    await this.writeAgentCondition(agent, refusals, note);
    if (refusals.length) throw new ReconcileRefusal(refusals[0]!.reason, refusals.map((r) => r.message).join('; '));
  }

  /**
   * The agent's ToolsAttached condition: False with the refusal while its Deployment or ConfigMap
   * is someone else's, True again once that clears. Other conditions (the Language Operator's) are
   * kept; the write is guarded by resourceVersion.
   */
  private async writeAgentCondition(agent: LanguageAgentObject, refusals: ReconcileRefusal[], note: Note) {
    const previous = findCondition(agent.status?.conditions, TOOLS_ATTACHED);
    // An agent that never had a refusal gets no status write at all.
    if (!refusals.length && (!previous || previous.status === 'True')) return;
    const update = refusals.length
      ? { type: TOOLS_ATTACHED, status: 'False' as const, reason: refusals[0]!.reason, message: refusals.map((r) => r.message).join('; ') }
      : { type: TOOLS_ATTACHED, status: 'True' as const, reason: 'Attached', message: 'The agent Deployment and ConfigMap take its tools' };
    let current: LanguageAgentObject | undefined = agent;
    for (let attempt = 0; attempt < CONFLICT_RETRIES && current; attempt++) {
      const conditions = setCondition(current.status?.conditions, { ...update, observedGeneration: current.metadata.generation }, this.options.now);
      if (semanticEqual(conditions, current.status?.conditions ?? [])) return;
      const path: string = `/apis/${LANGOP_API_VERSION}/namespaces/${current.metadata.namespace}/languageagents/${current.metadata.name}`;
      try {
        await this.options.connection.rest.request('PATCH', `${path}/status`, {
          contentType: CONTENT_TYPE.mergePatch,
          query: { fieldManager: TOOLDECK_FIELD_MANAGER },
          body: { metadata: { resourceVersion: current.metadata.resourceVersion }, status: { conditions } },
        });
        note(`status ${TOOLS_ATTACHED} ${update.status}${refusals.length ? `: ${update.reason}` : ''}`);
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!isConflict(error)) throw error;
        current = await this.getOrUndefined<LanguageAgentObject>(path);
      }
    }
  }

  private async syncAgentConfig(agent: LanguageAgentObject, entries: Record<string, AgentToolEntry>, note: Note) {
    const ns = agent.metadata.namespace ?? '';
    const cmName = agentConfigMapName(agent.metadata.name);
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    let cm = this.configMaps.get(cmName, ns);
    // The informer holds only ConfigMaps with the agent label: one without it (made before it was
    // written, or someone else's) is read when there is something to write.
    if (!cm && Object.keys(entries).length) cm = await this.getOrUndefined<ConfigMapObject>(`${base}/${cmName}`);
    for (let attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      if (cm && !belongsToAgent(cm.metadata, agent.metadata)) throw this.foreignAgentObject('ConfigMap', cm, agent);
      const managed = managedTools(cm);
      const update = injectToolEndpoints(cm?.data?.[AGENT_CONFIG_KEY], managed, entries);
      const managedChanged = managed.join(',') !== update.managed.join(',');
      if (!update.changed && !managedChanged) return;
      const annotation = update.managed.length ? update.managed.join(',') : null;
      try {
        if (!cm) {
          if (update.managed.length === 0) return;
          await this.options.connection.rest.request('POST', base, {
            query: { fieldManager: TOOLDECK_FIELD_MANAGER },
            body: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: {
                name: cmName,
                namespace: ns,
                labels: { [MANAGED_BY_LABEL]: TOOLDECK_FIELD_MANAGER, [AGENT_LABEL]: agent.metadata.name },
                annotations: { [MANAGED_TOOLS_ANNOTATION]: annotation },
                ownerReferences: [ownerReference(LANGOP_API_VERSION, 'LanguageAgent', agent.metadata, false)],
              },
              data: { [AGENT_CONFIG_KEY]: update.text },
            },
          });
        } else {
          await this.options.connection.rest.request('PATCH', `${base}/${cmName}`, {
            contentType: CONTENT_TYPE.mergePatch,
            query: { fieldManager: TOOLDECK_FIELD_MANAGER },
            body: {
              metadata: { resourceVersion: cm.metadata.resourceVersion, labels: { [AGENT_LABEL]: agent.metadata.name }, annotations: { [MANAGED_TOOLS_ANNOTATION]: annotation } },
              data: { [AGENT_CONFIG_KEY]: update.text },
            },
          });
        }
        note(`wrote ConfigMap ${ns}/${cmName} (tools: ${update.managed.join(', ') || 'none'})`);
        return;
      } catch (error) {
        // 409: someone wrote the ConfigMap since it was read (or created it first): read it again.
        if (!isConflict(error)) throw error;
        cm = await this.options.connection.rest.request<ConfigMapObject>('GET', `${base}/${cmName}`).catch((e: unknown) => {
          if (isNotFound(e)) return undefined;
          throw e;
        });
      }
    }
    throw new KubeApiError(409, 'Conflict', `ConfigMap ${ns}/${cmName} kept changing; retrying later`);
  }

  private async syncSidecars(agent: LanguageAgentObject, sidecars: Container[], note: Note) {
    const ns = agent.metadata.namespace ?? '';
    const depName = agentDeploymentName(agent.metadata.name);
    let dep = this.agentDeployments.get(depName, ns);
    // Not in the informer: none, or one without the agent label, read only when there is a sidecar to add.
    if (!dep && sidecars.length) dep = await this.getOrUndefined<DeploymentObject>(`/apis/apps/v1/namespaces/${ns}/deployments/${depName}`);
    // Applying to a missing Deployment would create a broken one; the tool's status says what is missing.
    if (!dep) return;
    if (!belongsToAgent(dep.metadata, agent.metadata)) throw this.foreignAgentObject('Deployment', dep, agent);
    await this.applyIfChanged(desiredAgentSidecars(depName, ns, agent.metadata.name, sidecars), dep, SIDECAR_FIELD_MANAGER, note);
  }

  // ---- gateway credentials -------------------------------------------------------------------

  /**
   * Issues the opted-in agent its gateway credential, once. The hash goes on the agent first and the
   * Secret second, so an agent without the annotation never has a Secret to clean up. A Secret whose
   * hash annotation no longer matches the agent's (a pass interrupted between the two writes, or an
   * edited annotation) is replaced. The Secret is read as metadata only; its value is never read back.
   */
  private async syncGatewayCredential(agent: LanguageAgentObject, note: Note) {
    const ns = agent.metadata.namespace ?? '';
    const name = agent.metadata.name;
    const identity = gatewayAgentName(name, ns);
    if (!identity) {
      throw new ReconcileRefusal('GatewayNameTooLong', `LanguageAgent ${ns}/${name} cannot be given a gateway credential: "<agent>.<namespace>" must be at most 64 characters`);
    }
    const secretName = gatewayCredentialSecretName(name);
    const path = `/api/v1/namespaces/${ns}/secrets/${secretName}`;
    const hash = agent.metadata.annotations?.[GATEWAY_CREDENTIAL_HASH_ANNOTATION];
    const live = await this.secretMetadata(path);
    if (live && !isGatewaySecretOf(live, name)) {
      throw new ReconcileRefusal('NameConflict', `Secret ${ns}/${secretName} exists and is not the gateway credential Tooldeck issued to LanguageAgent ${name}; it is left untouched and the agent gets no credential`);
    }
    const ownerMatches = !live?.metadata.ownerReferences?.length || isOwnedBy(live.metadata, agent.metadata);
    if (live && hash && live.metadata.annotations?.[GATEWAY_CREDENTIAL_HASH_ANNOTATION] === hash && ownerMatches) return;
    if (live) {
      await this.deleteIfPresent(path, live.metadata.uid);
      note(`deleted stale gateway credential Secret ${ns}/${secretName}`);
    }
    const issued = issueGatewayCredential(identity);
    await this.setAgentCredentialHash(agent, issued.sha256);
    await this.options.connection.rest.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
      query: { fieldManager: TOOLDECK_FIELD_MANAGER },
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: {
          name: secretName,
          namespace: ns,
          labels: { [MANAGED_BY_LABEL]: TOOLDECK_FIELD_MANAGER, [GATEWAY_AGENT_LABEL]: name },
          annotations: { [GATEWAY_CREDENTIAL_HASH_ANNOTATION]: issued.sha256 },
          ownerReferences: [ownerReference(LANGOP_API_VERSION, 'LanguageAgent', agent.metadata, false)],
        },
        stringData: { [GATEWAY_CREDENTIAL_KEY]: issued.credential },
      },
    });
    note(`issued gateway credential Secret ${ns}/${secretName}`);
  }

  /** An agent that opted out: its hash goes first (the gateway refuses the credential from then on), then its Secret. */
  private async revokeGatewayCredential(agent: LanguageAgentObject, note: Note) {
    const ns = agent.metadata.namespace ?? '';
    if (agent.metadata.annotations?.[GATEWAY_CREDENTIAL_HASH_ANNOTATION] === undefined) return;
    await this.setAgentCredentialHash(agent, null);
    note(`revoked the gateway credential of LanguageAgent ${ns}/${agent.metadata.name}`);
    await this.removeGatewaySecret(ns, agent.metadata.name, note);
  }

  private async removeGatewaySecret(ns: string, agent: string, note: Note) {
    const path = `/api/v1/namespaces/${ns}/secrets/${gatewayCredentialSecretName(agent)}`;
    const live = await this.secretMetadata(path);
    if (!live || !isGatewaySecretOf(live, agent)) return;
    await this.deleteIfPresent(path, live.metadata.uid);
    note(`deleted gateway credential Secret ${ns}/${gatewayCredentialSecretName(agent)}`);
  }

  /**
   * The agent's container gets the credential as the environment variable its config.yaml names
   * (from the Secret, never as a literal), in the agent's Deployment when it has one labelled for
   * it. Only the first container, the agent's runtime: other containers of the pod do not need it.
   * Applied under a field manager of its own, so opting out removes exactly this and nothing else.
   */
  private async syncGatewayEnv(agent: LanguageAgentObject, enabled: boolean, note: Note) {
    const ns = agent.metadata.namespace ?? '';
    const depName = agentDeploymentName(agent.metadata.name);
    const dep = this.agentDeployments.get(depName, ns);
    if (!dep || !belongsToAgent(dep.metadata, agent.metadata)) return;
    const container = dep.spec?.template?.spec?.containers?.[0]?.name;
    if (!container) return;
    const desired: ApplyConfiguration = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: depName, namespace: ns } };
    if (enabled) {
      desired.spec = {
        template: { spec: { containers: [{ name: container, env: [{ name: GATEWAY_CREDENTIAL_ENV, valueFrom: { secretKeyRef: { name: gatewayCredentialSecretName(agent.metadata.name), key: GATEWAY_CREDENTIAL_KEY } } }] }] } },
      };
    }
    await this.applyIfChanged(desired, dep, GATEWAY_ENV_FIELD_MANAGER, note);
  }

  private async setAgentCredentialHash(agent: LanguageAgentObject, hash: string | null) {
    await this.options.connection.rest.request('PATCH', `/apis/${LANGOP_API_VERSION}/namespaces/${agent.metadata.namespace}/languageagents/${agent.metadata.name}`, {
      contentType: CONTENT_TYPE.mergePatch,
      query: { fieldManager: TOOLDECK_FIELD_MANAGER },
      body: { metadata: { annotations: { [GATEWAY_CREDENTIAL_HASH_ANNOTATION]: hash } } },
    });
  }

  /** A Secret's metadata (never its data), or undefined when there is none. */
  private async secretMetadata(path: string): Promise<KubeObject | undefined> {
    return this.options.connection.rest.request<KubeObject>('GET', path, { accept: CONTENT_TYPE.partialObjectMetadata }).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  }

  /** Deletes exactly the object that was read (uid precondition); one already gone is fine. */
  private async deleteIfPresent(path: string, uid: string | undefined) {
    await this.options.connection.rest
      .request('DELETE', path, { body: { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) } })
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
  }

  private foreignAgentObject(kind: string, obj: KubeObject, agent: LanguageAgentObject): ReconcileRefusal {
    const ref = `${obj.metadata.namespace}/${obj.metadata.name}`;
    return new ReconcileRefusal(
      'NameConflict',
      `${kind} ${ref} is not LanguageAgent ${agent.metadata.name}'s (it has neither an ownerReference to the agent nor the label ${AGENT_LABEL}: ${agent.metadata.name}); its tools are not put into it`,
    );
  }

  // ---- writes --------------------------------------------------------------------------------

  /** Server-side applies `desired` unless the fields `manager` owns in `live` already say the same. Returns the live object. */
  private async applyIfChanged<T extends { metadata: ObjectMeta }>(desired: ApplyConfiguration, live: T | undefined, manager: string, note: Note): Promise<T | undefined> {
    const owned = live ? extractOwned(live, manager) : undefined;
    if (live && semanticEqual(ownablePart(desired), owned ?? {})) return live;
    const group = desired.apiVersion === 'v1' ? '/api/v1' : `/apis/${desired.apiVersion}`;
    const plural = `${desired.kind!.toLowerCase()}s`;
    const ref = `${desired.kind} ${desired.metadata.namespace}/${desired.metadata.name}`;
    // Never forced: a field another manager owns (someone scaled or edited the object) stops the
    // apply, and the refusal says whose it is, instead of taking it over.
    const applied = await this.options.connection.rest
      .request<T>('PATCH', `${group}/namespaces/${desired.metadata.namespace}/${plural}/${desired.metadata.name}`, {
        body: desired,
        contentType: CONTENT_TYPE.apply,
        query: { fieldManager: manager },
      })
      .catch((error: unknown) => {
        if (!isConflict(error)) throw error;
        const managers = conflictingManagers((error as Error).message);
        throw new ReconcileRefusal('FieldConflict', `${ref}: fields Tooldeck applies are owned by ${managers.length ? managers.join(', ') : 'another field manager'}; they are not taken over`);
      });
    note(`${live ? 'updated' : 'created'} ${desired.kind} ${desired.metadata.namespace}/${desired.metadata.name}`);
    return applied;
  }

  /** Status through the status subresource, guarded by resourceVersion; a 409 re-reads the tool and recomputes. */
  private async writeToolStatus(tool: LanguageToolObject, compute: (previous: LanguageToolStatus | undefined) => LanguageToolStatus, note: Note) {
    let current: LanguageToolObject | undefined = tool;
    for (let attempt = 0; attempt < CONFLICT_RETRIES && current; attempt++) {
      const next = compute(current.status);
      if (semanticEqual(next, current.status ?? {})) return;
      const status: Record<string, unknown> = { ...next };
      for (const key of STATUS_KEYS) if (status[key] === undefined && current.status?.[key] !== undefined) status[key] = null;
      try {
        await this.options.connection.rest.request('PATCH', `${toolPath(current.metadata)}/status`, {
          contentType: CONTENT_TYPE.mergePatch,
          query: { fieldManager: TOOLDECK_FIELD_MANAGER },
          body: { metadata: { resourceVersion: current.metadata.resourceVersion }, status },
        });
        note(describeStatusChange(current.status, next));
        return;
      } catch (error) {
        if (!isConflict(error)) throw error;
        current = await this.readTool(current.metadata);
        // A new generation gets its own pass (its event is queued); this observation is for the old one.
        if (current && current.metadata.generation !== tool.metadata.generation) return;
      }
    }
    if (current) throw new KubeApiError(409, 'Conflict', `LanguageTool ${tool.metadata.namespace}/${tool.metadata.name} kept changing; retrying later`);
  }

  private async updateFinalizers(tool: LanguageToolObject, change: (finalizers: string[]) => string[], note: Note): Promise<LanguageToolObject | undefined> {
    let current: LanguageToolObject | undefined = tool;
    for (let attempt = 0; attempt < CONFLICT_RETRIES && current; attempt++) {
      const finalizers = current.metadata.finalizers ?? [];
      const next = change(finalizers);
      if (next.join('\n') === finalizers.join('\n')) return current;
      try {
        const updated = await this.options.connection.rest.request<LanguageToolObject>('PATCH', toolPath(current.metadata), {
          contentType: CONTENT_TYPE.mergePatch,
          query: { fieldManager: TOOLDECK_FIELD_MANAGER },
          body: { metadata: { resourceVersion: current.metadata.resourceVersion, finalizers: next } },
        });
        note(next.includes(LANGOP_FINALIZER) ? `added finalizer ${LANGOP_FINALIZER}` : `removed finalizer ${LANGOP_FINALIZER}: no agent uses the tool any more`);
        return updated;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        if (!isConflict(error)) throw error;
        current = await this.readTool(current.metadata);
      }
    }
    if (!current) return undefined;
    throw new KubeApiError(409, 'Conflict', `LanguageTool ${tool.metadata.namespace}/${tool.metadata.name} kept changing; retrying later`);
  }

  private async readTool(meta: ObjectMeta): Promise<LanguageToolObject | undefined> {
    return this.options.connection.rest.request<LanguageToolObject>('GET', toolPath(meta)).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  }
}

function toolKey(ns: string, name: string) {
  return `tool:${ns}/${name}`;
}

function agentKey(ns: string, name: string) {
  return `agent:${ns}/${name}`;
}

function toolPath(meta: ObjectMeta) {
  return `/apis/${LANGOP_API_VERSION}/namespaces/${meta.namespace}/languagetools/${meta.name}`;
}

function splitOnce(value: string, separator: string): [string, string] {
  const i = value.indexOf(separator);
  return [value.slice(0, i), value.slice(i + 1)];
}

/** A Secret Tooldeck issued as `agent`'s gateway credential (by its labels; the name alone proves nothing). */
function isGatewaySecretOf(secret: KubeObject, agent: string): boolean {
  return secret.metadata.labels?.[GATEWAY_AGENT_LABEL] === agent && secret.metadata.labels?.[MANAGED_BY_LABEL] === TOOLDECK_FIELD_MANAGER;
}

function managedTools(cm: ConfigMapObject | undefined): string[] {
  const value = cm?.metadata.annotations?.[MANAGED_TOOLS_ANNOTATION];
  return value ? value.split(',').filter(Boolean).sort() : [];
}

/** Errors no retry will fix by itself (invalid object, forbidden): shown in status instead. */
function isPermanentApiError(error: unknown): boolean {
  return isKubeApiError(error) && error.status >= 400 && error.status < 500 && error.status !== 409 && error.status !== 429;
}

/** "phase Pending → Running, 3 tools" */
function describeStatusChange(previous: LanguageToolStatus | undefined, next: LanguageToolStatus): string {
  const parts = [previous?.phase && previous.phase !== next.phase ? `phase ${previous.phase} → ${next.phase}` : `phase ${next.phase ?? 'unset'}`];
  if (next.availableTools && next.availableTools.length !== (previous?.availableTools?.length ?? 0)) parts.push(`${next.availableTools.length} tools discovered`);
  const failing = (next.conditions ?? []).find((c) => c.status === 'False' && c.type !== 'Degraded');
  if (failing) parts.push(`${failing.type}: ${failing.reason}`);
  return `status ${parts.join(', ')}`;
}
