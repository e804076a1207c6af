import { extractOwned } from './managedFields';
import { LANGOP_API_VERSION, TOOLDECK_FIELD_MANAGER, type LanguageAgentStatus, type LanguageToolSpec, type LanguageToolStatus } from '../../shared/kube';

export const SERVICE_PORT_NAME = 'http';
export const TOOL_CONTAINER_NAME = 'tool';
export const TOOL_LABEL = 'langop.io/tool';
/** Names of the tools whose entries Tooldeck wrote into an agent's config.yaml, comma-separated. */
export const MANAGED_TOOLS_ANNOTATION = 'langop.io/managed-tools';
/** Sidecars go into a Deployment someone else owns; a manager of their own keeps that apply from touching anything else. */
export const SIDECAR_FIELD_MANAGER = `${TOOLDECK_FIELD_MANAGER}-sidecars`;
/** What the objects Tooldeck makes for a LanguageTool carry; the informers of those objects select on it. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_SELECTOR = `${MANAGED_BY_LABEL}=${TOOLDECK_FIELD_MANAGER}`;
/**
 * Names the LanguageAgent a Deployment or ConfigMap belongs to. Tooldeck writes sidecars or tool
 * endpoints into an object it did not make only when the object carries this label with the agent's
 * name (the workload's owner opted in) or an ownerReference to the agent (the Language Operator made
 * it for that agent). It also puts the label on what it writes, so its informers select on it.
 */
export const AGENT_LABEL = 'tooldeck.dev/agent';
/**
 * A Secret a LanguageTool may read through `secretKeyRef` must carry this label with the value
 * "true": whoever may create LanguageTools could otherwise hand any Secret of the namespace to an
 * image of their choosing.
 */
export const TOOL_SECRETS_LABEL = 'tooldeck.dev/allow-tool-secrets';

/**
 * Why a reconcile left an object alone: a name clash with an object Tooldeck did not make, fields
 * another manager owns, or a Secret not labelled for tools. It becomes a status condition (reason
 * `reason`) and a Warning Event of that reason, and the key is retried with backoff.
 */
export class ReconcileRefusal extends Error {
  constructor(
    readonly reason: 'NameConflict' | 'FieldConflict' | 'SecretNotAllowed' | 'GatewayNameTooLong',
    message: string,
  ) {
    super(message);
    this.name = 'ReconcileRefusal';
  }
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }>;
  managedFields?: Array<Record<string, unknown>>;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface LanguageToolObject extends KubeObject {
  spec?: unknown;
  status?: LanguageToolStatus;
}

export interface LanguageAgentObject extends KubeObject {
  spec?: { tools?: Array<{ name: string; enabled?: boolean }> };
  status?: LanguageAgentStatus;
}

export interface Container {
  name: string;
  image: string;
  [key: string]: unknown;
}

export interface DeploymentObject extends KubeObject {
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    template?: { spec?: { containers?: Container[]; initContainers?: Container[] } };
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

export interface ServiceObject extends KubeObject {
  spec?: Record<string, unknown>;
}

export interface ConfigMapObject extends KubeObject {
  data?: Record<string, string>;
}

export interface ApplyConfiguration {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string } & Record<string, unknown>;
  [field: string]: unknown;
}

export function toolEndpoint(name: string, namespace: string, spec: LanguageToolSpec): string {
  return spec.deploymentMode === 'sidecar' ? `http://localhost:${spec.port}` : `http://${name}.${namespace}.svc.cluster.local:${spec.port}`;
}

export function ownerReference(apiVersion: string, kind: string, meta: ObjectMeta, controller: boolean) {
  return { apiVersion, kind, name: meta.name, uid: meta.uid!, controller, blockOwnerDeletion: controller };
}

function toolLabels(name: string): Record<string, string> {
  return { 'app.kubernetes.io/name': name, [MANAGED_BY_LABEL]: TOOLDECK_FIELD_MANAGER, [TOOL_LABEL]: name };
}

/** The container spec the tool runs as, in its own Deployment or as an agent's sidecar. */
function toolContainer(name: string, spec: LanguageToolSpec): Container {
  const d = spec.deployment ?? {};
  const container: Container = { name, image: spec.image };
  if (d.imagePullPolicy) container.imagePullPolicy = d.imagePullPolicy;
  if (d.command?.length) container.command = d.command;
  if (d.args?.length) container.args = d.args;
  if (d.env?.length) container.env = d.env.map((e) => ({ name: e.name, ...(e.value !== undefined ? { value: e.value } : {}), ...(e.valueFrom ? { valueFrom: e.valueFrom } : {}) }));
  if (d.resources && (Object.keys(d.resources.limits ?? {}).length || Object.keys(d.resources.requests ?? {}).length)) {
    container.resources = {
      ...(Object.keys(d.resources.limits ?? {}).length ? { limits: d.resources.limits } : {}),
      ...(Object.keys(d.resources.requests ?? {}).length ? { requests: d.resources.requests } : {}),
    };
  }
  return container;
}

