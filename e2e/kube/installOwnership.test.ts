// `tooldeck kube install` and `tooldeck kube reconcile` on a cluster where objects of the names they
// write already belong to someone else, on the real kube-apiserver test bed. The other installers
// are played here by hand: an Orloj-like install of `toolapprovals.orloj.dev`, a Language
// Operator-like install of `languageagents.langop.io`, and a Role made with kubectl. Tooldeck must
// never rewrite them (a forced server-side apply would replace another installer's schema, relabel
// its CRD as Tooldeck's, or swap a Role's rules).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTooldeck } from '../../app/cli/testing/runTooldeck';
import { ForeignCrdError, installCrds, waitEstablished } from '../../main/kube/crds';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { createNamespace, eventually } from './clusterFixtures';

const SYSTEM = 'tooldeck-system';
const IMAGE = 'registry.test/tooldeck/operator:1.0.0';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

interface LiveObject {
  metadata: { resourceVersion: string; labels?: Record<string, string> };
  spec?: { versions?: Array<{ name: string }> };
  rules?: unknown[];
}

/** A CRD as another installer would make it: its own label (or none), its own versions, an open schema. */
function foreignCrd(group: string, plural: string, kind: string, versions: string[], managedBy?: string) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...(managedBy ? { labels: { 'app.kubernetes.io/managed-by': managedBy } } : {}) },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    },
  };
}

describe('kube install and reconcile leave objects another installer owns alone', { timeout: 180_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;

  const run = (argv: string[]) => runTooldeck(tmp, argv);
  const get = (path: string) => admin.rest.request<LiveObject>('GET', path);
  /** Deleting a CRD finishes asynchronously: these wait until its name is free again. */
  async function replaceCrd(path: string, body: object) {
    await deleteCrd(path);
    await admin.rest.request('POST', CRDS, { body });
  }
  async function deleteCrd(path: string) {
    await admin.rest.request('DELETE', path);
    await eventually(() => get(path).then(() => false, () => true), `${path} to be deleted`);
  }
  const install = () => run(['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--image', IMAGE, '--gateway']);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-install-ownership-'));
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
  }, 900_000);

  afterAll(async () => {
    admin?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it("an Orloj ToolApproval CRD that does not serve v1 is refused in one sentence, and neither it nor anything after it is written", async () => {
    await admin.rest.request('POST', CRDS, { body: foreignCrd('orloj.dev', 'toolapprovals', 'ToolApproval', ['v1beta1'], 'orloj') });
    await waitEstablished(admin.rest, `${CRDS}/toolapprovals.orloj.dev`, 30_000);
    const before = await get(`${CRDS}/toolapprovals.orloj.dev`);

    const refused = await install();

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('CustomResourceDefinition toolapprovals.orloj.dev was installed by "orloj", not Tooldeck, and does not serve v1');
    const after = await get(`${CRDS}/toolapprovals.orloj.dev`);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'orloj' });
    // Install stopped at the CRD: the gateway's Deployment was never created.
    await expect(get(`/apis/apps/v1/namespaces/${SYSTEM}/deployments/tooldeck-gateway`)).rejects.toMatchObject({ status: 404 });
    await deleteCrd(`${CRDS}/toolapprovals.orloj.dev`);
  });

  it('an Orloj ToolApproval CRD that serves v1 is used as it is: kept, unchanged, still labelled as Orloj installed it', async () => {
    await admin.rest.request('POST', CRDS, { body: foreignCrd('orloj.dev', 'toolapprovals', 'ToolApproval', ['v1'], 'orloj') });
    // The apiserver itself writes the new CRD's status once (Established): compare from after that.
    await waitEstablished(admin.rest, `${CRDS}/toolapprovals.orloj.dev`, 30_000);
    const before = await get(`${CRDS}/toolapprovals.orloj.dev`);

    const installed = await install();

    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('kept       CustomResourceDefinition toolapprovals.orloj.dev (installed by "orloj"; used as it is)');
    expect(installed.stdout).toMatch(/^created +Deployment tooldeck-system\/tooldeck-gateway$/m);
    const after = await get(`${CRDS}/toolapprovals.orloj.dev`);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'orloj' });
  });

  it("a Role of Tooldeck's name that someone else made is not rewritten without --force", async () => {
    await createNamespace(admin.rest, 'payroll');
    const role = '/apis/rbac.authorization.k8s.io/v1/namespaces/payroll/roles/tooldeck-operator';
    const theirs = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }];
    await admin.rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/payroll/roles', {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tooldeck-operator', namespace: 'payroll' }, rules: theirs },
    });
    const before = await get(role);

    const refused = await run(['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--image', IMAGE, '--watch-namespaces', 'payroll']);

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Role payroll/tooldeck-operator exists and Tooldeck did not install it');
    expect((await get(role)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);

    const forced = await run(['kube', 'install', '--kubeconfig', testbed.kubeconfigPath, '--image', IMAGE, '--watch-namespaces', 'payroll', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await get(role)).rules).not.toEqual(theirs);
  });

  it("kube reconcile's CRD install keeps a Language Operator CRD that serves v1alpha1 and refuses one that does not", async () => {
    const agents = `${CRDS}/languageagents.langop.io`;
    await replaceCrd(agents, foreignCrd('langop.io', 'languageagents', 'LanguageAgent', ['v1alpha1'], 'Helm'));
    const kept = await installCrds(admin.rest);
    expect(kept.kept).toEqual(['languageagents.langop.io']);
    expect((await get(agents)).metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'Helm' });

    await replaceCrd(agents, foreignCrd('langop.io', 'languageagents', 'LanguageAgent', ['v2']));
    await expect(installCrds(admin.rest)).rejects.toThrow(ForeignCrdError);
    await expect(installCrds(admin.rest)).rejects.toThrow('was installed by someone else, not Tooldeck, and does not serve v1alpha1');
  });
});
