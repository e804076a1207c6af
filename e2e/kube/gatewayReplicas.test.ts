import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../app/cli/program';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import type { KubeRest } from '../../main/kube/KubeRest';
import { installOperator } from '../../main/kube/operator/installOperator';
import { readGatewayReplicas } from '../../main/kube/operator/readGatewayReplicas';
import { formatGatewayReplicas } from '../../app/cli/commands/kubeGateway';
import { GatewayReplicasStatus } from '../../shared/kubeApi';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { builtCli, createGatewayPod as createPod, startGatewayInNetns, type GatewayInNetns } from './gatewayInNetns';
import { netnsUnavailableReason, startMcpInNetns } from './mcpInNetns';

// Traffic per gateway replica on the real kube-apiserver test bed: two `tooldeck gateway`
// processes (the built CLI, as the Deployment runs it) each in a network namespace of its own (the
// API server's proxy refuses loopback addresses), a Pod for each pointing at it, calls made through
// each, and the console's reader showing each replica's own counts from its /metrics through the
// API server's pod proxy.

const SYSTEM = 'tooldeck-system';

const skipReason = netnsUnavailableReason() ?? (existsSync(builtCli) ? undefined : `${builtCli} is missing: run \`npm run build\` first`);
if (skipReason) console.warn(`Skipping the gateway replicas suite: ${skipReason}`);

const createGatewayPod = (rest: KubeRest, name: string, address: string | undefined, metricsPort?: number) => createPod(rest, SYSTEM, name, address, metricsPort);

