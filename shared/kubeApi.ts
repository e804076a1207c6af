/**
 * The contract of the console's Cluster section (`kube.*` procedures) and of `tooldeck kube
 * inventory`: kubeconfig contexts, the tool inventory, dry-run diffs and apply results, cluster
 * schemas, the operator's status. The Language Operator resources these views are made of are in
 * kube.ts.
 */
import { z } from 'zod';
import { Condition, DeploymentMode, ToolDefinitionsStatus, ToolPhase, ToolSchema } from './kube';
import { DefinitionDiff } from './lock';

/** A kubeconfig file chosen in the UI; left out: $KUBECONFIG, then ~/.kube/config. */
export const KubeconfigInput = z.object({ kubeconfig: z.string().trim().min(1).optional() });
export type KubeconfigInput = z.infer<typeof KubeconfigInput>;

export const KubeContext = z.object({
  name: z.string(),
  cluster: z.string(),
  server: z.string().optional(),
  user: z.string(),
  namespace: z.string().optional(),
});
export type KubeContext = z.infer<typeof KubeContext>;

export const KubeContextList = z.object({
  /** The file that was read (or looked for). */
  kubeconfig: z.string(),
  exists: z.boolean(),
  current: z.string().optional(),
  contexts: z.array(KubeContext),
  /** Why the file could not be read, when it exists but is not a kubeconfig. */
  error: z.string().optional(),
});
export type KubeContextList = z.infer<typeof KubeContextList>;

export const SelectContextInput = z.object({
  kubeconfig: z.string().trim().min(1).optional(),
  context: z.string().min(1),
  namespace: z.string().min(1).optional(),
});
export type SelectContextInput = z.infer<typeof SelectContextInput>;

export const KubeConnectionState = z.enum(['unconfigured', 'connected', 'unreachable', 'error']);
export type KubeConnectionState = z.infer<typeof KubeConnectionState>;

export const KubeStatus = z.object({
  state: KubeConnectionState,
  kubeconfig: z.string().optional(),
  context: z.string().optional(),
  server: z.string().optional(),
  namespace: z.string().optional(),
  /** The apiserver's gitVersion, e.g. v1.35.0. */
  version: z.string().optional(),
  /** False when the langop.io CRDs are not installed (nothing to list until a reconciler installs them). */
  crdsInstalled: z.boolean().optional(),
  message: z.string().optional(),
});
export type KubeStatus = z.infer<typeof KubeStatus>;

export const NamespaceFilter = z.object({ namespace: z.string().min(1).optional() });
export type NamespaceFilter = z.infer<typeof NamespaceFilter>;

export const ClusterToolRow = z.object({
  namespace: z.string(),
  name: z.string(),
  phase: ToolPhase,
  deploymentMode: DeploymentMode,
  endpoint: z.string().optional(),
  toolCount: z.number().int(),
  /** Agents in the same namespace whose spec.tools names this tool. */
  agents: z.array(z.string()),
  deleting: z.boolean(),
  /** RFC 3339 creationTimestamp; the age is computed where it is shown. */
  createdAt: z.string().optional(),
  /** Its discovered definitions differ from the approved ones (condition DefinitionsChanged): agents do not get its endpoint. */
  definitionsChanged: z.boolean().optional(),
});
export type ClusterToolRow = z.infer<typeof ClusterToolRow>;

export const ClusterInventory = z.object({
  status: KubeStatus,
  /** False until the informers have listed everything once. */
  synced: z.boolean(),
  tools: z.array(ClusterToolRow),
  agents: z.number().int(),
});
export type ClusterInventory = z.infer<typeof ClusterInventory>;

/**
 * A row of `tooldeck kube inventory`: the Cluster section's row without the namespace (the CLI
 * groups rows by namespace) and without the creation time (it shows no age).
 */
export const KubeInventoryToolRow = ClusterToolRow.omit({ namespace: true, createdAt: true });
export type KubeInventoryToolRow = z.infer<typeof KubeInventoryToolRow>;

/** `tooldeck kube inventory [--json]`: one read of the cluster, tools and agent names per namespace. */
export const KubeInventory = z.object({
  context: z.string(),
  server: z.string(),
  namespaces: z.array(z.object({ namespace: z.string(), tools: z.array(KubeInventoryToolRow), agents: z.array(z.string()) })),
});
export type KubeInventory = z.infer<typeof KubeInventory>;

