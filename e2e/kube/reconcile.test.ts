import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { CONTENT_TYPE, type KubeRest } from '../../main/kube/KubeRest';
import { installCrds } from '../../main/kube/crds';
import { LanguageToolReconciler } from '../../main/kube/LanguageToolReconciler';
import { createStderrLogger } from '../../main/platform/Logger';
import type { LanguageToolStatus } from '../../shared/kube';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { CountingApiProxy, proxiedKubeconfig } from './CountingApiProxy';
import {
  agentsPath,
  createEndpoints,
  createNamespace,
  createRunningPod,
  eventually,
  getOrUndefined,
  markDeploymentReady,
  toolsPath,
  type DeploymentView,
} from './clusterFixtures';
import { listToolsDirect } from './listToolsDirect';
import { netnsUnavailableReason, startMcpInNetns, type NetnsMcpServer } from './mcpInNetns';

const NS = 'tooldeck-e2e';
const skipReason = netnsUnavailableReason();
if (skipReason) console.warn(`Skipping the Kubernetes reconcile suite: ${skipReason}`);

interface ToolView {
  metadata: { name: string; uid: string; generation: number; finalizers?: string[]; resourceVersion: string };
  spec: Record<string, unknown>;
  status?: LanguageToolStatus;
}

describe.skipIf(!!skipReason)('Kubernetes reconciliation against a real kube-apiserver', { timeout: 120_000 }, () => {
  let tmp: string;
  let dataDir: string;
  let testbed: Testbed;
  let proxy: CountingApiProxy;
  let mcp: NetnsMcpServer;
  let direct: KubeConnection;
  let kubeconfig: string;
  let reconciler: LanguageToolReconciler;
  let reference: unknown[];

  const rest = (): KubeRest => direct.rest;
  const tool = (name: string) => rest().request<ToolView>('GET', `${toolsPath(NS)}/${name}`);
  const agentConfig = async (agent: string) => {
    const cm = await getOrUndefined<{ data?: Record<string, string> }>(rest(), `/api/v1/namespaces/${NS}/configmaps/${agent}-config`);
    return cm?.data?.['config.yaml'] === undefined ? undefined : (parse(cm.data['config.yaml']) as Record<string, unknown> | null);
  };
  const startReconciler = async () => {
    const r = new LanguageToolReconciler({
      connection: connectKube({ kubeconfig, namespace: NS }),
      logger: createStderrLogger('error'),
      clientInfo: { name: 'tooldeck-e2e', version: '0' },
      backoff: { baseMs: 100, maxMs: 2_000 },
      informerBackoff: { baseMs: 200, maxMs: 2_000 },
    });
    await r.start();
    return r;
  };
  const routeToServer = async (service: string) => {
    await createRunningPod(rest(), NS, `${service}-pod`, mcp.address, { 'langop.io/tool': service });
    await createEndpoints(rest(), NS, service, `${service}-pod`, mcp.address, mcp.port);
  };
  const createTool = (name: string, spec: Record<string, unknown>) =>
    rest().request('POST', toolsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name, namespace: NS }, spec } });
  const createAgent = (name: string, tools: string[]) =>
    rest().request('POST', agentsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageAgent', metadata: { name, namespace: NS }, spec: { tools: tools.map((t) => ({ name: t })) } } });

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-kube-e2e-'));
    dataDir = join(tmp, 'data');
    mcp = await startMcpInNetns({ subnet: 1 });
    // The first start may build the test bed binary (about 5 minutes on a cold cache).
    testbed = await startTestbed({ dataDir, stderr: 'ignore', buildLog: () => {} });
    direct = connectKube({ kubeconfig: testbed.kubeconfigPath });
    proxy = await CountingApiProxy.start(testbed, dataDir);
    kubeconfig = join(tmp, 'kubeconfig');
    writeFileSync(kubeconfig, proxiedKubeconfig(proxy.url, testbed.caData));
    await createNamespace(rest(), NS);
    reference = await listToolsDirect(`http://${mcp.address}:${mcp.port}/mcp`);
  }, 600_000);

  afterAll(async () => {
    await reconciler?.stop();
    reconciler?.connection.close();
    direct?.close();
    await proxy?.close();
    await testbed?.stop();
    await mcp?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('installs the CRDs with server-side apply, and a second install writes nothing', async () => {
    const connection = connectKube({ kubeconfig });
    expect(await installCrds(connection.rest)).toEqual({ applied: ['languagetools.langop.io', 'languageagents.langop.io'], kept: [] });
    const before = connection.rest.stats.snapshot().writes;
    expect(await installCrds(connection.rest)).toEqual({ applied: [], kept: [] });
    expect(connection.rest.stats.snapshot().writes).toBe(before);
    connection.close();
    const crd = await rest().request<{ status: { conditions: Array<{ type: string; status: string }> }; metadata: { managedFields: Array<{ manager: string }> } }>(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/languagetools.langop.io',
    );
    expect(crd.status.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    expect(crd.metadata.managedFields.map((m) => m.manager)).toContain('tooldeck');
    reconciler = await startReconciler();
  });

  it('creates a Deployment and a ClusterIP Service owned by a new tool', async () => {
    await createTool('weather', { image: 'tooldeck.test/weather:1', deployment: { env: [{ name: 'LOG_LEVEL', value: 'debug' }], resources: { limits: { cpu: '0.5', memory: '128Mi' } } } });
    const dep = await eventually(() => getOrUndefined<DeploymentView>(rest(), `/apis/apps/v1/namespaces/${NS}/deployments/weather`), 'the Deployment');
    const svc = await eventually(
      () => getOrUndefined<{ metadata: DeploymentView['metadata']; spec: { type: string; ports: Array<{ name: string; port: number }> } }>(rest(), `/api/v1/namespaces/${NS}/services/weather`),
      'the Service',
    );
    const owner = await tool('weather');
    for (const obj of [dep, svc]) {
      expect(obj.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'LanguageTool', name: 'weather', uid: owner.metadata.uid, controller: true })]);
    }
    const container = dep.spec.template.spec.containers[0]!;
    expect(container).toMatchObject({ name: 'tool', image: 'tooldeck.test/weather:1', ports: [expect.objectContaining({ name: 'http', containerPort: 8080 })], env: [{ name: 'LOG_LEVEL', value: 'debug' }] });
    expect(container.resources).toEqual({ limits: { cpu: '500m', memory: '128Mi' } });
    expect(svc.spec.type).toBe('ClusterIP');
    expect(svc.spec.ports).toEqual([expect.objectContaining({ name: 'http', port: 8080 })]);

    const pending = await eventually(async () => {
      const t = await tool('weather');
      return t.status?.endpoint ? t : undefined;
    }, 'a first status');
    expect(pending.metadata.finalizers).toContain('langop.io/finalizer');
    expect(pending.status).toMatchObject({ phase: 'Pending', endpoint: `http://weather.${NS}.svc.cluster.local:8080`, observedGeneration: 1 });
  });

  it('discovers the tools of a real MCP server through the service proxy once the Deployment is ready', async () => {
    await routeToServer('weather');
    await markDeploymentReady(rest(), NS, 'weather');
    const running = await eventually(async () => {
      const t = await tool('weather');
      return t.status?.phase === 'Running' ? t : undefined;
    }, 'phase Running');
    expect(running.status!.toolSchemas).toEqual(reference);
    expect(running.status!.availableTools).toEqual(reference.map((t) => (t as { name: string }).name));
    expect(running.status!.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Ready', status: 'True', observedGeneration: 1 }),
        expect.objectContaining({ type: 'Discovered', status: 'True', observedGeneration: 1 }),
      ]),
    );
  });

  it("writes the tool's endpoint into a referencing agent's config.yaml and keeps the other keys", async () => {
    await rest().request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'assistant-config', namespace: NS, labels: { 'tooldeck.dev/agent': 'assistant' } }, data: { 'config.yaml': 'instructions: Be brief.\ntools:\n  calendar:\n    endpoint: http://calendar.example:9000\n    protocol: mcp\n' } },
    });
    await createAgent('assistant', ['weather']);
    const config = await eventually(async () => {
      const c = await agentConfig('assistant');
      return (c?.tools as Record<string, unknown> | undefined)?.weather ? c : undefined;
    }, 'the injected endpoint');
    expect(config).toEqual({
      instructions: 'Be brief.',
      tools: {
        calendar: { endpoint: 'http://calendar.example:9000', protocol: 'mcp' },
        weather: { endpoint: `http://weather.${NS}.svc.cluster.local:8080`, protocol: 'mcp' },
      },
    });
  });

  it('follows a spec change: observedGeneration moves on, the Deployment follows, Updating until the rollout completes, then Running', async () => {
    const before = await tool('weather');
    const readySince = before.status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime;
    await rest().request('PATCH', `${toolsPath(NS)}/weather`, { contentType: CONTENT_TYPE.mergePatch, body: { spec: { deployment: { replicas: 2, env: null } } } });
    const updating = await eventually(async () => {
      const t = await tool('weather');
      return t.status?.observedGeneration === 2 ? t : undefined;
    }, 'observedGeneration 2');
    expect(updating.metadata.generation).toBe(2);
    expect(updating.status!.phase).toBe('Updating');
    const dep = await rest().request<DeploymentView>('GET', `/apis/apps/v1/namespaces/${NS}/deployments/weather`);
    expect(dep.spec.replicas).toBe(2);
    // A field dropped from the spec leaves the Deployment too (server-side apply releases what it no longer applies).
    expect(dep.spec.template.spec.containers[0]!.env).toBeUndefined();

    await markDeploymentReady(rest(), NS, 'weather');
    const running = await eventually(async () => {
      const t = await tool('weather');
      return t.status?.phase === 'Running' ? t : undefined;
    }, 'Running again');
    expect(running.status!.conditions).toContainEqual(expect.objectContaining({ type: 'Discovered', status: 'True', observedGeneration: 2 }));
    // Ready never went false, so its transition time stayed.
    expect(running.status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime).toBe(readySince);
  });

  it('makes no write requests at steady state, after a no-op event, and after a restart of the reconciler', async () => {
    await reconciler.whenSteady();
    const mark = proxy.requests.length;
    await rest().request('PATCH', `${toolsPath(NS)}/weather`, { contentType: CONTENT_TYPE.mergePatch, body: { metadata: { labels: { team: 'forecast' } } } });
    await reconciler.whenSteady(1_500);
    expect(proxy.writesSince(mark)).toEqual([]);

    await reconciler.stop();
    reconciler.connection.close();
    const restartMark = proxy.requests.length;
    reconciler = await startReconciler();
    await reconciler.whenSteady(1_500);
    expect(proxy.requests.length).toBeGreaterThan(restartMark);
    expect(proxy.writesSince(restartMark)).toEqual([]);
    expect(reconciler.stats.snapshot().writes).toBe(0);
  });

  it('re-reads and retries when a concurrent writer causes 409 Conflicts, and converges', async () => {
    const bump = (path: string) => async () => {
      await rest().request('PATCH', path, { contentType: CONTENT_TYPE.mergePatch, body: { metadata: { annotations: { 'e2e/bumped': String(Date.now()) } } } });
    };
    proxy.interfere({ match: (r) => r.method === 'PATCH' && r.path === `${toolsPath(NS)}/busy/status`, times: 2, write: bump(`${toolsPath(NS)}/busy`) });
    proxy.interfere({ match: (r) => r.method === 'PATCH' && r.path === `/api/v1/namespaces/${NS}/configmaps/busy-agent-config`, times: 2, write: bump(`/api/v1/namespaces/${NS}/configmaps/busy-agent-config`) });
    await rest().request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'busy-agent-config', namespace: NS, labels: { 'tooldeck.dev/agent': 'busy-agent' } }, data: { 'config.yaml': 'model: small\n' } } });
    const conflictsBefore = reconciler.stats.snapshot().conflicts;
    await createAgent('busy-agent', ['busy']);
    await createTool('busy', { image: 'tooldeck.test/busy:1', port: 9000 });

    const converged = await eventually(async () => {
      const t = await tool('busy');
      return t.status?.endpoint ? t : undefined;
    }, 'status of the contested tool');
    expect(converged.status).toMatchObject({ phase: 'Pending', endpoint: `http://busy.${NS}.svc.cluster.local:9000`, observedGeneration: 1 });
    const config = await eventually(async () => ((await agentConfig('busy-agent'))?.tools ? agentConfig('busy-agent') : undefined), 'the contested config');
    expect(config).toEqual({ model: 'small', tools: { busy: { endpoint: `http://busy.${NS}.svc.cluster.local:9000`, protocol: 'mcp' } } });
    expect(reconciler.stats.snapshot().conflicts - conflictsBefore).toBeGreaterThanOrEqual(4);
    await reconciler.whenSteady();
  });

  it('runs a sidecar tool as a native sidecar of the agent Deployment and discovers it through the pod proxy', async () => {
    await rest().request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        // Labelled for the agent by the Deployment's owner: the reconciler may put the agent's sidecars into it.
        metadata: { name: 'scribe', namespace: NS, labels: { 'tooldeck.dev/agent': 'scribe' } },
        spec: { selector: { matchLabels: { app: 'scribe' } }, template: { metadata: { labels: { app: 'scribe' } }, spec: { containers: [{ name: 'agent', image: 'tooldeck.test/agent:1' }] } } },
      },
    });
    await createAgent('scribe', ['notes']);
    await createTool('notes', { image: 'tooldeck.test/notes:1', deploymentMode: 'sidecar' });
    const dep = await eventually(async () => {
      const d = await rest().request<DeploymentView>('GET', `/apis/apps/v1/namespaces/${NS}/deployments/scribe`);
      return d.spec.template.spec.initContainers?.length ? d : undefined;
    }, 'the sidecar in the agent Deployment');
    expect(dep.spec.template.spec.initContainers).toEqual([expect.objectContaining({ name: 'tool-notes', image: 'tooldeck.test/notes:1', restartPolicy: 'Always' })]);
    expect(dep.spec.template.spec.containers).toEqual([expect.objectContaining({ name: 'agent' })]);
    expect(await getOrUndefined(rest(), `/apis/apps/v1/namespaces/${NS}/deployments/notes`)).toBeUndefined();

    await createRunningPod(rest(), NS, 'scribe-pod', mcp.address, { app: 'scribe' });
    await markDeploymentReady(rest(), NS, 'scribe');
    const running = await eventually(async () => {
      const t = await tool('notes');
      return t.status?.phase === 'Running' ? t : undefined;
    }, 'the sidecar tool Running');
    expect(running.status).toMatchObject({ endpoint: 'http://localhost:8080', toolSchemas: reference });
    const config = await eventually(async () => ((await agentConfig('scribe'))?.tools ? agentConfig('scribe') : undefined), 'the sidecar endpoint in the config');
    expect(config).toEqual({ tools: { notes: { endpoint: 'http://localhost:8080', protocol: 'mcp' } } });
  });

  it('converges after the apiserver restarts under its open watches', async () => {
    await reconciler.whenSteady();
    // Like a crash: the open watches break at once, and the process gets SIGKILL if it lingers.
    proxy.severConnections();
    await testbed.stop(5_000);
    testbed = await startTestbed({ dataDir, stderr: 'ignore' });
    proxy.retarget(testbed);
    direct.close();
    direct = connectKube({ kubeconfig: testbed.kubeconfigPath });
    expect((await tool('weather')).status!.phase).toBe('Running');

    await createTool('after-restart', { image: 'tooldeck.test/late:1' });
    await rest().request('PATCH', `${toolsPath(NS)}/busy`, { contentType: CONTENT_TYPE.mergePatch, body: { spec: { port: 9001 } } });
    const late = await eventually(async () => {
      const t = await tool('after-restart');
      return t.status?.endpoint ? t : undefined;
    }, 'a tool created after the restart to be reconciled');
    expect(late.status!.phase).toBe('Pending');
    expect(await getOrUndefined(rest(), `/apis/apps/v1/namespaces/${NS}/deployments/after-restart`)).toBeDefined();
    const busy = await eventually(async () => {
      const t = await tool('busy');
      return t.status?.observedGeneration === 2 ? t : undefined;
    }, 'a spec change made after the restart');
    expect(busy.status!.endpoint).toBe(`http://busy.${NS}.svc.cluster.local:9001`);
    await eventually(async () => ((await agentConfig('busy-agent'))?.tools as Record<string, { endpoint: string }>)?.busy?.endpoint.endsWith(':9001'), 'the new port in the agent config');
  });

  it('on deletion removes the tool from agent configs before releasing its finalizer', async () => {
    await reconciler.whenSteady();
    await rest().request('DELETE', `${toolsPath(NS)}/weather`);
    await eventually(async () => (await getOrUndefined(rest(), `${toolsPath(NS)}/weather`)) === undefined, 'the tool to be gone');
    expect(await agentConfig('assistant')).toEqual({ instructions: 'Be brief.', tools: { calendar: { endpoint: 'http://calendar.example:9000', protocol: 'mcp' } } });

    await rest().request('DELETE', `${toolsPath(NS)}/notes`);
    await eventually(async () => (await getOrUndefined(rest(), `${toolsPath(NS)}/notes`)) === undefined, 'the sidecar tool to be gone');
    const dep = await rest().request<DeploymentView>('GET', `/apis/apps/v1/namespaces/${NS}/deployments/scribe`);
    expect(dep.spec.template.spec.initContainers ?? []).toEqual([]);
    expect((await agentConfig('scribe'))?.tools).toBeUndefined();
  });
});
