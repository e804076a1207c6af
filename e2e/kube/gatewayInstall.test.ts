import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliContext, CliExit } from '../../app/cli/CliContext';
import { registerKube } from '../../app/cli/commands/kube';
import { isKubeApiError } from '../../main/kube/KubeApiError';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { CONTENT_TYPE } from '../../main/kube/KubeRest';
import { APPROVER_ROLE, gatewayManifests } from '../../main/kube/operator/gatewayManifests';
import type { Manifest } from '../../main/kube/operator/operatorManifests';
import { toolApprovalCrd } from '../../main/kube/toolApprovalCrd';
import { ensureHelm, runHelm } from '../helm/helm.mjs';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';

const repo = join(import.meta.dirname, '../..');
const SYSTEM = 'tooldeck-system';
const IMAGE = 'registry.test/tooldeck/operator:1.0.0';
const APPROVALS = `/apis/orloj.dev/v1/namespaces/${SYSTEM}/toolapprovals`;

const objectsOf = (yaml: string) =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => !!d);
const key = (o: Manifest) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byKey = (objects: Manifest[]) => Object.fromEntries(objects.map((o) => [key(o), o]));

describe('tooldeck kube install --gateway on the kube-apiserver test bed', { timeout: 180_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;

  async function run(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
    const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
    registerKube(program, new CliContext(io, () => tmp));
    let code = 0;
    try {
      await program.parseAsync(argv, { from: 'user' });
    } catch (error) {
      if (error instanceof CliExit) {
        code = error.exitCode;
        stderr += `${error.message}\n`;
      } else if (error instanceof CommanderError) code = error.exitCode === 0 ? 0 : 2;
      else throw error;
    }
    return { code, stdout, stderr };
  }

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-install-'));
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await ensureHelm({ log: () => {} });
  }, 900_000);

  afterAll(async () => {
    admin?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it('dry run prints the CRD, Deployment, Service and RBAC and writes nothing; install creates them; a second install changes nothing', async () => {
    const install = ['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--image', IMAGE, '--gateway', '--gateway-replicas', '3'];
    const dry = await run([...install, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('--- CustomResourceDefinition toolapprovals.orloj.dev: would be created');
    for (const ref of ['ServiceAccount', 'Role', 'RoleBinding', 'Deployment', 'Service']) expect(dry.stdout).toContain(`--- ${ref} ${SYSTEM}/tooldeck-gateway: would be created`);
    expect(dry.stdout).toContain(`--- Role ${SYSTEM}/${APPROVER_ROLE}: would be created`);
    expect(dry.stdout).toMatch(/^\+ +- --in-cluster$/m);
    expect(dry.stdout).toMatch(/^\+ +replicas: 3$/m);
    expect(dry.stdout).toContain(`gateway × 3 (Service tooldeck-gateway) in namespace ${SYSTEM}`);
    expect(dry.stdout).toContain('nothing was written');
    expect(await admin.rest.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/toolapprovals.orloj.dev').catch((error: unknown) => error)).toMatchObject({ status: 404 });

    const first = await run(install);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^created\s+CustomResourceDefinition toolapprovals\.orloj\.dev$/m);
    expect(first.stdout).toMatch(/^created\s+Deployment tooldeck-system\/tooldeck-gateway$/m);
    expect(first.stdout).toMatch(/^created\s+Service tooldeck-system\/tooldeck-gateway$/m);
    const deployment = await admin.rest.request<{ spec: { replicas: number; template: { spec: { containers: Array<{ image: string; args: string[] }> } } } }>('GET', `/apis/apps/v1/namespaces/${SYSTEM}/deployments/tooldeck-gateway`);
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({ image: IMAGE, args: expect.arrayContaining(['--in-cluster']) });

    const second = await run(install);
    expect(second.code, second.stderr).toBe(0);
    const lines = second.stdout.trim().split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).toMatch(/^unchanged /);
    const again = await admin.rest.request<{ metadata: { resourceVersion: string } }>('GET', `/apis/apps/v1/namespaces/${SYSTEM}/deployments/tooldeck-gateway`);
    expect(again.metadata.resourceVersion).toBe((deployment as unknown as { metadata: { resourceVersion: string } }).metadata.resourceVersion);

    expect(await run(['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--gateway-replicas', '2'])).toMatchObject({ code: 2, stderr: '--gateway-replicas goes with --gateway\n' });
  });

  it('a ToolApproval reads Pending when made, its spec never changes, and only an approver may decide it, once', async () => {
    const gatewayKc = join(tmp, 'gateway-kc');
    await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'tooldeck-gateway', path: gatewayKc });
    const gateway = connectKube({ kubeconfig: gatewayKc });
    const approverKc = join(tmp, 'approver-kc');
    const approver = await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'alice', path: approverKc });
    await admin.rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${SYSTEM}/rolebindings`, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-approves' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: APPROVER_ROLE }, subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace: SYSTEM }] },
    });
    const alice = connectKube({ kubeconfig: approverKc });
    try {
      const created = await gateway.rest.request<{ status: { phase: string }; metadata: { resourceVersion: string } }>('POST', APPROVALS, {
        body: { apiVersion: 'orloj.dev/v1', kind: 'ToolApproval', metadata: { name: 'builder-delete-1' }, spec: { tool: 'mcp:files.delete', agent: 'builder', input: { path: '/tmp/x' }, ttl: '10m' }, status: { phase: 'Approved' } },
      });
      // The creator's status is dropped: it reads Pending whatever it sent.
      expect(created.status).toEqual({ phase: 'Pending' });
      const decision = { status: { phase: 'Approved', decision: 'approved', decided_by: 'builder', decided_at: new Date().toISOString() } };
      const byGateway = await gateway.rest.request('PATCH', `${APPROVALS}/builder-delete-1/status`, { body: decision, contentType: CONTENT_TYPE.mergePatch }).catch((error: unknown) => error);
      expect(isKubeApiError(byGateway) && byGateway.status).toBe(403);
      const respec = await admin.rest.request('PATCH', `${APPROVALS}/builder-delete-1`, { body: { spec: { input: { path: '/' } } }, contentType: CONTENT_TYPE.mergePatch }).catch((error: unknown) => error);
      expect(isKubeApiError(respec) && respec.status).toBe(422);
      expect((respec as Error).message).toContain('spec is immutable');

      const approved = await alice.rest.request<{ status: { phase: string } }>('PATCH', `${APPROVALS}/builder-delete-1/status`, { body: { ...decision, status: { ...decision.status, decided_by: approver.user } }, contentType: CONTENT_TYPE.mergePatch });
      expect(approved.status.phase).toBe('Approved');
      const twice = await alice.rest.request('PATCH', `${APPROVALS}/builder-delete-1/status`, { body: { status: { phase: 'Denied', decision: 'denied', decided_by: approver.user, decided_at: new Date().toISOString() } }, contentType: CONTENT_TYPE.mergePatch }).catch((error: unknown) => error);
      expect(isKubeApiError(twice) && twice.status).toBe(422);
      expect((twice as Error).message).toContain('a decided ToolApproval cannot be decided again');
      // The approver decides; it cannot create or delete approvals.
      const deleteByApprover = await alice.rest.request('DELETE', `${APPROVALS}/builder-delete-1`).catch((error: unknown) => error);
      expect(isKubeApiError(deleteByApprover) && deleteByApprover.status).toBe(403);
    } finally {
      gateway.close();
      alice.close();
    }
  });

  it('the Helm chart with gateway.enabled renders what install applies, and the apiserver accepts it', async () => {
    const chart = join(repo, 'deploy/helm/tooldeck-operator');
    await runHelm(['lint', chart, '--strict', '--set', 'gateway.enabled=true'], { log: () => {} });
    const rendered = objectsOf(await runHelm(['template', 'tooldeck-operator', chart, '--namespace', SYSTEM, '--set', 'gateway.enabled=true', '--set', 'gateway.replicaCount=3', '--set', 'image.repository=registry.test/tooldeck/operator', '--set', 'image.tag=1.0.0'], { log: () => {} }));
    const gatewayObjects = rendered.filter((o) => o.kind === 'CustomResourceDefinition' || ['tooldeck-gateway', 'tooldeck-gateway-agents', 'tooldeck-operator-gateway', APPROVER_ROLE].includes(o.metadata.name));
    const expected = [toolApprovalCrd() as unknown as Manifest, ...gatewayManifests({ namespace: SYSTEM, image: IMAGE, replicas: 3 })];
    expect(byKey(gatewayObjects)).toEqual(JSON.parse(JSON.stringify(byKey(expected))));
    const disabled = objectsOf(await runHelm(['template', 'tooldeck-operator', chart, '--namespace', SYSTEM], { log: () => {} }));
    expect(disabled.filter((o) => o.metadata.name === 'tooldeck-gateway')).toEqual([]);
    // Server-side dry run of what the chart renders: the apiserver accepts every object.
    for (const object of gatewayObjects.filter((o) => o.kind !== 'CustomResourceDefinition')) {
      await admin.rest.request('PATCH', objectPath(object), { body: object, contentType: CONTENT_TYPE.apply, query: { fieldManager: 'helm-check', dryRun: 'All', force: true } });
    }
  });
});

function objectPath(object: Manifest): string {
  const group = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
  return `${group}${object.metadata.namespace ? `/namespaces/${object.metadata.namespace}` : ''}/${object.kind.toLowerCase()}s/${object.metadata.name}`;
}
