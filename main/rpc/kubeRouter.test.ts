import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryPath, startTestbed, type Testbed } from '../../e2e/kube-testbed/testbed.mjs';
import { createNamespace, eventually, markDeploymentReady, toolsPath } from '../../e2e/kube/clusterFixtures';
import type { ClusterInventory } from '../../shared/kubeApi';
import { installCrds } from '../kube/crds';
import { connectKube, type KubeConnection } from '../kube/KubeConnection';
import { CONTENT_TYPE } from '../kube/KubeRest';
import { KubeSession } from '../kube/KubeSession';
import { LanguageToolReconciler } from '../kube/LanguageToolReconciler';
import { silentLogger } from '../platform/Logger';
import { createKubeRouter } from './kubeRouter';
import { createCallerFactory, type RpcContext } from './trpc';

const NS = 'cluster-view';

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const skipReason = !existsSync(binaryPath()) && !hasGo() ? 'the kube-testbed binary is not cached and go is not installed to build it' : undefined;
if (skipReason) console.warn(`Skipping the kube router suite: ${skipReason}`);

const toolYaml = (image: string) => `apiVersion: langop.io/v1alpha1
kind: LanguageTool
metadata:
  name: weather
  namespace: ${NS}
spec:
  image: ${image}
`;

describe.skipIf(!!skipReason)('kube router against a real kube-apiserver', { timeout: 90_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;
  let session: KubeSession;
  let reconciler: LanguageToolReconciler;
  // The router reads nothing from the context but the session it is given.
  const rpc = () => createCallerFactory(createKubeRouter(() => session))({} as RpcContext);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-kube-rpc-'));
    testbed = await startTestbed({ dataDir: join(tmp, 'data'), stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await installCrds(admin.rest);
    await createNamespace(admin.rest, NS);
    session = new KubeSession({ logger: silentLogger, env: { KUBECONFIG: testbed.kubeconfigPath } });
  }, 600_000);

  afterAll(async () => {
    await reconciler?.stop();
    reconciler?.connection.close();
    await session?.close();
    admin?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it("lists the kubeconfig's contexts and connects to the chosen one", async () => {
    const list = await rpc().contexts({});
    expect(list).toMatchObject({ kubeconfig: testbed.kubeconfigPath, exists: true, current: 'kube-testbed' });
    expect(list.contexts).toEqual([expect.objectContaining({ name: 'kube-testbed', server: testbed.server, namespace: 'default' })]);
    expect(await rpc().contexts({ kubeconfig: join(tmp, 'missing') })).toMatchObject({ exists: false, contexts: [] });

    const status = await rpc().select({ context: 'kube-testbed' });
    expect(status).toMatchObject({ state: 'connected', context: 'kube-testbed', server: testbed.server, version: testbed.version.gitVersion, crdsInstalled: true });
    expect(await rpc().namespaces()).toContain(NS);
  });

  it('shows a LanguageTool applied from the view in the live inventory, and its status as the reconciler writes it', async () => {
    const iterator = (await rpc().inventory({ namespace: NS }))[Symbol.asyncIterator]();
    const next = async (matching: (inventory: ClusterInventory) => boolean) => {
      for (;;) {
        const { value, done } = await iterator.next();
        if (done) throw new Error('the subscription ended');
        if (matching(value)) return value;
      }
    };
    await next((inv) => inv.synced && inv.tools.length === 0);
    expect(await rpc().applyYaml({ yaml: toolYaml('tooldeck.test/weather:1') })).toEqual({ ok: true, objects: [{ kind: 'LanguageTool', namespace: NS, name: 'weather', action: 'created' }] });
    const created = await next((inv) => inv.tools.some((t) => t.name === 'weather'));
    expect(created.tools[0]).toMatchObject({ namespace: NS, name: 'weather', phase: 'Pending', toolCount: 0, agents: [] });
    expect(created.tools[0]!.createdAt).toMatch(/^\d{4}-/);

    reconciler = new LanguageToolReconciler({ connection: connectKube({ kubeconfig: testbed.kubeconfigPath, namespace: NS }), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' }, discoveryTimeoutMs: 2_000 });
    await reconciler.start();
    const reconciled = await next((inv) => !!inv.tools[0]?.endpoint);
    await iterator.return?.();
    expect(reconciled.tools[0]).toMatchObject({ name: 'weather', phase: 'Pending', endpoint: `http://weather.${NS}.svc.cluster.local:8080` });
    const waiting = await rpc().tool({ namespace: NS, name: 'weather' });
    expect(waiting.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'DeploymentUnavailable', observedGeneration: 1, lastTransitionTime: expect.any(String) });

    await markDeploymentReady(admin.rest, NS, 'weather');
    // No MCP server answers behind the Service in this suite: the rollout is done and discovery is what the tool waits for.
    const detail = await eventually(async () => {
      const d = await rpc().tool({ namespace: NS, name: 'weather' });
      return d.conditions.some((c) => c.reason.startsWith('Discovery')) ? d : undefined;
    }, 'discovery to be attempted');
    expect(detail).toMatchObject({ phase: 'Pending', generation: 1, observedGeneration: 1, toolSchemas: [] });
    expect(detail.yaml).toContain('image: tooldeck.test/weather:1');
    expect(detail.yaml).not.toContain('managedFields');
    await reconciler.stop();
  });

  it('dry-runs a change: the diff shows it and the object stays as it was', async () => {
    const before = await admin.rest.request<{ metadata: { resourceVersion: string } }>('GET', `${toolsPath(NS)}/weather`);
    const result = await rpc().dryRun({ yaml: toolYaml('tooldeck.test/weather:2') });
    if (!result.ok) throw new Error(`unexpected conflict: ${result.conflict.message}`);
    expect(result.objects).toHaveLength(1);
    expect(result.objects[0]).toMatchObject({ kind: 'LanguageTool', namespace: NS, name: 'weather', action: 'configured' });
    expect(result.objects[0]!.diff).toEqual(expect.arrayContaining([
      { op: '-', text: '  image: tooldeck.test/weather:1' },
      { op: '+', text: '  image: tooldeck.test/weather:2' },
    ]));
    const after = await admin.rest.request<{ metadata: { resourceVersion: string }; spec: { image: string } }>('GET', `${toolsPath(NS)}/weather`);
    expect(after.spec.image).toBe('tooldeck.test/weather:1');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('applies as tooldeck; a field another manager took is a conflict naming it, and force takes it back', async () => {
    await admin.rest.request('PATCH', `${toolsPath(NS)}/weather`, {
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: 'platform-team', force: true },
      body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'weather', namespace: NS }, spec: { image: 'tooldeck.test/weather:pinned' } },
    });

    const refused = await rpc().applyYaml({ yaml: toolYaml('tooldeck.test/weather:3') });
    expect(refused).toMatchObject({ ok: false, conflict: { kind: 'LanguageTool', namespace: NS, name: 'weather', conflicts: [{ manager: 'platform-team', field: '.spec.image' }] } });
    const kept = await admin.rest.request<{ spec: { image: string } }>('GET', `${toolsPath(NS)}/weather`);
    expect(kept.spec.image).toBe('tooldeck.test/weather:pinned');

    expect(await rpc().applyYaml({ yaml: toolYaml('tooldeck.test/weather:3'), force: true })).toMatchObject({ ok: true, objects: [{ action: 'configured' }] });
    const taken = await admin.rest.request<{ spec: { image: string }; metadata: { managedFields: Array<{ manager: string; fieldsV1: object }> } }>('GET', `${toolsPath(NS)}/weather`);
    expect(taken.spec.image).toBe('tooldeck.test/weather:3');
    expect(JSON.stringify(taken.metadata.managedFields.find((m) => m.manager === 'tooldeck')?.fieldsV1)).toContain('f:image');
  });
});
