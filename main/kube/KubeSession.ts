import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { AppError } from '../../shared/errors';
import { Condition, DeploymentMode, LANGOP_API_VERSION, ToolPhase, TOOLDECK_FIELD_MANAGER, type ToolSchema } from '../../shared/kube';
import type {
  ApplyAction,
  ApplyConflict,
  ApplyResult,
  ClusterInventory,
  ClusterSchemas,
  ClusterToolDetail,
  ClusterToolRow,
  DryRunObject,
  DryRunResult,
  FieldConflict,
  GatewayReplicasStatus,
  KubeContextList,
  KubeStatus,
  ObjectRef,
  OperatorStatus,
  SelectContextInput,
} from '../../shared/kubeApi';
import type { DefinitionStore } from '../lock/DefinitionStore';
import type { Logger } from '../platform/Logger';
import { parseResourceText } from '../resources/parseResourceText';
import { isKubeApiError, isNotFound } from './KubeApiError';
import { ClusterSchemaCatalog } from './ClusterSchemaCatalog';
import { checkReachable, connectKube, type KubeConnection } from './KubeConnection';
import { CONTENT_TYPE } from './KubeRest';
import { lineDiff } from './lineDiff';
import { readOperatorStatus } from './operator/readOperatorStatus';
import { readGatewayReplicas } from './operator/readGatewayReplicas';
import { ResilientInformer, type InformerEvent } from './ResilientInformer';
import type { LanguageAgentObject, LanguageToolObject } from './toolResources';
import { approveClusterDefinitions, clusterDefinitionsDiff, clusterDefinitionsSource, definitionsHeld, recordClusterDefinitions } from './toolDefinitions';
import { Emitter } from '../platform/Emitter';

export interface KubeSessionOptions {
  logger: Logger;
  /** Where $KUBECONFIG and the home folder come from; the process's by default. */
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** The console's revision store: every LanguageTool's discovered definitions the session sees are recorded there, under kube:<context>/<namespace>/<name>. */
  definitions?: DefinitionStore;
}

const PLURALS: Record<string, string> = { LanguageTool: 'languagetools', LanguageAgent: 'languageagents' };
const VOLATILE_METADATA = ['managedFields', 'resourceVersion', 'generation', 'uid', 'creationTimestamp'] as const;

interface Selection {
  kubeconfig: string;
  context?: string;
  namespace?: string;
}

interface Live {
  connection: KubeConnection;
  tools: ResilientInformer<LanguageToolObject>;
  agents: ResilientInformer<LanguageAgentObject>;
  synced: boolean;
  schemas: ClusterSchemaCatalog;
}

interface StatusBody {
  message?: string;
  reason?: string;
  details?: { causes?: Array<{ reason?: string; message?: string; field?: string }> };
}

/**
 * The cluster the console looks at: the kubeconfig and context chosen in the UI, informers that
 * keep the LanguageTool/LanguageAgent inventory current, and apply with field manager `tooldeck`.
 * Nothing connects until the inventory or the status is asked for.
 */
export class KubeSession {
  private selection?: Selection;
  private live?: Live;
  private lastStatus: KubeStatus = { state: 'unconfigured' };
  private readonly changes = new Emitter((error) => this.options.logger.warn('kube session listener failed', { error: (error as Error).message }));

  constructor(private readonly options: KubeSessionOptions) {}

  /** $KUBECONFIG (its first file) or ~/.kube/config. */
  defaultKubeconfig(): string {
    const env = (this.options.env ?? process.env).KUBECONFIG;
    const first = env?.split(delimiter).find(Boolean);
    return first ?? join(this.options.home ?? homedir(), '.kube', 'config');
  }