describe.skipIf(!!skipReason)('gateway traffic per replica through the API server', { timeout: 120_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;
  const gateways: GatewayInNetns[] = [];
  const clients: Client[] = [];

  async function agentOf(replica: number): Promise<Client> {
    const client = new Client({ name: 'agent-under-test', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
    const gateway = gateways[replica]!;
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${gateway.credential}` } } }));
    clients.push(client);
    // The example workspace's server starts in the background: the gateway offers its tools once it is listed.
    await vi.waitFor(async () => expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('everything.get-sum'), { timeout: 45_000, interval: 250 });
    return client;
  }

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-replicas-'));
    for (const [i, subnet] of [51, 52].entries()) gateways.push(await startGatewayInNetns(subnet, join(tmp, `replica-${i}`)));
    // The first start may build the test bed binary (about 5 minutes on a cold cache).
    testbed = await startTestbed({ dataDir: join(tmp, 'testbed'), stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await installOperator(admin.rest, { namespace: SYSTEM, image: 'tooldeck/operator:test', dryRun: false, force: false, gateway: { replicas: 2 } });
    await createGatewayPod(admin.rest, 'tooldeck-gateway-a', gateways[0]!.address);
    await createGatewayPod(admin.rest, 'tooldeck-gateway-b', gateways[1]!.address);
  }, 600_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    admin?.close();
    await testbed?.stop();
    for (const gateway of gateways) await gateway.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('shows each replica’s own calls, errors and held calls, per agent, read through the pod proxy', async () => {
    const a = await agentOf(0);
    const b = await agentOf(1);
    for (const message of ['one', 'two', 'three']) expect((await a.callTool({ name: 'everything.echo', arguments: { message } })).isError).toBeFalsy();
    // A call that waits for a person on replica A; it stays held while the test reads.
    void a.callTool({ name: 'everything.get-sum', arguments: { a: 2, b: 40 } }).catch(() => undefined);
    expect((await b.callTool({ name: 'everything.echo', arguments: { message: 'only one here' } })).isError).toBeFalsy();
    // A call the tool refuses (invalid arguments) is an error of replica B.
    expect((await b.callTool({ name: 'everything.echo', arguments: { message: 42 } })).isError).toBe(true);

    const status = await vi.waitFor(
      async () => {
        const read = await readGatewayReplicas(admin.rest);
        expect(read.replicas.find((r) => r.pod === 'tooldeck-gateway-a')?.traffic?.held).toBe(1);
        return read;
      },
      { timeout: 30_000, interval: 200 },
    );
    expect(GatewayReplicasStatus.parse(status)).toEqual(status);
    expect(status.problems).toEqual([]);
    expect(status.deployments).toEqual([{ namespace: SYSTEM, name: 'tooldeck-gateway', replicas: 2, readyReplicas: 0, image: 'tooldeck/operator:test' }]);
    expect(status.replicas.map((r) => ({ pod: r.pod, ready: r.ready, traffic: r.traffic, agents: r.agents, problem: r.problem }))).toEqual([
      { pod: 'tooldeck-gateway-a', ready: true, traffic: { calls: 4, errors: 0, held: 1, rateLimited: 0 }, agents: [{ agent: 'assistant', calls: 4, errors: 0, held: 1, approved: 0, refused: 0, rateLimited: 0 }], problem: undefined },
      { pod: 'tooldeck-gateway-b', ready: true, traffic: { calls: 2, errors: 1, held: 0, rateLimited: 0 }, agents: [{ agent: 'assistant', calls: 2, errors: 1, held: 0, approved: 0, refused: 0, rateLimited: 0 }], problem: undefined },
    ]);
  });

  it('names why a replica cannot be read — not running, nothing listening — and still reads the others', async () => {
    await createGatewayPod(admin.rest, 'tooldeck-gateway-pending', undefined);
    // Replica A's address, but a metrics port nothing listens on.
    await createGatewayPod(admin.rest, 'tooldeck-gateway-silent', gateways[0]!.address, 7499);
    try {
      const status = await readGatewayReplicas(admin.rest);
      const byPod = Object.fromEntries(status.replicas.map((r) => [r.pod, r]));
      expect(byPod['tooldeck-gateway-pending']).toMatchObject({ ready: false, phase: 'Pending', agents: [], problem: 'Not running (phase Pending, no pod IP yet): no metrics to read.' });
      expect(byPod['tooldeck-gateway-pending']!.traffic).toBeUndefined();
      expect(byPod['tooldeck-gateway-silent']!.problem).toMatch(/^The API server's proxy to port 7499 answered 50\d: .*(refused|reach)/);
      expect(byPod['tooldeck-gateway-a']!.traffic?.calls).toBe(4);
      expect(byPod['tooldeck-gateway-b']!.traffic?.calls).toBe(2);
    } finally {
      for (const pod of ['tooldeck-gateway-pending', 'tooldeck-gateway-silent']) await admin.rest.request('DELETE', `/api/v1/namespaces/${SYSTEM}/pods/${pod}`, { query: { gracePeriodSeconds: 0 } });
    }
  });

  it('bounds what a hostile metrics port costs: endless, silent, not metrics, hostile labels — each named, none fails the view', async () => {
    // A hand-written hostile peer, one misbehaviour per port below 9100.
    const hostile = await startMcpInNetns({ subnet: 53, port: 9100, script: join(import.meta.dirname, '../peers/http/hostileMetricsServerForTests.mjs') });
    const pods = { 'tooldeck-gateway-endless': 9096, 'tooldeck-gateway-silent': 9097, 'tooldeck-gateway-page': 9098, 'tooldeck-gateway-labels': 9099 };
    try {
      for (const [pod, port] of Object.entries(pods)) await createGatewayPod(admin.rest, pod, hostile.address, port);
      const status = await readGatewayReplicas(admin.rest, { timeoutMs: 2_000 });
      const byPod = Object.fromEntries(status.replicas.map((r) => [r.pod, r]));
      expect(byPod['tooldeck-gateway-endless']!.problem).toBe("Its metrics could not be read through the API server: The /metrics of tooldeck-gateway-endless is larger than the 1 MiB a gateway replica's metrics may have.");
      expect(byPod['tooldeck-gateway-silent']!.problem).toBe('Its metrics could not be read through the API server: no answer within 2 s');
      expect(byPod['tooldeck-gateway-page']!.problem).toBe("Port 9098 answered /metrics without the gateway's series: it is not a Tooldeck gateway's metrics port.");
      // Only finite, non-negative counts of named agents count; label names are data, never properties.
      expect(byPod['tooldeck-gateway-labels']).toMatchObject({
        traffic: { calls: 7, errors: 0, held: 0, rateLimited: 0 },
        agents: [
          { agent: '\u001b[31mred\u001b[0m', calls: 5 },
          { agent: '__proto__', calls: 2 },
        ],
      });
      expect(byPod['tooldeck-gateway-a']!.traffic?.calls).toBe(4);
      // The terminal shows the agent's name, never its escape sequences.
      expect(formatGatewayReplicas(status)).not.toContain('\u001b');
    } finally {
      for (const pod of Object.keys(pods)) await admin.rest.request('DELETE', `/api/v1/namespaces/${SYSTEM}/pods/${pod}`, { query: { gracePeriodSeconds: 0 } });
      await hostile.stop();
    }
  });

  it('a viewer who may list pods but not use their proxy sees each replica’s reason, not a failed view', async () => {
    const viewerKubeconfig = join(tmp, 'viewer-kc');
    await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'viewer', path: viewerKubeconfig });
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await admin.rest.request('POST', `${rbac}/clusterroles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gateway-viewer' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] }, { apiGroups: [''], resources: ['pods'], verbs: ['list'] }] } });
    await admin.rest.request('POST', `${rbac}/clusterrolebindings`, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'gateway-viewer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gateway-viewer' }, subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace: SYSTEM }] },
    });
    const viewer = connectKube({ kubeconfig: viewerKubeconfig });
    try {
      const status = await vi.waitFor(
        async () => {
          const read = await readGatewayReplicas(viewer.rest);
          expect(read.replicas).toHaveLength(2);
          return read;
        },
        { timeout: 10_000, interval: 100 },
      );
      for (const replica of status.replicas) {
        expect(replica.traffic).toBeUndefined();
        expect(replica.problem).toMatch(/^Reading its metrics is forbidden: .*pods\/proxy.* \(it needs get on pods\/proxy in namespace tooldeck-system\)\.$/);
      }
    } finally {
      viewer.close();
    }
    // Someone who may not even list Deployments gets that said, not a failed view.
    const nobodyKubeconfig = join(tmp, 'nobody-kc');
    await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'nobody', path: nobodyKubeconfig });
    const nobody = connectKube({ kubeconfig: nobodyKubeconfig });
    try {
      const status = await readGatewayReplicas(nobody.rest);
      expect(status).toMatchObject({ deployments: [], replicas: [], problems: [expect.stringMatching(/^Cannot list gateway Deployments: .*forbidden/)] });
    } finally {
      nobody.close();
    }
  });

  it('tooldeck kube gateway status prints each replica and agent; exit 0 when all were read, 1 naming what was not', async () => {
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
    const code = await runCli(['--data-dir', join(tmp, 'cli-data'), 'kube', 'gateway', 'status', '--kubeconfig', testbed.kubeconfigPath], io, {});
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Deployment tooldeck-system/tooldeck-gateway: 0/2 ready, tooldeck/operator:test');
    expect(lines[1]).toMatch(/^REPLICA\s+READY\s+CALLS\s+ERRORS\s+HELD\s+APPROVED\s+REFUSED\s+RATE-LIMITED$/);
    expect(lines[2]).toMatch(/^tooldeck-system\/tooldeck-gateway-a\s+yes\s+4\s+0\s+1\s+0\s+0\s+0$/);
    expect(lines[3]).toMatch(/^ {2}assistant\s+4\s+0\s+1\s+0\s+0\s+0$/);
    expect(lines[4]).toMatch(/^tooldeck-system\/tooldeck-gateway-b\s+yes\s+2\s+1\s+0\s+0\s+0\s+0$/);

    stdout = '';
    await createGatewayPod(admin.rest, 'tooldeck-gateway-pending', undefined);
    try {
      const failed = await runCli(['--data-dir', join(tmp, 'cli-data'), 'kube', 'gateway', 'status', '--kubeconfig', testbed.kubeconfigPath, '--json'], io, {});
      expect(failed).toBe(1);
      expect(JSON.parse(stdout).replicas).toHaveLength(3);
      expect(stderr).toContain('tooldeck-system/tooldeck-gateway-pending: Not running (phase Pending, no pod IP yet)');
    } finally {
      await admin.rest.request('DELETE', `/api/v1/namespaces/${SYSTEM}/pods/tooldeck-gateway-pending`, { query: { gracePeriodSeconds: 0 } });
    }

    stdout = '';
    stderr = '';
    const none = await runCli(['--data-dir', join(tmp, 'cli-data'), 'kube', 'gateway', 'status', '--kubeconfig', testbed.kubeconfigPath, '-n', 'default'], io, {});
    expect({ none, stderr }).toEqual({ none: 1, stderr: 'No gateway runs in namespace default: install one with `tooldeck kube install --gateway`\n' });
  });
});
