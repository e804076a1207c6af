import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../app/cli/program';
import { crdManifests } from '../../main/kube/crds';
import { isKubeApiError } from '../../main/kube/KubeApiError';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { KubeSession } from '../../main/kube/KubeSession';
import { silentLogger } from '../../main/platform/Logger';
import { CONTENT_TYPE, type KubeRest } from '../../main/kube/KubeRest';
import type { LeaseObject } from '../../main/kube/leaderelection/LeaseLock';
import { OPERATOR_RULES, operatorManifests, type Manifest } from '../../main/kube/operator/operatorManifests';
import { ensureHelm, runHelm } from '../helm/helm.mjs';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { cliPath } from '../support/tooldeckServer';
import { agentsPath, createNamespace, eventually, getOrUndefined, markDeploymentReady, toolsPath, type DeploymentView } from './clusterFixtures';
import { startOperator, total, waitUntilSteady, type OperatorProcess } from './OperatorProcess';

const SYSTEM = 'tooldeck-system';
const NS = 'tools';
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${SYSTEM}/leases/tooldeck-operator`;
const repo = join(import.meta.dirname, '../..');
/** Short enough to fail over quickly in a test, long enough that a loaded machine keeps the bound. */
const FAST = { leaseMs: 6_000, renewMs: 4_000, retryMs: 3_000 };
const FAST_ARGS = ['--lease-duration', '6s', '--renew-deadline', '4s', '--retry-period', '3s'];

const skipReason = existsSync(cliPath) ? undefined : `${cliPath} is missing: run npx electron-vite build first`;
if (skipReason) console.warn(`Skipping the operator suite: ${skipReason}`);

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

const objectsOf = (yaml: string) =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => !!d);
const key = (o: Manifest) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byKey = (objects: Manifest[]) => Object.fromEntries(objects.map((o) => [key(o), o]));

/** Server-side apply with dryRun=All: the apiserver validates (schema, RBAC escalation, admission) and stores nothing. */
async function dryRunApply(rest: KubeRest, object: Manifest) {
  const plural: Record<string, string> = {
    CustomResourceDefinition: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    Namespace: '/api/v1/namespaces',
    ClusterRole: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    ClusterRoleBinding: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  };
  const group = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
  const path =
    plural[object.kind] ??
    `${group}/namespaces/${object.metadata.namespace}/${object.kind === 'PodDisruptionBudget' ? 'poddisruptionbudgets' : `${object.kind.toLowerCase()}s`}`;
  await rest.request('PATCH', `${path}/${object.metadata.name}`, { body: object, contentType: CONTENT_TYPE.apply, query: { fieldManager: 'manifest-check', dryRun: 'All', force: true } });
}

describe.skipIf(!!skipReason)('tooldeck operator on a real kube-apiserver', { timeout: 180_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;
  let saKubeconfig: string;
  let sa: KubeConnection;
  const operators: OperatorProcess[] = [];

  const lease = () => admin.rest.request<LeaseObject>('GET', LEASE);
  const holder = async () => (await getOrUndefined<LeaseObject>(admin.rest, LEASE))?.spec.holderIdentity || undefined;
  const launch = async (name: string, args = FAST_ARGS) => {
    const op = await startOperator({ name, kubeconfig: saKubeconfig, leaseNamespace: SYSTEM, args });
    operators.push(op);
    return op;
  };
  const createTool = (name: string, spec: Record<string, unknown> = {}) =>
    admin.rest.request('POST', toolsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name, namespace: NS }, spec: { image: `tooldeck.test/${name}:1`, ...spec } } });
  const converged = (name: string) =>
    eventually(async () => {
      const tool = await getOrUndefined<{ status?: { endpoint?: string; observedGeneration?: number } }>(admin.rest, `${toolsPath(NS)}/${name}`);
      const dep = await getOrUndefined(admin.rest, `/apis/apps/v1/namespaces/${NS}/deployments/${name}`);
      const svc = await getOrUndefined(admin.rest, `/api/v1/namespaces/${NS}/services/${name}`);
      return !!tool?.status?.endpoint && !!dep && !!svc;
    }, `LanguageTool ${name} reconciled`);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-operator-e2e-'));
    testbed = await startTestbed({ dataDir: join(tmp, 'data'), stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await createNamespace(admin.rest, NS);
    // A cold build of helm takes a minute or two: here, not inside a test's time.
    await ensureHelm({ log: () => {} });
  }, 600_000);

  afterAll(async () => {
    for (const op of operators) op.process.kill('SIGKILL');
    sa?.close();
    admin?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('kube install --dry-run prints what it would create and writes nothing; install applies; a second install changes nothing', async () => {
    // Left at the default, the image is one no registry has: the plan still shows it, and a warning says how to build, push and pass one.
    const unpublished = await cli(['kube', 'install', '--cluster-wide', '--kubeconfig', testbed.kubeconfigPath, '--dry-run']);
    expect(unpublished.code, unpublished.stderr).toBe(0);
    expect(unpublished.stdout).toMatch(/^\+ +image: tooldeck\/operator:0\.1\.0$/m);
    expect(unpublished.stderr).toBe(
      "Warning: the default operator image tooldeck/operator:0.1.0 is not published to any registry, so the operator's pods cannot pull it. Build it from the repository's Dockerfile and push it where the cluster pulls from, then pass it with --image:\n" +
        '  docker build -t registry.example/tooldeck/operator:0.1.0 . && docker push registry.example/tooldeck/operator:0.1.0\n' +
        '  tooldeck kube install --image registry.example/tooldeck/operator:0.1.0\n',
    );
    const dry = await cli(['kube', 'install', '--cluster-wide', '--kubeconfig', testbed.kubeconfigPath, '--dry-run', '--image', 'tooldeck/operator:test']);
    expect(dry.code, dry.stderr).toBe(0);
    // Named with --image, the image is one the user built and pushed: no warning.
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toContain('--- CustomResourceDefinition languagetools.langop.io: would be created');
    expect(dry.stdout).toContain('--- ClusterRole tooldeck-operator: would be created');
    expect(dry.stdout).toMatch(/--- Deployment tooldeck-system\/tooldeck-operator: would be created \(not validated by the server: namespace tooldeck-system does not exist yet\)/);
    expect(dry.stdout).toMatch(/^\+ +image: tooldeck\/operator:test$/m);
    expect(dry.stdout).toContain('nothing was written');
    expect(await getOrUndefined(admin.rest, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/languagetools.langop.io')).toBeUndefined();
    expect(await getOrUndefined(admin.rest, `/api/v1/namespaces/${SYSTEM}`)).toBeUndefined();

    const install = await cli(['kube', 'install', '--cluster-wide', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:test']);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toMatch(/^created\s+CustomResourceDefinition languagetools\.langop\.io$/m);
    expect(install.stdout).toMatch(/^created\s+PodDisruptionBudget tooldeck-system\/tooldeck-operator$/m);

    const again = await cli(['kube', 'install', '--cluster-wide', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:test', '--dry-run']);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('would be');
    const changed = await cli(['kube', 'install', '--cluster-wide', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:2', '--dry-run']);
    expect(changed.stdout).toContain('--- Deployment tooldeck-system/tooldeck-operator: would be configured');
    expect(changed.stdout).toMatch(/^- +image: tooldeck\/operator:test$/m);
    expect(changed.stdout).toMatch(/^\+ +image: tooldeck\/operator:2$/m);

    // Someone else scaled the Deployment with server-side apply: install names them and changes nothing until --force.
    const deployment = `/apis/apps/v1/namespaces/${SYSTEM}/deployments/tooldeck-operator`;
    await admin.rest.request('PATCH', deployment, {
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: 'platform-team', force: true },
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'tooldeck-operator', namespace: SYSTEM }, spec: { replicas: 3 } },
    });
    const conflict = await cli(['kube', 'install', '--cluster-wide', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:test']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('Deployment tooldeck-system/tooldeck-operator: fields are owned by platform-team; rerun with --force to take them over');
    expect((await admin.rest.request<{ spec: { replicas: number } }>('GET', deployment)).spec.replicas).toBe(3);
    const forced = await cli(['kube', 'install', '--cluster-wide', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:test', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/^configured\s+Deployment tooldeck-system\/tooldeck-operator$/m);
    expect((await admin.rest.request<{ spec: { replicas: number } }>('GET', deployment)).spec.replicas).toBe(2);
  });

  it('the kustomize base and the Helm chart pass a server-side dry run, and helm renders what kube install applies', async () => {
    const baseDir = join(repo, 'deploy/kustomize/base');
    const kustomization = objectsOf(readFileSync(join(baseDir, 'kustomization.yaml'), 'utf8'))[0] as unknown as { resources: string[] };
    const base = kustomization.resources.flatMap((file) => objectsOf(readFileSync(join(baseDir, file), 'utf8')));
    for (const object of base) await dryRunApply(admin.rest, object);

    const chart = join(repo, 'deploy/helm/tooldeck-operator');
    await runHelm(['lint', chart, '--strict'], { log: () => {} });
    const rendered = objectsOf(await runHelm(['template', 'tooldeck-operator', chart, '--namespace', SYSTEM, '--include-crds'], { log: () => {} }));
    const expected = [...(crdManifests() as unknown as Manifest[]), ...operatorManifests({ namespace: SYSTEM, image: 'tooldeck/operator:0.1.0' }).filter((o) => o.kind !== 'Namespace')];
    expect(byKey(rendered)).toEqual(JSON.parse(JSON.stringify(byKey(expected))));

    await createNamespace(admin.rest, 'ops');
    const custom = objectsOf(
      await runHelm(['template', 'tooldeck-operator', chart, '--namespace', 'ops', '--set', 'image.repository=registry.test/tooldeck', '--set', 'image.tag=9.9.9', '--set', 'replicaCount=3'], { log: () => {} }),
    );
    const expectedCustom = operatorManifests({ namespace: 'ops', image: 'registry.test/tooldeck:9.9.9', replicas: 3 }).filter((o) => o.kind !== 'Namespace');
    expect(byKey(custom)).toEqual(JSON.parse(JSON.stringify(byKey(expectedCustom))));
    for (const object of custom.filter((o) => o.metadata.namespace === 'ops')) await dryRunApply(admin.rest, object);

    // The chart's scopes are those of kube install --watch-namespaces and --cluster-wide.
    const watched = objectsOf(await runHelm(['template', 'tooldeck-operator', chart, '--namespace', 'ops', '--set', 'watchNamespaces={team-a,team-b}'], { log: () => {} }));
    expect(byKey(watched)).toEqual(JSON.parse(JSON.stringify(byKey(operatorManifests({ namespace: 'ops', image: 'tooldeck/operator:0.1.0', watchNamespaces: ['team-a', 'team-b'] }).filter((o) => o.kind !== 'Namespace')))));
    const clusterWide = objectsOf(await runHelm(['template', 'tooldeck-operator', chart, '--namespace', 'ops', '--set', 'clusterWide=true'], { log: () => {} }));
    expect(byKey(clusterWide)).toEqual(JSON.parse(JSON.stringify(byKey(operatorManifests({ namespace: 'ops', image: 'tooldeck/operator:0.1.0', clusterWide: true }).filter((o) => o.kind !== 'Namespace')))));
  });

  it('the ServiceAccount may do what every reconcile path needs, and a request outside its role fails with a clear error', async () => {
    saKubeconfig = join(tmp, 'operator-kubeconfig');
    const account = await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'tooldeck-operator', path: saKubeconfig });
    expect(account.user).toBe('system:serviceaccount:tooldeck-system:tooldeck-operator');
    sa = connectKube({ kubeconfig: saKubeconfig });
    const allowed = async (group: string, resource: string, verb: string, namespace?: string) => {
      const [res, subresource] = resource.split('/');
      const review = await sa.rest.request<{ status: { allowed: boolean } }>('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { group, resource: res, subresource, verb, namespace } } },
      });
      return review.status.allowed;
    };
    for (const rule of OPERATOR_RULES) {
      for (const group of rule.apiGroups) for (const resource of rule.resources) for (const verb of rule.verbs) expect(await allowed(group, resource, verb, NS), `${verb} ${group}/${resource}`).toBe(true);
    }
    for (const verb of ['get', 'list', 'watch', 'create', 'update']) expect(await allowed('coordination.k8s.io', 'leases', verb, SYSTEM), `${verb} leases`).toBe(true);
    expect(await allowed('coordination.k8s.io', 'leases', 'update', NS)).toBe(false);
    // Secrets: `get` only (a Secret's labels, read as metadata, for secretKeyRef), never list or watch.
    expect(await allowed('', 'secrets', 'list', NS)).toBe(false);
    expect(await allowed('', 'secrets', 'watch', NS)).toBe(false);
    expect(await allowed('apps', 'deployments', 'deletecollection', NS)).toBe(false);

    const forbidden = await sa.rest.request('GET', `/api/v1/namespaces/${NS}/secrets`).catch((error: unknown) => error);
    expect(isKubeApiError(forbidden) && forbidden.status).toBe(403);
    expect((forbidden as Error).message).toBe('secrets is forbidden: User "system:serviceaccount:tooldeck-system:tooldeck-operator" cannot list resource "secrets" in API group "" in the namespace "tools"');
  });

  it('of two operators exactly one holds the Lease and reconciles; Events record the outcomes; the console refuses to reconcile alongside', async () => {
    const a = await launch('operator-a');
    const b = await launch('operator-b');
    await eventually(async () => (await a.readyz()) === 200 && (await b.readyz()) === 200, 'both operators ready');
    const leader = await eventually(holder, 'a lease holder');
    const [lead, follow] = leader === 'operator-a' ? [a, b] : [b, a];
    expect(total(await lead.metrics(), 'leader_election_master_status')).toBe(1);
    expect(total(await follow.metrics(), 'leader_election_master_status')).toBe(0);

    await createTool('search');
    // The agent's own workload, and a sidecar tool: the operator adds the sidecar to that Deployment
    // and, once it is available, looks for a running pod of it (pods list) to discover through.
    const labels = { app: 'researcher' };
    await admin.rest.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      // Labelled for the agent by the Deployment's owner: the operator may put the agent's sidecars into it.
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'researcher', namespace: NS, labels: { 'tooldeck.dev/agent': 'researcher' } }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'agent', image: 'tooldeck.test/agent:1' }] } } } },
    });
    await createTool('calc', { deploymentMode: 'sidecar' });
    await admin.rest.request('POST', agentsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageAgent', metadata: { name: 'researcher', namespace: NS }, spec: { tools: [{ name: 'search' }, { name: 'calc' }] } } });
    await converged('search');
    await eventually(() => getOrUndefined(admin.rest, `/api/v1/namespaces/${NS}/configmaps/researcher-config`), 'the agent config');
    await eventually(async () => {
      const dep = await admin.rest.request<DeploymentView>('GET', `/apis/apps/v1/namespaces/${NS}/deployments/researcher`);
      return (dep.spec.template.spec.initContainers ?? []).some((c) => c.name === 'tool-calc');
    }, 'the sidecar in the agent Deployment');
    await markDeploymentReady(admin.rest, NS, 'researcher');
    await eventually(async () => {
      const calc = await admin.rest.request<{ status?: { conditions?: Array<{ type: string; message: string }> } }>('GET', `${toolsPath(NS)}/calc`);
      const message = calc.status?.conditions?.find((c) => c.type === 'Discovered')?.message ?? '';
      expect(message).not.toMatch(/forbidden/i);
      return /No running agent pod/.test(message);
    }, 'the sidecar discovery looking for a running agent pod');
    // Discovery goes through the service proxy, which the role allows: with no Endpoints behind the
    // Service the apiserver answers 404/503 — never 403.
    await markDeploymentReady(admin.rest, NS, 'search');
    const discovered = await eventually(async () => {
      const tool = await admin.rest.request<{ status: { conditions: Array<{ type: string; status: string; message: string }> } }>('GET', `${toolsPath(NS)}/search`);
      const condition = tool.status.conditions.find((c) => c.type === 'Discovered');
      return condition?.status === 'False' ? condition : undefined;
    }, 'a discovery attempt through the service proxy');
    expect(discovered.message).toMatch(/no endpoints available|services \\"search\\" not found/);
    expect(discovered.message).not.toMatch(/forbidden/i);
    const failing = await lead.metrics();
    expect(total(failing, 'controller_runtime_reconcile_errors_total')).toBeGreaterThan(0);
    expect(total(failing, 'workqueue_retries_total')).toBeGreaterThan(0);

    const followerMetrics = await follow.metrics();
    expect(total(followerMetrics, 'controller_runtime_reconcile_total')).toBe(0);
    expect(followerMetrics.get('tooldeck_operator_api_requests{type="writes"}')).toBe(0);

    const events = await eventually(async () => {
      const list = await admin.rest.request<{ items: Array<{ reason: string; type: string; note: string; reportingController: string; reportingInstance: string; regarding: { kind: string; name: string } }> }>(
        'GET',
        `/apis/events.k8s.io/v1/namespaces/${NS}/events`,
      );
      const about = list.items.filter((e) => e.regarding.kind === 'LanguageTool' && e.regarding.name === 'search');
      return about.some((e) => e.type === 'Warning') ? about : undefined;
    }, 'Events on the LanguageTool');
    expect(events.find((e) => e.reason === 'Reconciled')).toMatchObject({ type: 'Normal', reportingController: 'tooldeck.dev/tooldeck-operator', reportingInstance: lead.name });
    expect(events.find((e) => e.reason === 'Reconciled')!.note).toContain(`created Deployment ${NS}/search`);
    expect(events.find((e) => e.reason === 'ReconcileFailed')!.note).toMatch(/tools\/list for tools\/search failed/);

    // The console's window on it: the Cluster section reads this through kube.operator.
    const session = new KubeSession({ logger: silentLogger });
    try {
      await session.select({ kubeconfig: testbed.kubeconfigPath, context: 'kube-testbed' });
      const seen = await eventually(async () => {
        const status = await session.operator();
        return status.events.some((e) => e.type === 'Warning') && status.leases[0]?.lastReconcile ? status : undefined;
      }, 'the operator as the console sees it');
      expect(seen.leases).toEqual([
        expect.objectContaining({ namespace: SYSTEM, name: 'tooldeck-operator', holder: lead.name, held: true, leaseDurationSeconds: 6, transitions: 0, version: '0.1.0' }),
      ]);
      expect(seen.leases[0]!.renewals).toBeGreaterThanOrEqual(0);
      expect(seen.deployments).toEqual([{ namespace: SYSTEM, name: 'tooldeck-operator', replicas: 2, readyReplicas: 0, image: 'tooldeck/operator:test' }]);
      expect(seen.events[0]).toMatchObject({ namespace: NS, instance: lead.name });
      expect(seen.events.find((e) => e.reason === 'ReconcileFailed')).toMatchObject({ type: 'Warning', regarding: `LanguageTool ${NS}/search` });
    } finally {
      await session.close();
    }

    const refused = await cli(['kube', 'reconcile', '--once', '--kubeconfig', testbed.kubeconfigPath, '--namespace', NS]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Not reconciling namespace ${NS}: the in-cluster operator ${lead.name} holds the Lease ${SYSTEM}/tooldeck-operator`);
  });

  it('kill -9 the leader: the other takes over within lease duration + retry period, converges a tool created in the gap, duplicates nothing and then writes nothing', async () => {
    const leaderName = (await holder())!;
    const lead = operators.find((o) => o.name === leaderName)!;
    const follow = operators.find((o) => o.name !== leaderName && o.process.exitCode === null)!;
    const before = await lease();
    const killedAt = Date.now();
    lead.process.kill('SIGKILL');
    await lead.exited;
    await createTool('weather');

    const taken = await eventually(async () => {
      const l = await lease();
      return l.spec.holderIdentity === follow.name ? l : undefined;
    }, 'the follower holding the lease', 30_000);
    const takeoverMs = Date.parse(taken.spec.acquireTime!) - killedAt;
    console.log(`failover after kill -9: ${takeoverMs} ms (lease ${FAST.leaseMs} ms, retry ${FAST.retryMs} ms)`);
    expect(takeoverMs).toBeLessThanOrEqual(FAST.leaseMs + FAST.retryMs);
    expect(taken.spec.leaseTransitions).toBe((before.spec.leaseTransitions ?? 0) + 1);

    await converged('weather');
    const deployments = await admin.rest.request<{ items: Array<{ metadata: { name: string; ownerReferences?: unknown[] } }> }>('GET', `/apis/apps/v1/namespaces/${NS}/deployments`);
    expect(deployments.items.map((d) => d.metadata.name).sort()).toEqual(['researcher', 'search', 'weather']);
    expect(deployments.items.filter((d) => d.metadata.name !== 'researcher').every((d) => d.metadata.ownerReferences?.length === 1)).toBe(true);
    const services = await admin.rest.request<{ items: Array<{ metadata: { name: string } }> }>('GET', `/api/v1/namespaces/${NS}/services`);
    expect(services.items.map((s) => s.metadata.name).sort()).toEqual(['search', 'weather']);

    // 'search' and 'calc' keep failing discovery (no endpoints, no running agent pod) and so keep
    // retrying; as a kubelet would when their pods go, take the readiness away so nothing has a reason to change.
    for (const name of ['search', 'researcher']) {
      await admin.rest.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/${name}/status`, {
        contentType: CONTENT_TYPE.mergePatch,
        body: { status: { availableReplicas: null, readyReplicas: null, updatedReplicas: null, conditions: null } },
      });
    }
    await waitUntilSteady(follow);
    const writes = (await follow.metrics()).get('tooldeck_operator_api_requests{type="writes"}')!;
    const renewals = total(await follow.metrics(), 'tooldeck_operator_lease_renewals');
    await eventually(async () => total(await follow.metrics(), 'tooldeck_operator_lease_renewals') >= renewals + 3, 'three more renewals', 60_000);
    expect((await follow.metrics()).get('tooldeck_operator_api_requests{type="writes"}')).toBe(writes);
  });

  it('a graceful stop (SIGTERM) finishes, releases the lease and hands over in under 3 s, with the default timings', async () => {
    const leaderName = (await holder())!;
    const lead = operators.find((o) => o.name === leaderName)!;
    const standby = await launch('operator-c', []);
    await eventually(async () => (await standby.readyz()) === 200, 'operator-c ready');
    const stoppedAt = Date.now();
    lead.process.kill('SIGTERM');
    const taken = await eventually(async () => {
      const l = await lease();
      return l.spec.holderIdentity === 'operator-c' ? l : undefined;
    }, 'operator-c holding the lease', 30_000);
    const handoverMs = Date.parse(taken.spec.acquireTime!) - stoppedAt;
    console.log(`graceful handover: ${handoverMs} ms`);
    expect(handoverMs).toBeLessThan(3_000);
    expect(await lead.exited).toEqual({ code: 0, signal: null });
    expect(lead.logs.map((l) => l.message)).toContain('released the lease');
    expect(taken.spec.leaseDurationSeconds).toBe(15);
    await eventually(async () => total(await standby.metrics(), 'leader_election_master_status') === 1, 'operator-c leading');
  });
});
