// The operator changes only what it made (or what an object's owner let it into), on the real
// test bed. The hostile side is hand-written here: a user who may create LanguageAgents and
// LanguageTools but not Deployments names them after Deployments, Services and Secrets that are
// someone else's. The operator runs in-process with the ServiceAccount and the namespaced Roles
// `kube install --watch-namespaces` grants, so the RBAC it ships is exercised as well.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { CONTENT_TYPE } from '../../main/kube/KubeRest';
import { installOperator } from '../../main/kube/operator/installOperator';
import { Operator } from '../../main/kube/operator/Operator';
import { silentLogger } from '../../main/platform/Logger';
import type { Condition } from '../../shared/kube';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { agentsPath, createNamespace, eventually, getOrUndefined, toolsPath, type DeploymentView } from './clusterFixtures';

const SYSTEM = 'tooldeck-system';
const NS = 'shop';
const OTHER = 'payroll';

interface Status {
  metadata: { resourceVersion: string; generation: number };
  status?: { phase?: string; endpoint?: string; conditions?: Condition[] };
}
interface EventView {
  type: string;
  reason: string;
  note: string;
  regarding: { kind: string; name: string };
}

describe('the operator leaves objects it did not make alone, on a real kube-apiserver', { timeout: 120_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;
  let saKubeconfig: string;
  let operator: Operator;

  const createTool = (name: string, spec: Record<string, unknown>) =>
    admin.rest.request('POST', toolsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name, namespace: NS }, spec } });
  const createAgent = (name: string, tools: string[]) =>
    admin.rest.request('POST', agentsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageAgent', metadata: { name, namespace: NS }, spec: { tools: tools.map((t) => ({ name: t })) } } });
  const createDeployment = (name: string, labels: Record<string, string> = {}) =>
    admin.rest.request<DeploymentView>('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: NS, labels },
        spec: {
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { serviceAccountName: 'default', containers: [{ name: 'app', image: `registry.test/${name}:1` }] } },
        },
      },
    });
  const condition = async (path: string, type: string) => (await admin.rest.request<Status>('GET', path)).status?.conditions?.find((c) => c.type === type);
  const warning = (kind: string, name: string, reason: string) =>
    eventually(async () => {
      const list = await admin.rest.request<{ items: EventView[] }>('GET', `/apis/events.k8s.io/v1/namespaces/${NS}/events`);
      return list.items.find((e) => e.type === 'Warning' && e.reason === reason && e.regarding.kind === kind && e.regarding.name === name);
    }, `a ${reason} Event on ${kind} ${name}`);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-ownership-'));
    // The first start may build the test bed binary (about 5 minutes on a cold cache).
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await createNamespace(admin.rest, NS);
    await createNamespace(admin.rest, OTHER);
    await installOperator(admin.rest, { namespace: SYSTEM, image: 'tooldeck/operator:test', watchNamespaces: [NS], dryRun: false, force: false });
    saKubeconfig = (await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'tooldeck-operator', path: join(tmp, 'operator-kubeconfig') })).kubeconfigPath;
    operator = new Operator({
      connection: connectKube({ kubeconfig: saKubeconfig }),
      namespaces: [NS],
      identity: 'operator-ownership',
      leaseNamespace: SYSTEM,
      leaseName: 'tooldeck-operator',
      timings: { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 },
      logger: silentLogger,
      version: 'test',
      listen: { host: '127.0.0.1', port: 0 },
    });
    await operator.start();
  }, 600_000);

  afterAll(async () => {
    await operator?.stop();
    admin?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('kube install --watch-namespaces grants Roles in those namespaces only: no cluster-wide writes, no proxy elsewhere', async () => {
    const sa = connectKube({ kubeconfig: saKubeconfig });
    try {
      const allowed = async (group: string, resource: string, verb: string, namespace?: string) => {
        const [res, subresource] = resource.split('/');
        const review = await sa.rest.request<{ status: { allowed: boolean } }>('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
          body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { group, resource: res, subresource, verb, namespace } } },
        });
        return review.status.allowed;
      };
      for (const [group, resource, verb] of [
        ['apps', 'deployments', 'patch'],
        ['', 'services', 'create'],
        ['', 'configmaps', 'update'],
        ['', 'services/proxy', 'get'],
        ['', 'pods/proxy', 'get'],
      ] as const) {
        expect(await allowed(group, resource, verb, NS), `${verb} ${resource} in ${NS}`).toBe(true);
        expect(await allowed(group, resource, verb, OTHER), `${verb} ${resource} in ${OTHER}`).toBe(false);
        expect(await allowed(group, resource, verb), `${verb} ${resource} cluster-wide`).toBe(false);
      }
      expect(await getOrUndefined(admin.rest, '/apis/rbac.authorization.k8s.io/v1/clusterroles/tooldeck-operator')).toBeUndefined();
      expect(await getOrUndefined(admin.rest, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/tooldeck-operator')).toBeUndefined();
      const deployment = await admin.rest.request<DeploymentView>('GET', `/apis/apps/v1/namespaces/${SYSTEM}/deployments/tooldeck-operator`);
      expect(deployment.spec.template.spec.containers[0]!.args).toEqual(['--listen=0.0.0.0:8080', `--watch-namespaces=${NS}`]);
    } finally {
      sa.close();
    }
  });

  it('a LanguageAgent named after a foreign Deployment gets no sidecar in it: its pod template is untouched, a condition and an Event say why', async () => {
    const before = await createDeployment('payments');
    // A sidecar tool running an image of the attacker's choosing, to run with payments' service account.
    await createTool('spy', { image: 'registry.test/exfiltrate:1', deploymentMode: 'sidecar' });
    await createAgent('payments', ['spy']);

    const refused = await eventually(async () => {
      const c = await condition(`${agentsPath(NS)}/payments`, 'ToolsAttached');
      return c?.status === 'False' ? c : undefined;
    }, 'the ToolsAttached condition on the agent');
    expect(refused).toMatchObject({ reason: 'NameConflict' });
    expect(refused.message).toContain(`Deployment ${NS}/payments is not LanguageAgent payments's`);
    const event = await warning('LanguageAgent', 'payments', 'NameConflict');
    expect(event.note).toContain(`Deployment ${NS}/payments is not LanguageAgent payments's`);
    // The tool says it too, instead of waiting for a Deployment that will never take it.
    await eventually(async () => (await condition(`${toolsPath(NS)}/spy`, 'Ready'))?.reason === 'NameConflict', 'the NameConflict on the sidecar tool');

    // A control in the same namespace: an agent Deployment whose owner labelled it for the agent does get the sidecar.
    await createDeployment('researcher', { 'tooldeck.dev/agent': 'researcher' });
    await createTool('notes', { image: 'registry.test/notes:1', deploymentMode: 'sidecar' });
    await createAgent('researcher', ['notes']);
    await eventually(async () => {
      const dep = await admin.rest.request<DeploymentView>('GET', `/apis/apps/v1/namespaces/${NS}/deployments/researcher`);
      return (dep.spec.template.spec.initContainers ?? []).some((c) => c.name === 'tool-notes');
    }, 'the sidecar in the labelled agent Deployment');

    const after = await admin.rest.request<DeploymentView & { metadata: { resourceVersion: string; labels?: Record<string, string> } }>('GET', `/apis/apps/v1/namespaces/${NS}/deployments/payments`);
    expect(after.spec.template).toEqual(before.spec.template);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.metadata.resourceVersion).toBe((before.metadata as unknown as { resourceVersion: string }).resourceVersion);
  });

  it('a LanguageAgent whose <name>-config is a foreign ConfigMap gets no endpoint written into it', async () => {
    const before = await admin.rest.request<{ metadata: { resourceVersion: string }; data: Record<string, string> }>('POST', `/api/v1/namespaces/${NS}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ledger-config', namespace: NS }, data: { 'config.yaml': 'model: big\n' } },
    });
    await createTool('lookup', { image: 'registry.test/lookup:1' });
    await eventually(async () => !!(await admin.rest.request<Status>('GET', `${toolsPath(NS)}/lookup`)).status?.endpoint, 'the endpoint of lookup');
    await createAgent('ledger', ['lookup']);

    const refused = await eventually(async () => {
      const c = await condition(`${agentsPath(NS)}/ledger`, 'ToolsAttached');
      return c?.status === 'False' ? c : undefined;
    }, 'the ToolsAttached condition on the agent');
    expect(refused).toMatchObject({ reason: 'NameConflict' });
    expect(refused.message).toContain(`ConfigMap ${NS}/ledger-config is not LanguageAgent ledger's`);
    await warning('LanguageAgent', 'ledger', 'NameConflict');
    const after = await admin.rest.request<{ metadata: { resourceVersion: string }; data: Record<string, string> }>('GET', `/api/v1/namespaces/${NS}/configmaps/ledger-config`);
    expect(after.data).toEqual({ 'config.yaml': 'model: big\n' });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('a LanguageTool named after a foreign Service leaves its selector as it is, makes no Deployment, publishes no endpoint', async () => {
    const before = await admin.rest.request<{ metadata: { resourceVersion: string }; spec: { selector: Record<string, string> } }>('POST', `/api/v1/namespaces/${NS}/services`, {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'billing', namespace: NS }, spec: { selector: { app: 'billing' }, ports: [{ name: 'http', port: 80 }] } },
    });
    await createTool('billing', { image: 'registry.test/impostor:1', port: 80 });

    const ready = await eventually(async () => {
      const c = await condition(`${toolsPath(NS)}/billing`, 'Ready');
      return c?.reason === 'NameConflict' ? c : undefined;
    }, 'the NameConflict condition on the tool');
    expect(ready.message).toContain(`Service ${NS}/billing already exists and Tooldeck did not make it for this LanguageTool`);
    await warning('LanguageTool', 'billing', 'NameConflict');

    const after = await admin.rest.request<{ metadata: { resourceVersion: string }; spec: { selector: Record<string, string> } }>('GET', `/api/v1/namespaces/${NS}/services/billing`);
    expect(after.spec.selector).toEqual({ app: 'billing' });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(await getOrUndefined(admin.rest, `/apis/apps/v1/namespaces/${NS}/deployments/billing`)).toBeUndefined();
    const tool = await admin.rest.request<Status>('GET', `${toolsPath(NS)}/billing`);
    expect(tool.status?.endpoint).toBeUndefined();
    expect(tool.status?.phase).toBe('Failed');
  });

  it('secretKeyRef to a Secret not labelled for tools is refused; a labelled one is allowed', async () => {
    await admin.rest.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-root', namespace: NS }, stringData: { password: 'hunter2' } },
    });
    await admin.rest.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'search-key', namespace: NS, labels: { 'tooldeck.dev/allow-tool-secrets': 'true' } }, stringData: { key: 'k' } },
    });
    const env = (secret: string, key: string) => ({ deployment: { env: [{ name: 'VALUE', valueFrom: { secretKeyRef: { name: secret, key } } }] } });
    await createTool('reader', { image: 'registry.test/reader:1', ...env('db-root', 'password') });
    await createTool('search', { image: 'registry.test/search:1', ...env('search-key', 'key') });

    const refused = await eventually(async () => {
      const c = await condition(`${toolsPath(NS)}/reader`, 'Ready');
      return c?.reason === 'SecretNotAllowed' ? c : undefined;
    }, 'the SecretNotAllowed condition');
    expect(refused.message).toContain(`Secret ${NS}/db-root`);
    expect(refused.message).not.toContain('hunter2');
    await warning('LanguageTool', 'reader', 'SecretNotAllowed');
    expect(await getOrUndefined(admin.rest, `/apis/apps/v1/namespaces/${NS}/deployments/reader`)).toBeUndefined();

    const allowed = await eventually(() => getOrUndefined<DeploymentView>(admin.rest, `/apis/apps/v1/namespaces/${NS}/deployments/search`), 'the Deployment of the tool with a labelled Secret');
    expect(allowed.spec.template.spec.containers[0]).toMatchObject({ env: [{ name: 'VALUE', valueFrom: { secretKeyRef: { name: 'search-key', key: 'key' } } }] });
  });

  it('fields another manager took over in a Deployment Tooldeck made are not taken back: a FieldConflict condition instead', async () => {
    await createTool('weather', { image: 'registry.test/weather:1' });
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/weather`;
    await eventually(() => getOrUndefined(admin.rest, path), 'the Deployment of weather');
    // The platform team pins the replicas with server-side apply of their own.
    await admin.rest.request('PATCH', path, {
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: 'platform-team', force: true },
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'weather', namespace: NS }, spec: { replicas: 5 } },
    });
    await admin.rest.request('PATCH', `${toolsPath(NS)}/weather`, { contentType: CONTENT_TYPE.mergePatch, body: { spec: { deployment: { replicas: 2 } } } });
    const conflict = await eventually(async () => {
      const c = await condition(`${toolsPath(NS)}/weather`, 'Ready');
      return c?.reason === 'FieldConflict' ? c : undefined;
    }, 'the FieldConflict condition');
    expect(conflict.message).toContain('owned by platform-team');
    await warning('LanguageTool', 'weather', 'FieldConflict');
    expect((await admin.rest.request<{ spec: { replicas: number } }>('GET', path)).spec.replicas).toBe(5);
  });
});
