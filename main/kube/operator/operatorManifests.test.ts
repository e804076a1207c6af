import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { crdManifests } from '../crds';
import { toolApprovalCrd } from '../toolApprovalCrd';
import { APPROVER_RULES, gatewayManifests, GATEWAY_RULES } from './gatewayManifests';
import { DEFAULT_OPERATOR_NAMESPACE, operatorManifests, type Manifest } from './operatorManifests';

const root = join(import.meta.dirname, '../../..');
const base = join(root, 'deploy/kustomize/base');
const chart = join(root, 'deploy/helm/tooldeck-operator');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
/** `UPDATE_DEPLOY=1 npx vitest run main/kube/operator/operatorManifests.test.ts` rewrites the generated files after a change. */
const update = process.env.UPDATE_DEPLOY === '1';

const readDocs = (file: string) =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => !!d);

const HEADER = '# Generated from main/kube/operator/operatorManifests.ts and main/kube/crds.ts; a test keeps them equal.\n';

/** The kustomize base's files and the objects each holds. */
function baseFiles(): Record<string, Manifest[]> {
  const objects = operatorManifests({ namespace: DEFAULT_OPERATOR_NAMESPACE, image: `tooldeck/operator:${version}` });
  const pick = (...kinds: string[]) => objects.filter((o) => kinds.includes(o.kind));
  return {
    'crds.yaml': crdManifests() as unknown as Manifest[],
    'namespace.yaml': pick('Namespace'),
    'rbac.yaml': pick('ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'),
    'deployment.yaml': pick('Deployment'),
    'pdb.yaml': pick('PodDisruptionBudget'),
    'service.yaml': pick('Service'),
  };
}

const toYaml = (docs: Manifest[], header = HEADER) => header + docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n');

const gatewayComponent = join(root, 'deploy/kustomize/gateway');
const GATEWAY_HEADER = '# Generated from main/kube/operator/gatewayManifests.ts and main/kube/toolApprovalCrd.ts; a test keeps them equal.\n';

/** The kustomize gateway component's files: what `tooldeck kube install --gateway` adds. */
function gatewayFiles(): Record<string, Manifest[]> {
  return {
    'toolapprovals-crd.yaml': [toolApprovalCrd() as unknown as Manifest],
    'gateway.yaml': gatewayManifests({ namespace: DEFAULT_OPERATOR_NAMESPACE, image: `tooldeck/operator:${version}` }),
  };
}

