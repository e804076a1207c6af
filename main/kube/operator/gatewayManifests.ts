import { DEFAULT_GATEWAY_METRICS_PORT, DEFAULT_GATEWAY_PORT } from '../../../shared/gateway';
import { LANGOP_GROUP } from '../../../shared/kube';
import { ORLOJ_GROUP, TOOL_APPROVALS_PLURAL } from '../toolApprovalCrd';
import { OPERATOR_COMPONENT } from './operatorLease';
import { hardenedDeployment, type Manifest } from './operatorManifests';

export const GATEWAY_COMPONENT = 'tooldeck-gateway';
/** The Role a cluster admin binds to the people who decide approvals (`kubectl create rolebinding … --role tooldeck-approver --user alice`). */
export const APPROVER_ROLE = 'tooldeck-approver';

/** The key of the history Secret that holds the PostgreSQL URL (`--history-postgres-secret`). */
export const HISTORY_SECRET_KEY = 'url';

export interface GatewayManifestOptions {
  namespace: string;
  /** The operator's image: it runs `tooldeck gateway --in-cluster` instead of the operator. */
  image: string;
  replicas?: number;
  /**
   * The namespaces whose Language Operator agents may use the gateway (each a Role reading its
   * LanguageAgents, and a `--agent-namespace` argument); default: the gateway's own namespace.
   * `kube install` passes the operator's watched namespaces.
   */
  agentNamespaces?: string[];
  /**
   * A Secret in the gateway's namespace whose `url` key is a postgres:// URL: every replica then
   * records into that PostgreSQL (TOOLDECK_HISTORY_URL) instead of its own emptyDir.
   */
  historyPostgresSecret?: string;
}

export const GATEWAY_AGENTS_ROLE = `${GATEWAY_COMPONENT}-agents`;
/** The ClusterRole that lets the operator read namespaces' labels (`tooldeck.dev/gateway: enabled` opts in a namespace's agents). */
export const OPERATOR_GATEWAY_ROLE = `${OPERATOR_COMPONENT}-gateway`;

/**
 * What the gateway may read of the agents of a namespace: their LanguageAgents (the credential's
 * SHA-256 the operator annotates, and `spec.tools`), the namespace's LanguageTools (its MCP sources,
 * at the endpoint the operator publishes) and Orloj ToolPermissions (more grants, and the policy for
 * their calls). No Secrets: the gateway never sees a credential.
 */
export const GATEWAY_AGENT_RULES = [
  { apiGroups: [LANGOP_GROUP], resources: ['languageagents', 'languagetools'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [ORLOJ_GROUP], resources: ['toolpermissions'], verbs: ['get', 'list', 'watch'] },
];

/** What the operator needs besides its Roles once agents may use the gateway: namespaces' labels, read only. */
export const OPERATOR_GATEWAY_RULES = [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }];

/**
 * What a gateway replica may do with approvals: create the ToolApproval of a call it holds, watch
 * them all (any replica's call may be decided while another holds it), and delete the ones that
 * ended (expired, canceled, or old decided ones). Never `toolapprovals/status`: a gateway, or
 * whoever takes one over, cannot approve the calls it holds.
 */
export const GATEWAY_RULES = [{ apiGroups: [ORLOJ_GROUP], resources: [TOOL_APPROVALS_PLURAL], verbs: ['get', 'list', 'watch', 'create', 'delete'] }];

/** What a person who decides approvals needs: read them, and write the status subresource (the decision). Nothing else. */
export const APPROVER_RULES = [
  { apiGroups: [ORLOJ_GROUP], resources: [TOOL_APPROVALS_PLURAL], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [ORLOJ_GROUP], resources: [`${TOOL_APPROVALS_PLURAL}/status`], verbs: ['get', 'patch', 'update'] },
];

/** The DNS names of a Service as pods resolve them. */
export function serviceNames(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}

const labels = { 'app.kubernetes.io/name': GATEWAY_COMPONENT, 'app.kubernetes.io/part-of': 'tooldeck' };
const selector = { 'app.kubernetes.io/name': GATEWAY_COMPONENT };

