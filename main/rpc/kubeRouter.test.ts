import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startTestbed, type Testbed } from '../../e2e/kube-testbed/testbed.mjs';
import { createNamespace, eventually, markDeploymentReady, toolsPath } from '../../e2e/kube/clusterFixtures';
import { CountingApiProxy, proxiedKubeconfig } from '../../e2e/kube/CountingApiProxy';
import { kubeTestbedSkipReason } from '../../e2e/support/kubeTestbed';
import type { AvailableClusterSchemas, ClusterInventory, ClusterSchemas } from '../../shared/kubeApi';
import { installCrds } from '../kube/crds';
import { connectKube, type KubeConnection } from '../kube/KubeConnection';
import { CONTENT_TYPE } from '../kube/KubeRest';
import { KubeSession } from '../kube/KubeSession';
import { LanguageToolReconciler } from '../kube/LanguageToolReconciler';
import { silentLogger } from '../platform/Logger';
import { createKubeRouter } from './kubeRouter';
import { createCallerFactory, type RpcContext } from './trpc';

const NS = 'cluster-view';

const skipReason = kubeTestbedSkipReason();
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

  describe('cluster schemas for the YAML editors', () => {
    let proxy: CountingApiProxy;
    let viaProxy: KubeSession;
    let first: AvailableClusterSchemas;
    const schemaRpc = () => createCallerFactory(createKubeRouter(() => viaProxy))({} as RpcContext);
    const openApiReads = (since: number) => proxy.requests.slice(since).filter((r) => r.path.startsWith('/openapi/')).map((r) => r.path).sort();
    const documentPaths = (groupVersions: string[]) => groupVersions.map((gv) => (gv === 'v1' ? '/openapi/v3/api/v1' : `/openapi/v3/apis/${gv}`));

    beforeAll(async () => {
      proxy = await CountingApiProxy.start(testbed, join(tmp, 'data'));
      const kubeconfig = parse(proxiedKubeconfig(proxy.url, testbed.caData)) as { contexts: object[] };
      kubeconfig.contexts.push({ name: 'front-again', context: { cluster: 'front', user: 'front', namespace: 'default' } });
      writeFileSync(join(tmp, 'proxied-kubeconfig'), stringify(kubeconfig));
      viaProxy = new KubeSession({ logger: silentLogger, env: { KUBECONFIG: join(tmp, 'proxied-kubeconfig') } });
      // The apiserver publishes a new CRD's OpenAPI a few seconds after the CRD is established; on a
      // fresh machine that can be after these tests start. Wait (directly, not through the counting proxy).
      await eventually(
        async () => 'apis/langop.io/v1alpha1' in ((await admin.rest.request<{ paths?: object }>('GET', '/openapi/v3')).paths ?? {}),
        'the CRD group in /openapi/v3',
      );
    }, 90_000);

    afterAll(async () => {
      await viaProxy?.close();
      await proxy?.close();
    });

    it('offers none before a cluster is connected, and does not connect to find out', async () => {
      expect(await schemaRpc().schemas()).toEqual({ available: false, reason: 'No cluster is connected' });
      expect(proxy.requests).toEqual([]);
    });

    it("turns the cluster's OpenAPI documents into one JSON Schema per kind, built-in kinds and CRDs, every ref resolved inside", async () => {
      await schemaRpc().select({ context: 'front' });
      const mark = proxy.requests.length;
      first = available(await schemaRpc().schemas());
      expect(first).toMatchObject({ context: 'front', server: proxy.url });
      expect(first.groupVersions).toEqual(expect.arrayContaining(['v1', 'apps/v1', 'batch/v1', 'langop.io/v1alpha1']));
      expect(openApiReads(mark)).toEqual(['/openapi/v3', ...documentPaths(first.groupVersions)].sort());

      const kinds = first.kinds.map((k) => `${k.apiVersion} ${k.kind}`);
      expect(kinds).toEqual(expect.arrayContaining(['v1 ConfigMap', 'v1 Service', 'apps/v1 Deployment', 'batch/v1 CronJob', 'langop.io/v1alpha1 LanguageTool', 'langop.io/v1alpha1 LanguageAgent']));
      expect(kinds.filter((k) => /List$| (Status|DeleteOptions|WatchEvent|APIResourceList)$/.test(k))).toEqual([]);

      expect(fieldOf(first, 'apps/v1', 'Deployment', 'spec', 'replicas')).toMatchObject({ type: 'integer' });
      expect(fieldOf(first, 'langop.io/v1alpha1', 'LanguageTool', 'spec')).toMatchObject({ required: ['image'] });
      expect(fieldOf(first, 'langop.io/v1alpha1', 'LanguageTool', 'spec', 'image')).toMatchObject({ type: 'string' });
      expect(fieldOf(first, 'langop.io/v1alpha1', 'LanguageTool', 'metadata', 'labels')).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });

      const text = JSON.stringify(first.definitions);
      expect(text).not.toContain('#/components/');
      const refs = [...text.matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)].map((m) => m[1]!);
      expect(refs.length).toBeGreaterThan(100);
      expect(refs.filter((name) => !(name in first.definitions))).toEqual([]);
    });

    it('validates manifests as the apiserver would: wrong types, unknown fields and missing required fields are errors', () => {
      const deployment = (spec: Record<string, unknown>) => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '500m', memory: 1024 } } }] } }, ...spec },
      });
      expect(problems(first, 'apps/v1', 'Deployment', deployment({ replicas: 2, strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } }))).toEqual([]);
      expect(problems(first, 'apps/v1', 'Deployment', deployment({ replicas: 'two' }))).toEqual(['/spec/replicas must be integer']);
      expect(problems(first, 'apps/v1', 'Deployment', deployment({ replica: 2 }))).toEqual(['/spec must NOT have additional properties (replica)']);
      expect(problems(first, 'langop.io/v1alpha1', 'LanguageTool', { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'x' }, spec: { port: 8080 } })).toEqual(["/spec must have required property 'image'"]);
    });

    it('reads only the index while nothing changed', async () => {
      const mark = proxy.requests.length;
      const again = available(await schemaRpc().schemas());
      expect(proxy.requests.slice(mark)).toEqual([{ method: 'GET', path: '/openapi/v3' }]);
      expect(again.revision).toBe(first.revision);
    });

    it("fetches only a new CRD's group when it appears, and everything again after a context switch", async () => {
      await admin.rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCrd });
      const mark = proxy.requests.length;
      const withWidget = await eventually(async () => {
        const schemas = available(await schemaRpc().schemas());
        return schemas.kinds.some((k) => k.kind === 'Widget') ? schemas : undefined;
      }, 'the Widget CRD to be in the schemas');
      expect(fieldOf(withWidget, 'tooldeck.test/v1', 'Widget', 'spec', 'size')).toMatchObject({ type: 'integer', minimum: 1 });
      expect(withWidget.revision).not.toBe(first.revision);
      expect(new Set(openApiReads(mark))).toEqual(new Set(['/openapi/v3', '/openapi/v3/apis/tooldeck.test/v1']));

      await schemaRpc().select({ context: 'front-again' });
      const switched = proxy.requests.length;
      const afterSwitch = available(await schemaRpc().schemas());
      expect(afterSwitch.context).toBe('front-again');
      expect(openApiReads(switched)).toEqual(['/openapi/v3', ...documentPaths(afterSwitch.groupVersions)].sort());
      expect(afterSwitch.groupVersions).toContain('tooldeck.test/v1');
    });
  });
});

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.tooldeck.test' },
  spec: {
    group: 'tooldeck.test',
    scope: 'Namespaced',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } } } } },
      },
    ],
  },
};