describe('operator manifests', () => {
  it('the kustomize base holds exactly the CRDs and the objects `tooldeck kube install` applies', () => {
    const files = baseFiles();
    if (update) {
      mkdirSync(base, { recursive: true });
      for (const [file, docs] of Object.entries(files)) writeFileSync(join(base, file), toYaml(docs));
      writeFileSync(join(chart, 'crds/crds.yaml'), toYaml(files['crds.yaml']!));
    }
    const kustomization = readDocs(join(base, 'kustomization.yaml'))[0] as unknown as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual(Object.keys(files).sort());
    for (const [file, docs] of Object.entries(files)) expect(readDocs(join(base, file)), file).toEqual(JSON.parse(JSON.stringify(docs)));
    expect(readDocs(join(chart, 'crds/crds.yaml'))).toEqual(JSON.parse(JSON.stringify(files['crds.yaml'])));
  });

  it('the kustomize gateway component holds exactly the objects `tooldeck kube install --gateway` adds', () => {
    const files = gatewayFiles();
    if (update) {
      mkdirSync(gatewayComponent, { recursive: true });
      for (const [file, docs] of Object.entries(files)) writeFileSync(join(gatewayComponent, file), toYaml(docs, GATEWAY_HEADER));
    }
    const kustomization = readDocs(join(gatewayComponent, 'kustomization.yaml'))[0] as unknown as { kind: string; resources: string[] };
    expect(kustomization.kind).toBe('Component');
    expect([...kustomization.resources].sort()).toEqual(Object.keys(files).sort());
    for (const [file, docs] of Object.entries(files)) expect(readDocs(join(gatewayComponent, file)), file).toEqual(JSON.parse(JSON.stringify(docs)));
  });

  it('the gateway may create, watch and delete ToolApprovals but never write their status; approvers may write only the status', () => {
    const objects = gatewayManifests({ namespace: 'ops', image: 'x', replicas: 3 });
    expect(GATEWAY_RULES.flatMap((r) => r.resources)).toEqual(['toolapprovals']);
    expect(GATEWAY_RULES.flatMap((r) => r.verbs)).not.toContain('update');
    expect(GATEWAY_RULES.flatMap((r) => r.verbs)).not.toContain('patch');
    expect(APPROVER_RULES).toContainEqual({ apiGroups: ['orloj.dev'], resources: ['toolapprovals/status'], verbs: ['get', 'patch', 'update'] });
    expect(APPROVER_RULES.filter((r) => r.verbs.some((v) => ['create', 'delete', 'patch', 'update'].includes(v))).flatMap((r) => r.resources)).toEqual(['toolapprovals/status']);
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { replicas: number; template: { spec: { serviceAccountName: string; containers: Array<{ command: string[]; args: string[] }> } } } };
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.serviceAccountName).toBe('tooldeck-gateway');
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      command: ['/nodejs/bin/node', '/app/bin/tooldeck.js', 'gateway'],
      // Agents address it by its Service's name: the Host check lets exactly those names through.
      args: expect.arrayContaining(['--in-cluster', '--allowed-host=tooldeck-gateway.ops.svc.cluster.local', '--allowed-host=tooldeck-gateway.ops']),
      // Alive from the start (/health); ready only once its sources' first sync is done (/ready).
      livenessProbe: { httpGet: { path: '/health', port: 'mcp' } },
      readinessProbe: { httpGet: { path: '/ready', port: 'mcp' } },
    });
    expect(objects.find((o) => o.kind === 'Service')).toMatchObject({ metadata: { name: 'tooldeck-gateway', namespace: 'ops' }, spec: { ports: [{ name: 'mcp', port: 7411 }, { name: 'metrics', port: 7412 }] } });
    // Metrics on a port of their own, named so readers (the console, a ServiceMonitor) find it by name.
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({ args: expect.arrayContaining(['--metrics-port=7412']), ports: [{ name: 'mcp', containerPort: 7411 }, { name: 'metrics', containerPort: 7412 }] });
  });

  it('grants nothing beyond what the reconcile paths use: secrets by name (get, create and delete, never list or watch), no wildcards, no cluster-wide leases', () => {
    const objects = operatorManifests({ namespace: 'ops', image: 'x', clusterWide: true });
    const clusterRole = objects.find((o) => o.kind === 'ClusterRole') as unknown as { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> };
    expect(clusterRole.rules.filter((r) => r.resources.includes('secrets'))).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'delete'] }]);
    expect(clusterRole.rules.flatMap((r) => r.resources)).not.toContain('leases');
    expect(clusterRole.rules.flatMap((r) => [...r.apiGroups, ...r.resources, ...r.verbs])).not.toContain('*');
    const role = objects.find((o) => o.kind === 'Role') as unknown as { metadata: { namespace: string }; rules: Array<{ resources: string[] }> };
    expect(role.metadata.namespace).toBe('ops');
    expect(role.rules.flatMap((r) => r.resources)).toEqual(['leases']);
  });

  it('with the gateway, the operator sends opted-in agents to it and may read namespace labels; the gateway reads LanguageAgents of the agent namespaces and never Secrets', () => {
    const objects = gatewayManifests({ namespace: 'ops', image: 'x', agentNamespaces: ['team-a', 'team-b'] });
    const rbac = objects.filter((o) => o.apiVersion.startsWith('rbac.')).map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    expect(rbac).toEqual([
      'Role ops/tooldeck-gateway',
      'RoleBinding ops/tooldeck-gateway',
      'Role ops/tooldeck-approver',
      'Role team-a/tooldeck-gateway-agents',
      'RoleBinding team-a/tooldeck-gateway-agents',
      'Role team-b/tooldeck-gateway-agents',
      'RoleBinding team-b/tooldeck-gateway-agents',
      'ClusterRole /tooldeck-operator-gateway',
      'ClusterRoleBinding /tooldeck-operator-gateway',
    ]);
    const rules = objects.flatMap((o) => ((o as { rules?: Array<{ resources: string[]; verbs: string[] }> }).rules ?? []).map((r) => ({ ...r, role: `${o.kind} ${o.metadata.name}` })));
    expect(rules.filter((r) => r.resources.includes('secrets'))).toEqual([]);
    expect(objects.find((o) => o.kind === 'ClusterRole')).toMatchObject({ rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }] });
    expect(objects.find((o) => o.kind === 'ClusterRoleBinding')).toMatchObject({ subjects: [{ kind: 'ServiceAccount', name: 'tooldeck-operator', namespace: 'ops' }] });
    const gatewayArgs = (objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } }).spec.template.spec.containers[0]!.args;
    expect(gatewayArgs).toEqual(expect.arrayContaining(['--agent-namespace=team-a', '--agent-namespace=team-b']));
    const operatorArgs = (operatorManifests({ namespace: 'ops', image: 'x', gateway: { replicas: 2 } }).find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } }).spec.template.spec.containers[0]!.args;
    expect(operatorArgs).toEqual(['--listen=0.0.0.0:8080', '--watch-namespaces=ops', '--gateway-namespace=ops']);
  });

  it('by default grants Roles in the watched namespaces only, and the operator watches exactly those; a ClusterRole only with clusterWide', () => {
    const rbac = (objects: Manifest[]) => objects.filter((o) => o.apiVersion.startsWith('rbac.')).map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    const args = (objects: Manifest[]) => (objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } }).spec.template.spec.containers[0]!.args;

    const watched = operatorManifests({ namespace: 'ops', image: 'x', watchNamespaces: ['team-a', 'team-b'] });
    expect(rbac(watched)).toEqual([
      'Role team-a/tooldeck-operator',
      'RoleBinding team-a/tooldeck-operator',
      'Role team-b/tooldeck-operator',
      'RoleBinding team-b/tooldeck-operator',
      'Role ops/tooldeck-operator-leader-election',
      'RoleBinding ops/tooldeck-operator-leader-election',
    ]);
    expect(watched.find((o) => o.kind === 'RoleBinding' && o.metadata.namespace === 'team-a')).toMatchObject({ subjects: [{ kind: 'ServiceAccount', name: 'tooldeck-operator', namespace: 'ops' }] });
    expect(args(watched)).toEqual(['--listen=0.0.0.0:8080', '--watch-namespaces=team-a,team-b']);

    const byDefault = operatorManifests({ namespace: 'ops', image: 'x' });
    expect(rbac(byDefault)).toEqual(['Role ops/tooldeck-operator', 'RoleBinding ops/tooldeck-operator', 'Role ops/tooldeck-operator-leader-election', 'RoleBinding ops/tooldeck-operator-leader-election']);
    expect(args(byDefault)).toEqual(['--listen=0.0.0.0:8080', '--watch-namespaces=ops']);

    const clusterWide = operatorManifests({ namespace: 'ops', image: 'x', clusterWide: true });
    expect(rbac(clusterWide)).toEqual(['ClusterRole /tooldeck-operator', 'ClusterRoleBinding /tooldeck-operator', 'Role ops/tooldeck-operator-leader-election', 'RoleBinding ops/tooldeck-operator-leader-election']);
    expect(args(clusterWide)).toEqual(['--listen=0.0.0.0:8080']);
  });

  it('runs two non-root replicas with probes, resource requests and a disruption budget', () => {
    const objects = operatorManifests({ namespace: 'ops', image: 'registry.example/tooldeck/operator:1.2.3', replicas: 2 });
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { replicas: number; template: { spec: { securityContext: { runAsNonRoot: boolean }; containers: Array<Record<string, unknown>> } } };
    };
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      image: 'registry.example/tooldeck/operator:1.2.3',
      args: ['--listen=0.0.0.0:8080', '--watch-namespaces=ops'],
      livenessProbe: { httpGet: { path: '/healthz' } },
      readinessProbe: { httpGet: { path: '/readyz' } },
      resources: { requests: { cpu: '100m', memory: '128Mi' } },
    });
    expect(objects.find((o) => o.kind === 'PodDisruptionBudget')).toMatchObject({ spec: { minAvailable: 1 } });
  });
});