export const ToolRef = z.object({ namespace: z.string().min(1), name: z.string().min(1) });
export type ToolRef = z.infer<typeof ToolRef>;

/** Approves a LanguageTool's discovered definitions: exactly the set hash the reviewer saw. */
export const ApproveDefinitionsInput = ToolRef.extend({ hash: z.string().regex(/^sha256:[0-9a-f]{64}$/) });
export type ApproveDefinitionsInput = z.infer<typeof ApproveDefinitionsInput>;

export const ClusterToolDetail = ClusterToolRow.extend({
  generation: z.number().int().optional(),
  observedGeneration: z.number().int().optional(),
  conditions: z.array(Condition),
  toolSchemas: z.array(ToolSchema),
  definitions: ToolDefinitionsStatus.optional(),
  /** The approved definitions against the discovered ones, when they differ. */
  definitionsDiff: DefinitionDiff.optional(),
  /** Where this console keeps the revisions of its discovered definitions (`kube:<context>/<namespace>/<name>`), for `lock.history` and `lock.compare`. */
  definitionsSource: z.string().optional(),
  /** The live object as YAML, managedFields left out. */
  yaml: z.string(),
});
export type ClusterToolDetail = z.infer<typeof ClusterToolDetail>;

export const ApplyYamlInput = z.object({ yaml: z.string().min(1).max(1_000_000), force: z.boolean().default(false) });
export type ApplyYamlInput = z.input<typeof ApplyYamlInput>;
export const DryRunInput = z.object({ yaml: z.string().min(1).max(1_000_000) });
export type DryRunInput = z.infer<typeof DryRunInput>;

export const ApplyAction = z.enum(['created', 'configured', 'unchanged']);
export type ApplyAction = z.infer<typeof ApplyAction>;

export const DiffLine = z.object({ op: z.enum([' ', '+', '-']), text: z.string() });
export type DiffLine = z.infer<typeof DiffLine>;

export const ObjectRef = z.object({ kind: z.string(), namespace: z.string(), name: z.string() });
export type ObjectRef = z.infer<typeof ObjectRef>;

export const DryRunObject = ObjectRef.extend({
  action: ApplyAction,
  /** Live object as YAML (empty when it does not exist yet) and the server's dry-run result, volatile metadata left out. */
  before: z.string(),
  after: z.string(),
  diff: z.array(DiffLine),
});
export type DryRunObject = z.infer<typeof DryRunObject>;

export const FieldConflict = z.object({ manager: z.string(), field: z.string() });
export type FieldConflict = z.infer<typeof FieldConflict>;

export const ApplyConflict = ObjectRef.extend({
  message: z.string(),
  /** Which manager owns which field; a forced apply takes these over. */
  conflicts: z.array(FieldConflict),
});
export type ApplyConflict = z.infer<typeof ApplyConflict>;

export const DryRunResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), objects: z.array(DryRunObject) }),
  z.object({ ok: z.literal(false), conflict: ApplyConflict }),
]);
export type DryRunResult = z.infer<typeof DryRunResult>;

export const ApplyResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), objects: z.array(ObjectRef.extend({ action: ApplyAction })) }),
  z.object({ ok: z.literal(false), conflict: ApplyConflict }),
]);
export type ApplyResult = z.infer<typeof ApplyResult>;

export const ClusterKind = z.object({
  /** As written in a manifest: `v1`, `apps/v1`, `langop.io/v1alpha1`. */
  apiVersion: z.string(),
  kind: z.string(),
  /** The key of the kind's schema in `definitions`. */
  definition: z.string(),
});
export type ClusterKind = z.infer<typeof ClusterKind>;

/**
 * The connected cluster's kinds as JSON Schema, from its /openapi/v3 documents. Every `$ref` points
 * at `#/definitions/<name>` of this object, and only definitions some kind reaches are included.
 */
export const ClusterSchemas = z.discriminatedUnion('available', [
  z.object({ available: z.literal(false), reason: z.string() }),
  z.object({
    available: z.literal(true),
    context: z.string(),
    server: z.string(),
    /** Changes exactly when some schema changed (a CRD added, changed or removed, an upgrade). */
    revision: z.string(),
    /** The group-versions read, e.g. `v1`, `apps/v1`, `langop.io/v1alpha1`. */
    groupVersions: z.array(z.string()),
    kinds: z.array(ClusterKind),
    definitions: z.record(z.string(), z.record(z.string(), z.unknown())),
  }),
]);
export type ClusterSchemas = z.infer<typeof ClusterSchemas>;
export type AvailableClusterSchemas = Extract<ClusterSchemas, { available: true }>;

