import { LANGOP_GROUP } from '../../../shared/kube';
import { OPERATOR_COMPONENT } from './operatorLease';

export interface OperatorManifestOptions {
  /** Where the operator runs (its Deployment, ServiceAccount and Lease). */
  namespace: string;
  image: string;
  replicas?: number;
  /**
   * The namespaces the operator reconciles, each granted by a Role of its own; the operator is
   * started with --watch-namespaces for exactly these. Default: the operator's own namespace.
   */
  watchNamespaces?: string[];
  /** Reconcile every namespace: one ClusterRole that writes Deployments, Services and ConfigMaps everywhere. Only when asked. */
  clusterWide?: boolean;
  /** The gateway runs in the operator's namespace (`--gateway`): opted-in agents are sent to it (`--gateway-namespace`). */
  gateway?: { replicas?: number };
}

export const DEFAULT_OPERATOR_NAMESPACE = 'tooldeck-system';
export const OPERATOR_PORT = 8080;

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

const labels = { 'app.kubernetes.io/name': OPERATOR_COMPONENT, 'app.kubernetes.io/part-of': 'tooldeck' };
const selector = { 'app.kubernetes.io/name': OPERATOR_COMPONENT };

/**
 * What the operator may do, and nothing more, in each namespace it reconciles (a Role there, or a
 * ClusterRole when installed cluster-wide). Every rule is used by a reconcile path:
 * - LanguageTools/LanguageAgents: watched; finalizers set and cleared with patches; status written.
 *   `languagetools/finalizers` lets owner references block deletion where the
 *   OwnerReferencesPermissionEnforcement admission plugin is on.
 * - Deployments and Services: created and updated with server-side apply, deleted when a tool
 *   switches to sidecar mode; ConfigMaps: agents' config.yaml (created and merge-patched).
 * - services/proxy: tools/list through the Service; pods + pods/proxy: the same for sidecar tools,
 *   which have no Service (a running agent pod is looked up, then reached through its proxy).
 * - Secrets: `get`, read as metadata (PartialObjectMetadata): whether a Secret a LanguageTool
 *   names in secretKeyRef carries tooldeck.dev/allow-tool-secrets, and whether an agent's gateway
 *   credential Secret is there; `create` and `delete` for those credential Secrets (issued to
 *   opted-in agents, removed on opt-out). No list or watch: their values are never listed.
 * - Events: reconcile outcomes. Leases are granted by a Role in the operator's own namespace only.
 */
export const OPERATOR_RULES = [
  { apiGroups: [LANGOP_GROUP], resources: ['languagetools', 'languageagents'], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
  { apiGroups: [LANGOP_GROUP], resources: ['languagetools/status', 'languageagents/status'], verbs: ['get', 'patch', 'update'] },
  { apiGroups: [LANGOP_GROUP], resources: ['languagetools/finalizers'], verbs: ['update'] },
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'] },
  { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'update'] },
  { apiGroups: [''], resources: ['services/proxy', 'pods/proxy'], verbs: ['get', 'create'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'delete'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

export const OPERATOR_LEASE_RULES = [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update'] }];

/**
 * The operator's objects, in apply order: the one home of these manifests. `deploy/kustomize/base`
 * and the Helm chart in `deploy/helm/tooldeck-operator` are kept equal to them by tests.
 */
export function operatorManifests({ namespace, image, replicas = 2, watchNamespaces, clusterWide = false, gateway }: OperatorManifestOptions): Manifest[] {
  const name = OPERATOR_COMPONENT;
  const watched = clusterWide ? [] : [...new Set(watchNamespaces?.length ? watchNamespaces : [namespace])];
  const subjects = [{ kind: 'ServiceAccount', name, namespace }];
  const grants: Manifest[] = clusterWide
    ? [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules: OPERATOR_RULES },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name, labels }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects },
      ]
    : watched.flatMap((ns): Manifest[] => [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns, labels }, rules: OPERATOR_RULES },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name, namespace: ns, labels }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects },
      ]);
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels }, automountServiceAccountToken: true },
    ...grants,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: `${name}-leader-election`, namespace, labels }, rules: OPERATOR_LEASE_RULES },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}-leader-election`, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${name}-leader-election` },
      subjects,
    },
    hardenedDeployment({
      name,
      namespace,
      labels,
      selector,
      replicas,
      container: {
        name: 'operator',
        image,
        // The image's entrypoint is `tooldeck operator`; probes reach the pod IP, so not only loopback.
        // With Roles per namespace it may reconcile only those: it watches exactly them.
        args: [`--listen=0.0.0.0:${OPERATOR_PORT}`, ...(watched.length ? [`--watch-namespaces=${watched.join(',')}`] : []), ...(gateway ? [`--gateway-namespace=${namespace}`] : [])],
        env: [
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        ],
        ports: [{ name: 'http', containerPort: OPERATOR_PORT, protocol: 'TCP' }],
        livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10, failureThreshold: 3 },
        readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 5, failureThreshold: 2 },
      },
    }),
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace, labels }, spec: { minAvailable: 1, selector: { matchLabels: selector } } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${name}-metrics`, namespace, labels },
      spec: { selector, ports: [{ name: 'http', port: OPERATOR_PORT, targetPort: 'http', protocol: 'TCP' }] },
    },
  ];
}

/**
 * A Deployment of Tooldeck's image as the operator and the gateway both run it: non-root with the
 * runtime's seccomp profile, a read-only root filesystem and no capabilities, replicas spread over
 * nodes, 30 s to finish what is in flight after SIGTERM, and a writable /tmp (plus `emptyDirs`).
 */
export function hardenedDeployment({ name, namespace, labels, selector, replicas, container, emptyDirs = [] }: { name: string; namespace: string; labels: Record<string, string>; selector: Record<string, string>; replicas: number; container: Record<string, unknown>; emptyDirs?: { name: string; mountPath: string }[] }): Manifest {
  const mounts = [{ name: 'tmp', mountPath: '/tmp' }, ...emptyDirs];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: name,
          terminationGracePeriodSeconds: 30,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selector } } }],
            },
          },
          containers: [
            {
              ...container,
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              volumeMounts: mounts,
            },
          ],
          volumes: mounts.map(({ name: volume }) => ({ name: volume, emptyDir: {} })),
        },
      },
    },
  };
}