function available(schemas: ClusterSchemas): AvailableClusterSchemas {
  if (!schemas.available) throw new Error(`no cluster schemas: ${schemas.reason}`);
  return schemas;
}

function kindDefinition(schemas: AvailableClusterSchemas, apiVersion: string, kind: string): string {
  const entry = schemas.kinds.find((k) => k.apiVersion === apiVersion && k.kind === kind);
  if (!entry) throw new Error(`no ${apiVersion} ${kind} among ${schemas.kinds.length} kinds`);
  return entry.definition;
}

type SchemaNode = { $ref?: string; allOf?: SchemaNode[]; properties?: Record<string, SchemaNode> } & Record<string, unknown>;

/** The schema of a field, following refs (the documents wrap each one in a one-element allOf). */
function fieldOf(schemas: AvailableClusterSchemas, apiVersion: string, kind: string, ...path: string[]): SchemaNode {
  const deref = (node: SchemaNode): SchemaNode => {
    const ref = node.$ref ?? (node.allOf?.length === 1 ? node.allOf[0]!.$ref : undefined);
    return ref ? deref(schemas.definitions[ref.slice('#/definitions/'.length)] as SchemaNode) : node;
  };
  let node = deref(schemas.definitions[kindDefinition(schemas, apiVersion, kind)] as SchemaNode);
  for (const key of path) {
    const child = node.properties?.[key];
    if (!child) throw new Error(`${apiVersion} ${kind} has no field ${path.join('.')}`);
    node = deref(child);
  }
  return node;
}

/** What a JSON Schema validator finds wrong with `manifest` against the kind's schema. */
function problems(schemas: AvailableClusterSchemas, apiVersion: string, kind: string, manifest: object): string[] {
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  if (ajv.validate({ $ref: `#/definitions/${kindDefinition(schemas, apiVersion, kind)}`, definitions: schemas.definitions }, manifest)) return [];
  return (ajv.errors ?? []).map((e) => `${e.instancePath} ${e.message}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`);
}