  contexts(kubeconfig?: string): KubeContextList {
    const path = kubeconfig ?? this.selection?.kubeconfig ?? this.defaultKubeconfig();
    if (!existsSync(path)) return { kubeconfig: path, exists: false, contexts: [] };
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(path);
    } catch (error) {
      return { kubeconfig: path, exists: true, contexts: [], error: `Cannot read the kubeconfig: ${(error as Error).message}` };
    }
    const clusters = new Map(kc.getClusters().map((c) => [c.name, c.server]));
    return {
      kubeconfig: path,
      exists: true,
      current: this.selection?.kubeconfig === path && this.selection.context ? this.selection.context : kc.getCurrentContext() || undefined,
      contexts: kc.getContexts().map((c) => ({ name: c.name, cluster: c.cluster, server: clusters.get(c.cluster), user: c.user, ...(c.namespace ? { namespace: c.namespace } : {}) })),
    };
  }

  async select(input: SelectContextInput): Promise<KubeStatus> {
    await this.disconnect();
    this.selection = { kubeconfig: input.kubeconfig ?? this.defaultKubeconfig(), context: input.context, namespace: input.namespace };
    const status = await this.status();
    this.emit();
    return status;
  }

  /** Connects on first use (the default kubeconfig's current context) and checks that the apiserver answers. */
  async status(): Promise<KubeStatus> {
    let live: Live;
    try {
      const connected = this.ensureConnected();
      if (!connected) return (this.lastStatus = { state: 'unconfigured', kubeconfig: this.defaultKubeconfig(), message: 'No kubeconfig found' });
      live = connected;
    } catch (error) {
      return (this.lastStatus = { state: 'error', kubeconfig: this.selection?.kubeconfig, context: this.selection?.context, message: (error as Error).message });
    }
    const { connection } = live;
    const base = { kubeconfig: this.selection?.kubeconfig, context: connection.context, server: connection.server, ...(connection.namespace ? { namespace: connection.namespace } : {}) };
    try {
      const version = await checkReachable(connection.rest);
      const crdsInstalled = await connection.rest
        .request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/languagetools.langop.io`)
        .then(() => true)
        .catch((error: unknown) => (isNotFound(error) ? false : undefined));
      this.lastStatus = { state: 'connected', ...base, version: version.gitVersion, ...(crdsInstalled === undefined ? {} : { crdsInstalled }) };
    } catch (error) {
      this.lastStatus = { state: error instanceof AppError && error.code === 'Unauthorized' ? 'error' : 'unreachable', ...base, message: (error as Error).message };
    }
    return this.lastStatus;
  }

  async namespaces(): Promise<string[]> {
    const live = this.requireLive();
    try {
      const list = await live.connection.rest.request<{ items: Array<{ metadata: { name: string } }> }>('GET', '/api/v1/namespaces');
      return list.items.map((n) => n.metadata.name).sort();
    } catch (error) {
      // Without list rights on namespaces, the ones holding tools are still worth offering.
      if (isKubeApiError(error) && error.status === 403) return [...new Set(this.inventory().tools.map((t) => t.namespace))].sort();
      throw toAppError(error, 'namespaces');
    }
  }

  /** Read from the informer caches: cheap to call after every change. */
  inventory(namespace?: string): ClusterInventory {
    const live = this.live;
    if (!live) return { status: this.lastStatus, synced: false, tools: [], agents: 0 };
    const agents = live.agents.list(namespace);
    const tools = live.tools
      .list(namespace)
      .map((tool) => toRow(tool, agents))
      .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    return { status: this.lastStatus, synced: live.synced, tools, agents: agents.length };
  }

  /** Called after every inventory change and context switch; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  async tool(namespace: string, name: string): Promise<ClusterToolDetail> {
    const live = this.requireLive();
    const tool = await live.connection.rest.request<LanguageToolObject>('GET', objectPath('LanguageTool', namespace, name)).catch((error: unknown) => {
      throw toAppError(error, `LanguageTool ${namespace}/${name}`);
    });
    const status = tool.status ?? {};
    const conditions = (status.conditions ?? []).flatMap((c) => {
      const parsed = Condition.safeParse(c);
      return parsed.success ? [parsed.data] : [];
    });
    const { managedFields: _m, ...metadata } = tool.metadata;
    const definitionsDiff = clusterDefinitionsDiff(`${namespace}/${name}`, status);
    this.record(live.connection, tool);
    return {
      ...toRow(tool, live.agents.list(namespace)),
      ...(tool.metadata.generation !== undefined ? { generation: tool.metadata.generation } : {}),
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
      conditions,
      toolSchemas: (status.toolSchemas ?? []) as ToolSchema[],
      ...(status.definitions ? { definitions: status.definitions } : {}),
      ...(definitionsDiff ? { definitionsDiff } : {}),
      ...(this.options.definitions ? { definitionsSource: clusterDefinitionsSource(live.connection.context, namespace, name) } : {}),
      yaml: stringify({ ...tool, metadata }),
    };
  }

  /** The in-cluster operator (`tooldeck operator`): its Leases, Deployment and recent Events. */
  async operator(): Promise<OperatorStatus> {
    const live = this.requireLive();
    try {
      return await readOperatorStatus(live.connection.rest);
    } catch (error) {
      throw toAppError(error, 'the in-cluster operator');
    }
  }

  /** The gateway's replicas (`tooldeck kube install --gateway`): each pod's calls, errors and held calls, from its /metrics through the pod proxy. */
  async gatewayReplicas(): Promise<GatewayReplicasStatus> {
    const live = this.requireLive();
    try {
      return await readGatewayReplicas(live.connection.rest);
    } catch (error) {
      throw toAppError(error, 'the gateway replicas');
    }
  }

  /**
   * Approves a LanguageTool's discovered definitions: the set hash the reviewer saw, refused when
   * the tool has discovered another set since.
   */
  async approveDefinitions(namespace: string, name: string, hash: string): Promise<ClusterToolDetail> {
    const live = this.requireLive();
    await approveClusterDefinitions(live.connection.rest, namespace, name, hash).catch((error: unknown) => {
      throw toAppError(error, `LanguageTool ${namespace}/${name}`);
    });
    this.options.logger.info('tool definitions approved in the cluster', { tool: `${namespace}/${name}`, hash });
    return this.tool(namespace, name);
  }

  /**
   * The connected cluster's kinds as JSON Schema, for the YAML editors. It never connects by itself:
   * until the Cluster section (or a context switch) has connected, there is nothing to offer, and
   * a Resources editor must not open a connection to whatever cluster the kubeconfig names.
   */
  async schemas(): Promise<ClusterSchemas> {
    const live = this.live;
    if (!live || this.lastStatus.state !== 'connected') return { available: false, reason: 'No cluster is connected' };
    try {
      const schemas = await live.schemas.read();
      return { available: true, context: live.connection.context, server: live.connection.server, ...schemas };
    } catch (error) {
      throw toAppError(error, 'OpenAPI schemas of the cluster');
    }
  }

  /** The server's answer to each object with dryRun=All, diffed against the live object; nothing is written. */
  async dryRun(yaml: string): Promise<DryRunResult> {
    const live = this.requireLive();
    const objects: DryRunObject[] = [];
    for (const item of this.parse(yaml, live.connection)) {
      const before = await this.get(live.connection, item);
      const answer = await this.patch(live.connection, item, { dryRun: true, force: false });
      if (!answer.ok) return answer;
      const beforeYaml = before ? stringify(withoutVolatile(before)) : '';
      const afterYaml = stringify(withoutVolatile(answer.object));
      objects.push({ ...item.ref, action: actionOf(before, answer.object), before: beforeYaml, after: afterYaml, diff: lineDiff(beforeYaml, afterYaml) });
    }
    return { ok: true, objects };
  }

  /** Server-side apply as `tooldeck`; without force a field another manager owns stops the apply and is reported. */
  async apply(yaml: string, force: boolean): Promise<ApplyResult> {
    const live = this.requireLive();
    const objects: Array<ObjectRef & { action: ApplyAction }> = [];
    for (const item of this.parse(yaml, live.connection)) {
      const before = await this.get(live.connection, item);
      const answer = await this.patch(live.connection, item, { dryRun: false, force });
      if (!answer.ok) return answer;
      objects.push({ ...item.ref, action: actionOf(before, answer.object) });
    }
    return { ok: true, objects };
  }

  async close(): Promise<void> {
    await this.disconnect();
    this.changes.clear();
  }

  // ---- internals -----------------------------------------------------------------------------

  private ensureConnected(): Live | undefined {
    if (this.live) return this.live;
    const selection = this.selection ?? { kubeconfig: this.defaultKubeconfig() };
    if (!existsSync(selection.kubeconfig)) return undefined;
    this.selection = selection;
    const connection = connectKube({ kubeconfig: selection.kubeconfig, context: selection.context, namespace: selection.namespace });
    const scoped = (plural: string) => `/apis/${LANGOP_API_VERSION}${selection.namespace ? `/namespaces/${selection.namespace}` : ''}/${plural}`;
    const informer = <T>(plural: string, onEvent?: (event: InformerEvent, obj: T) => void) =>
      new ResilientInformer<T>({
        kc: connection.kc,
        rest: connection.rest,
        path: scoped(plural),
        logger: this.options.logger,
        backoff: { baseMs: 1_000, maxMs: 30_000 },
        onEvent: (event, obj) => {
          onEvent?.(event, obj);
          this.emit();
        },
      });
    const live: Live = {
      connection,
      // The inventory's reading of each tool is where the console sees its definitions: recorded as it sees them.
      tools: informer<LanguageToolObject>('languagetools', (event, tool) => {
        if (event !== 'delete') this.record(connection, tool);
      }),
      agents: informer<LanguageAgentObject>('languageagents'),
      synced: false,
      // Per connection: a context switch starts with an empty cache.
      schemas: new ClusterSchemaCatalog(connection.rest, this.options.logger),
    };
    this.live = live;
    void Promise.all([live.tools.start(), live.agents.start()]).then(() => {
      live.synced = true;
      this.emit();
    });
    return live;
  }

  private requireLive(): Live {
    const live = this.ensureConnected();
    if (!live) throw new AppError('InvalidInput', `No kubeconfig at ${this.defaultKubeconfig()}; choose a kubeconfig file and a context first`);
    return live;
  }

  private async disconnect() {
    const live = this.live;
    this.live = undefined;
    this.lastStatus = { state: 'unconfigured' };
    if (!live) return;
    await Promise.all([live.tools.stop(), live.agents.stop()]);
    live.connection.close();
  }

  private emit() {
    this.changes.emit();
  }

  private record(connection: KubeConnection, tool: LanguageToolObject) {
    if (this.options.definitions) recordClusterDefinitions(this.options.definitions, connection.context, tool, { logger: this.options.logger });
  }

  private parse(yaml: string, connection: KubeConnection): Array<{ ref: ObjectRef; body: Record<string, unknown> }> {
    const documents = parseResourceText(yaml);
    if (documents.length === 0) throw new AppError('InvalidInput', 'The YAML holds no objects');
    const problems = documents.flatMap((doc) => doc.diagnostics.filter((d) => d.severity === 'error').map((d) => `line ${d.line}: ${d.path ? `${d.path}: ` : ''}${d.message}`));
    if (problems.length) throw new AppError('InvalidInput', `Nothing was sent: ${problems.join('; ')}`);
    const contextNamespace = connection.kc.getContextObject(connection.context)?.namespace;
    return documents.map((doc) => {
      const identity = doc.identity!;
      if (!PLURALS[identity.kind]) throw new AppError('InvalidInput', `The cluster serves LanguageTool and LanguageAgent only; ${identity.kind} ${identity.name} belongs to the local target`);
      const stored = doc.stored!;
      const metadata = stored.metadata as { name: string; namespace?: string };
      const namespace = metadata.namespace ?? connection.namespace ?? contextNamespace ?? 'default';
      return {
        ref: { kind: identity.kind, namespace, name: metadata.name },
        body: { apiVersion: LANGOP_API_VERSION, kind: identity.kind, metadata: { ...metadata, namespace }, spec: stored.spec },
      };
    });
  }

  private async get(connection: KubeConnection, item: { ref: ObjectRef }): Promise<Record<string, unknown> | undefined> {
    return connection.rest.request<Record<string, unknown>>('GET', objectPath(item.ref.kind, item.ref.namespace, item.ref.name)).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw toAppError(error, describeRef(item.ref));
    });
  }

  /** Through the raw fetch: a 409's Status names each conflicting manager and field in details.causes. */
  private async patch(
    connection: KubeConnection,
    item: { ref: ObjectRef; body: Record<string, unknown> },
    options: { dryRun: boolean; force: boolean },
  ): Promise<{ ok: true; object: Record<string, unknown> } | { ok: false; conflict: ApplyConflict }> {
    const url = new URL(connection.rest.server + objectPath(item.ref.kind, item.ref.namespace, item.ref.name));
    url.searchParams.set('fieldManager', TOOLDECK_FIELD_MANAGER);
    url.searchParams.set('force', String(options.force));
    if (options.dryRun) url.searchParams.set('dryRun', 'All');
    let response: Response;
    try {
      response = await connection.rest.fetch(url, {
        method: 'PATCH',
        headers: { 'content-type': CONTENT_TYPE.apply, accept: CONTENT_TYPE.json },
        body: JSON.stringify(item.body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new AppError('ConnectionFailed', `${describeRef(item.ref)}: cannot reach ${connection.server}: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text();
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown> & StatusBody;
    if (response.ok) return { ok: true, object: body };
    const message = body.message ?? `HTTP ${response.status}`;
    if (response.status === 409) return { ok: false, conflict: { ...item.ref, message, conflicts: conflictsOf(body) } };
    const what = describeRef(item.ref);
    if (response.status === 404) throw new AppError('NotFound', `${what}: ${message} (if the langop.io CRDs are not installed, run tooldeck kube reconcile once)`);
    if (response.status === 422 || response.status === 400) throw new AppError('InvalidInput', `${what}: the cluster refused it: ${message}`);
    if (response.status === 401 || response.status === 403) throw new AppError('Unauthorized', `${what}: ${message}`);
    throw new AppError('ExecutionFailed', `${what}: ${message}`);
  }
}