/** An operator Lease as the console reads it: who leads, since when, and what the leader wrote on it. */
export const OperatorLeaseInfo = z.object({
  namespace: z.string(),
  name: z.string(),
  holder: z.string().optional(),
  /** Renewed within its duration (judged by this machine's clock). */
  held: z.boolean(),
  acquireTime: z.string().optional(),
  renewTime: z.string().optional(),
  leaseDurationSeconds: z.number().int().optional(),
  /** Times the lease changed hands. */
  transitions: z.number().int(),
  /** Renewals by the current holder since it acquired the lease. */
  renewals: z.number().int().optional(),
  /** Namespaces the operator reconciles; absent: all. */
  scope: z.array(z.string()).optional(),
  version: z.string().optional(),
  lastReconcile: z.string().optional(),
  /** Keys whose last reconcile failed, waiting for a retry. */
  failingKeys: z.number().int().optional(),
});
export type OperatorLeaseInfo = z.infer<typeof OperatorLeaseInfo>;

export const OperatorDeploymentInfo = z.object({
  namespace: z.string(),
  name: z.string(),
  replicas: z.number().int(),
  readyReplicas: z.number().int(),
  image: z.string().optional(),
});
export type OperatorDeploymentInfo = z.infer<typeof OperatorDeploymentInfo>;

export const OperatorEventInfo = z.object({
  namespace: z.string(),
  type: z.string(),
  reason: z.string(),
  note: z.string(),
  /** The object the event is about, e.g. `LanguageTool tools/search`. */
  regarding: z.string(),
  /** The replica that reported it. */
  instance: z.string().optional(),
  /** RFC 3339: when it last happened. */
  time: z.string(),
  count: z.number().int(),
});
export type OperatorEventInfo = z.infer<typeof OperatorEventInfo>;

/** The in-cluster operator seen from the console: its Leases, its Deployment and its recent Events. */
export const OperatorStatus = z.object({
  leases: z.array(OperatorLeaseInfo),
  deployments: z.array(OperatorDeploymentInfo),
  /** Newest first. */
  events: z.array(OperatorEventInfo),
  /** What could not be read (e.g. listing Leases is forbidden) and what is wrong (an expired lease). */
  problems: z.array(z.string()),
});
export type OperatorStatus = z.infer<typeof OperatorStatus>;

/** One agent's traffic on one gateway replica, from the replica's /metrics (counts since it started). */
export const GatewayAgentTraffic = z.object({
  agent: z.string(),
  calls: z.number(),
  errors: z.number(),
  /** Calls waiting for a person's approval now. */
  held: z.number(),
  /** Held calls that were approved and ran. */
  approved: z.number(),
  /** Held calls whose approval ended otherwise (denied, expired, canceled, bound to other arguments): they did not run. */
  refused: z.number(),
  rateLimited: z.number(),
});
export type GatewayAgentTraffic = z.infer<typeof GatewayAgentTraffic>;

/** One pod of the gateway Deployment and what its /metrics said, or why it could not be read. */
export const GatewayReplicaInfo = z.object({
  namespace: z.string(),
  pod: z.string(),
  ready: z.boolean(),
  /** The pod's phase (Running, Pending, …). */
  phase: z.string(),
  startedAt: z.string().optional(),
  /** Totals over its agents; absent when its metrics could not be read (see `problem`). */
  traffic: z.object({ calls: z.number(), errors: z.number(), held: z.number(), rateLimited: z.number() }).optional(),
  agents: z.array(GatewayAgentTraffic),
  /** Why its metrics could not be read (forbidden, unreachable, not running), in one sentence. */
  problem: z.string().optional(),
});
export type GatewayReplicaInfo = z.infer<typeof GatewayReplicaInfo>;

/** The gateway's replicas (`tooldeck kube install --gateway`) seen from the console: each one's traffic from its /metrics. */
export const GatewayReplicasStatus = z.object({
  deployments: z.array(OperatorDeploymentInfo),
  replicas: z.array(GatewayReplicaInfo),
  /** What could not be read at all (listing Deployments or Pods is forbidden). */
  problems: z.array(z.string()),
});
export type GatewayReplicasStatus = z.infer<typeof GatewayReplicasStatus>;