export function desiredDeployment(tool: LanguageToolObject, spec: LanguageToolSpec): ApplyConfiguration {
  const { name, namespace } = tool.metadata as { name: string; namespace: string };
  const labels = toolLabels(name);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels, ownerReferences: [ownerReference(LANGOP_API_VERSION, 'LanguageTool', tool.metadata, true)] },
    spec: {
      replicas: spec.deployment?.replicas ?? 1,
      selector: { matchLabels: { [TOOL_LABEL]: name } },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              ...toolContainer(TOOL_CONTAINER_NAME, spec),
              ports: [{ name: SERVICE_PORT_NAME, containerPort: spec.port, protocol: 'TCP' }],
              // Language Operator's contract: a tool is ready when GET /health answers.
              readinessProbe: { httpGet: { path: '/health', port: SERVICE_PORT_NAME } },
            },
          ],
        },
      },
    },
  };
}

export function desiredService(tool: LanguageToolObject, spec: LanguageToolSpec): ApplyConfiguration {
  const { name, namespace } = tool.metadata as { name: string; namespace: string };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: toolLabels(name), ownerReferences: [ownerReference(LANGOP_API_VERSION, 'LanguageTool', tool.metadata, true)] },
    spec: {
      type: 'ClusterIP',
      selector: { [TOOL_LABEL]: name },
      ports: [{ name: SERVICE_PORT_NAME, port: spec.port, targetPort: SERVICE_PORT_NAME, protocol: 'TCP' }],
    },
  };
}

export function sidecarContainerName(tool: string): string {
  return `tool-${tool}`.slice(0, 63).replace(/-+$/, '');
}

/** A native sidecar (an init container that keeps running): it starts before the agent and shares its network. */
export function sidecarContainer(tool: LanguageToolObject, spec: LanguageToolSpec): Container {
  return {
    ...toolContainer(sidecarContainerName(tool.metadata.name), spec),
    restartPolicy: 'Always',
    ports: [{ containerPort: spec.port, protocol: 'TCP' }],
  };
}

/** Names of the sidecars `SIDECAR_FIELD_MANAGER` put into an agent Deployment. */
export function ownedSidecarNames(dep: DeploymentObject): string[] {
  const owned = extractOwned(dep, SIDECAR_FIELD_MANAGER) as DeploymentObject | undefined;
  return (owned?.spec?.template?.spec?.initContainers ?? []).map((c) => c.name);
}

/**
 * The apply configuration that puts exactly `sidecars` (and no other sidecar of ours) into an agent
 * Deployment, with the agent label that keeps the Deployment in the operator's informer.
 */
export function desiredAgentSidecars(name: string, namespace: string, agent: string, sidecars: Container[]): ApplyConfiguration {
  const config: ApplyConfiguration = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace, labels: { [AGENT_LABEL]: agent } } };
  if (sidecars.length) config.spec = { template: { spec: { initContainers: sidecars } } };
  return config;
}

/** What of an apply configuration managedFields can own: everything but the identifying fields. */
export function ownablePart(config: ApplyConfiguration): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = config;
  const { name: _n, namespace: _ns, ...meta } = metadata;
  return { ...rest, ...(Object.keys(meta).length ? { metadata: meta } : {}) };
}

export function isOwnedBy(meta: ObjectMeta | undefined, owner: ObjectMeta): boolean {
  return !!meta?.ownerReferences?.some((ref) => ref.uid === owner.uid);
}

/**
 * Whether Tooldeck made `meta`'s object for the LanguageTool `tool`: it carries the tool's
 * ownerReference, or it was made for an earlier LanguageTool of the same name (carries Tooldeck's
 * label and only such ownerReferences) that the garbage collector has not removed yet.
 */
export function madeForTool(meta: ObjectMeta, tool: ObjectMeta): boolean {
  if (isOwnedBy(meta, tool)) return true;
  const refs = meta.ownerReferences ?? [];
  return meta.labels?.[MANAGED_BY_LABEL] === TOOLDECK_FIELD_MANAGER && refs.length > 0 && refs.every((ref) => ref.apiVersion === LANGOP_API_VERSION && ref.kind === 'LanguageTool' && ref.name === tool.name);
}

/** Whether Tooldeck may write sidecars or tool endpoints into `meta`'s object for `agent` (see AGENT_LABEL). */
export function belongsToAgent(meta: ObjectMeta, agent: ObjectMeta): boolean {
  return meta.labels?.[AGENT_LABEL] === agent.name || isOwnedBy(meta, agent);
}

/** The Secrets a tool spec reads through `secretKeyRef`; a reference without a usable name is returned as undefined. */
export function secretReferences(spec: LanguageToolSpec): Array<string | undefined> {
  return (spec.deployment?.env ?? []).flatMap((e) => {
    const ref = (e.valueFrom as { secretKeyRef?: { name?: unknown } } | undefined)?.secretKeyRef;
    if (ref === undefined) return [];
    return [typeof ref?.name === 'string' && ref.name ? ref.name : undefined];
  });
}