function objectPath(kind: string, namespace: string, name: string): string {
  return `/apis/${LANGOP_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/${PLURALS[kind]}/${encodeURIComponent(name)}`;
}

function describeRef(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace}/${ref.name}`;
}

function conflictsOf(status: StatusBody): FieldConflict[] {
  return (status.details?.causes ?? [])
    .filter((cause) => cause.reason === 'FieldManagerConflict')
    .map((cause) => ({ manager: /conflict with "([^"]+)"/.exec(cause.message ?? '')?.[1] ?? cause.message ?? 'unknown', field: cause.field ?? '' }));
}

/** From content, not resourceVersion: a dry run never moves the resourceVersion. */
function actionOf(before: Record<string, unknown> | undefined, after: Record<string, unknown>): ApplyAction {
  if (!before) return 'created';
  return stringify(withoutVolatile(before)) === stringify(withoutVolatile(after)) ? 'unchanged' : 'configured';
}

function withoutVolatile(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = { ...(object.metadata as Record<string, unknown> | undefined) };
  for (const key of VOLATILE_METADATA) delete metadata[key];
  return { ...object, metadata };
}

function toRow(tool: LanguageToolObject, agents: readonly LanguageAgentObject[]): ClusterToolRow {
  const namespace = tool.metadata.namespace ?? '';
  const phase = ToolPhase.safeParse(tool.status?.phase);
  const mode = DeploymentMode.safeParse((tool.spec as { deploymentMode?: unknown } | undefined)?.deploymentMode);
  return {
    namespace,
    name: tool.metadata.name,
    phase: phase.success ? phase.data : tool.status ? 'Unknown' : 'Pending',
    deploymentMode: mode.success ? mode.data : 'service',
    ...(tool.status?.endpoint ? { endpoint: tool.status.endpoint } : {}),
    toolCount: tool.status?.availableTools?.length ?? 0,
    agents: agents
      .filter((a) => (a.metadata.namespace ?? '') === namespace && (a.spec?.tools ?? []).some((ref) => ref.name === tool.metadata.name))
      .map((a) => a.metadata.name)
      .sort(),
    deleting: !!tool.metadata.deletionTimestamp,
    ...(tool.metadata.creationTimestamp ? { createdAt: tool.metadata.creationTimestamp } : {}),
    ...(definitionsHeld(tool.status) ? { definitionsChanged: true } : {}),
  };
}

function toAppError(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error;
  if (isNotFound(error)) return new AppError('NotFound', `${what}: not found`);
  if (isKubeApiError(error) && error.unreachable) return new AppError('ConnectionFailed', `${what}: ${error.message}`);
  if (isKubeApiError(error) && (error.status === 401 || error.status === 403)) return new AppError('Unauthorized', `${what}: ${error.message}`);
  return new AppError('ExecutionFailed', `${what}: ${(error as Error).message}`);
}