/**
 * The gateway's objects for `tooldeck kube install --gateway`, in apply order (the ToolApproval CRD
 * is applied before them): ServiceAccount, its Role and RoleBinding, the approvers' Role, the
 * Deployment and its Service. The one home of these manifests; deploy/ is kept equal to them by tests.
 */
export function gatewayManifests({ namespace, image, replicas = 2, agentNamespaces, historyPostgresSecret }: GatewayManifestOptions): Manifest[] {
  const name = GATEWAY_COMPONENT;
  const port = DEFAULT_GATEWAY_PORT;
  const metricsPort = DEFAULT_GATEWAY_METRICS_PORT;
  const agentsIn = [...new Set(agentNamespaces?.length ? agentNamespaces : [namespace])];
  const agentGrants = agentsIn.flatMap((ns): Manifest[] => [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: GATEWAY_AGENTS_ROLE, namespace: ns, labels }, rules: GATEWAY_AGENT_RULES },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: GATEWAY_AGENTS_ROLE, namespace: ns, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: GATEWAY_AGENTS_ROLE },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  ]);
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels }, automountServiceAccountToken: true },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace, labels }, rules: GATEWAY_RULES },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: APPROVER_ROLE, namespace, labels }, rules: APPROVER_RULES },
    ...agentGrants,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: OPERATOR_GATEWAY_ROLE, labels }, rules: OPERATOR_GATEWAY_RULES },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: OPERATOR_GATEWAY_ROLE, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: OPERATOR_GATEWAY_ROLE },
      subjects: [{ kind: 'ServiceAccount', name: OPERATOR_COMPONENT, namespace }],
    },
    hardenedDeployment({
      name,
      namespace,
      labels,
      selector,
      replicas,
      container: {
        name: 'gateway',
        image,
        // The image's entrypoint is the operator; the same build runs the gateway.
        command: ['/nodejs/bin/node', '/app/bin/tooldeck.js', 'gateway'],
        // Agents reach it through the Service, so it binds the pod IP; agent credentials are the
        // guard. The Host check (DNS rebinding) accepts addresses and the Service's own names.
        // /metrics on a port of its own that asks no credential and serves nothing else: the
        // console reads each replica's traffic there through the API server's pod proxy.
        args: ['--in-cluster', '--host=0.0.0.0', '--dangerously-bind-all', `--port=${port}`, `--metrics-port=${metricsPort}`, ...serviceNames(name, namespace).map((host) => `--allowed-host=${host}`), ...agentsIn.map((ns) => `--agent-namespace=${ns}`)],
        env: [
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'TOOLDECK_DATA_DIR', value: '/data' },
          // Every replica writes one shared history; the URL (with its password) stays in the Secret, off the command line.
          ...(historyPostgresSecret ? [{ name: 'TOOLDECK_HISTORY_URL', valueFrom: { secretKeyRef: { name: historyPostgresSecret, key: HISTORY_SECRET_KEY } } }] : []),
        ],
        ports: [
          { name: 'mcp', containerPort: port, protocol: 'TCP' },
          { name: 'metrics', containerPort: metricsPort, protocol: 'TCP' },
        ],
        livenessProbe: { httpGet: { path: '/health', port: 'mcp' }, periodSeconds: 10, failureThreshold: 3 },
        // Ready once its sources' first sync is done (or its bound passed): a replica that would list an agent no tools takes no traffic.
        readinessProbe: { httpGet: { path: '/ready', port: 'mcp' }, periodSeconds: 5, failureThreshold: 2 },
      },
      // SIGTERM ends held calls (fail closed) and closes sessions, well within the grace period.
      emptyDirs: [{ name: 'data', mountPath: '/data' }],
    }),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace, labels },
      spec: {
        selector,
        ports: [
          { name: 'mcp', port, targetPort: 'mcp', protocol: 'TCP' },
          { name: 'metrics', port: metricsPort, targetPort: 'metrics', protocol: 'TCP' },
        ],
      },
    },
  ];
}
