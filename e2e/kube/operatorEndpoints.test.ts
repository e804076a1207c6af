// The operator's /healthz, /readyz and /metrics through every state a kubelet probes it in, with
// the real Operator class in this process against the real test bed. Each state is held open on
// purpose rather than caught in passing: the CRDs are left out (caches cannot sync), and a proxy in
// front of the API server holds one reconcile write (stop waits for the pass in flight), so every
// check reads a state that lasts until the test lets it go.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../../main/kube/crds';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import type { LeaseObject } from '../../main/kube/leaderelection/LeaseLock';
import { Operator } from '../../main/kube/operator/Operator';
import { silentLogger } from '../../main/platform/Logger';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { createNamespace, eventually, toolsPath } from './clusterFixtures';
import { CountingApiProxy, proxiedKubeconfig, type ProxiedRequest } from './CountingApiProxy';

const NS = 'endpoints';
const LEASE_NAME = 'endpoints-operator';
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/${LEASE_NAME}`;
/** A renewal every second, so a usurped lease is noticed quickly; the bounds are never waited out. */
const TIMINGS = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 };

interface Probe {
  status: number;
  body: string;
}

const probe = async (url: string, path: string, method = 'GET'): Promise<Probe> => {
  const response = await fetch(`${url}${path}`, { method });
  return { status: response.status, body: await response.text() };
};

/**
 * Holds the first write whose path matches at the proxy until `open()` (whichever object a pass
 * writes first: the tool, its Deployment or its Service); `reached` resolves when it arrives.
 */
function holdWrite(proxy: CountingApiProxy, path: RegExp) {
  let open!: () => void;
  let arrived!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  proxy.interfere({
    match: (request: ProxiedRequest) => request.method !== 'GET' && path.test(request.path),
    times: 1,
    write: async () => {
      arrived();
      await gate;
    },
  });
  return { reached, open };
}

describe('tooldeck operator endpoints on a real kube-apiserver', { timeout: 120_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let proxy: CountingApiProxy;
  let admin: KubeConnection;
  let kubeconfig: string;
  const operators: Operator[] = [];

  const newOperator = async (identity: string) => {
    const operator = new Operator({
      connection: connectKube({ kubeconfig }),
      namespaces: [NS],
      identity,
      leaseNamespace: NS,
      leaseName: LEASE_NAME,
      timings: TIMINGS,
      logger: silentLogger,
      version: 'test',
      listen: { host: '127.0.0.1', port: 0 },
    });
    operators.push(operator);
    const { url } = await operator.start();
    return { operator, url };
  };
  const lease = () => admin.rest.request<LeaseObject>('GET', LEASE);
  const createTool = (name: string) =>
    admin.rest.request('POST', toolsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name, namespace: NS }, spec: { image: `tooldeck.test/${name}:1` } } });
  /** Written straight to the API server (not through the proxy), as another controller would. */
  const writeLease = async (holderIdentity: string, leaseDurationSeconds: number) => {
    const current = await lease();
    const now = new Date().toISOString().replace('Z', '000Z');
    await admin.rest.request('PUT', LEASE, { body: { ...current, spec: { ...current.spec, holderIdentity, leaseDurationSeconds, acquireTime: now, renewTime: now } } });
  };

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-operator-endpoints-'));
    const dataDir = join(tmp, 'data');
    testbed = await startTestbed({ dataDir, stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    proxy = await CountingApiProxy.start(testbed, dataDir);
    kubeconfig = join(tmp, 'kubeconfig');
    writeFileSync(kubeconfig, proxiedKubeconfig(proxy.url, testbed.caData));
    // No CRDs yet: the first test needs an operator whose caches cannot sync.
    await createNamespace(admin.rest, NS);
  }, 600_000);

  afterAll(async () => {
    for (const operator of operators) await operator.stop().catch(() => undefined);
    admin?.close();
    await proxy?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  let first: { operator: Operator; url: string };

  it('/healthz is 200 from the start; /readyz is 503 until the caches have synced, then 200; unknown paths are 404', async () => {
    first = await newOperator('operator-1');
    // The LanguageTool watch cannot list a resource that does not exist: not synced for as long as the CRDs are missing.
    const unsynced = await probe(first.url, '/readyz');
    expect(unsynced.status).toBe(503);
    expect(unsynced.body).toContain('[-]informers-synced failed');
    expect(unsynced.body).toContain('readyz check failed');
    // Liveness says only that the process serves: a kubelet must not restart an operator that waits for its CRDs.
    expect(await probe(first.url, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect((await probe(first.url, '/livez')).status).toBe(200);
    for (const path of ['/', '/ready', '/healthz/extra', '/metrics.json']) {
      const missing = await probe(first.url, path);
      expect(missing.status, path).toBe(404);
      expect(missing.body).toBe('Not found: /healthz, /readyz and /metrics are served here\n');
    }
    expect((await probe(first.url, '/readyz', 'POST')).status).toBe(405);

    await installCrds(admin.rest);
    const ready = await eventually(async () => {
      const readyz = await probe(first.url, '/readyz');
      return readyz.status === 200 ? readyz : undefined;
    }, '/readyz 200 once the caches have synced');
    expect(ready.body).toBe('[+]informers-synced ok\n[+]lease ok\n[+]shutdown ok\nreadyz check passed\n');
    expect((await lease()).spec.holderIdentity).toBe('operator-1');
    const metrics = await probe(first.url, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain(`leader_election_master_status{name="${LEASE_NAME}"} 1`);
  });

  it('/readyz is 503 once a leader has lost the lease, while it finishes the reconcile in flight', async () => {
    const held = holdWrite(proxy, /\/held(\/|$)/);
    await createTool('held');
    await held.reached;
    // Another holder on the Lease: the leader's next renewal finds it and stops leading (and so stops).
    await writeLease('usurper', 3_600);
    const lost = await eventually(async () => {
      const readyz = await probe(first.url, '/readyz');
      return readyz.body.includes('[-]lease failed') && readyz.body.includes('[-]shutdown failed') ? readyz : undefined;
    }, '/readyz reporting the lost lease');
    expect(lost.status).toBe(503);
    expect(lost.body).toContain('[+]informers-synced ok');
    // Still alive while it winds down.
    expect((await probe(first.url, '/healthz')).status).toBe(200);

    held.open();
    expect(await first.operator.whenEnded()).toBe('lost');
    await expect(probe(first.url, '/healthz')).rejects.toThrow();
    expect((await lease()).spec.holderIdentity).toBe('usurper');
  });

  it('a standby is ready once synced; a leader stopping gracefully is 503 (lease still held) until it has finished, then releases the lease', async () => {
    const second = await newOperator('operator-2');
    // Never led, so the lease is no condition: every synced replica of the Deployment counts as ready.
    const standby = await eventually(async () => {
      const readyz = await probe(second.url, '/readyz');
      return readyz.status === 200 ? readyz : undefined;
    }, 'the standby ready');
    expect(standby.body).toContain('[+]lease ok');
    expect((await probe(second.url, '/metrics')).body).toContain(`leader_election_master_status{name="${LEASE_NAME}"} 0`);

    // The usurper releases (empty holder), as a stopping leader does: operator-2 takes over at once.
    await writeLease('', 1);
    await eventually(async () => (await lease()).spec.holderIdentity === 'operator-2', 'operator-2 holding the lease');
    const held = holdWrite(proxy, /\/held2(\/|$)/);
    await createTool('held2');
    await held.reached;

    const stopping = second.operator.stop();
    const draining = await probe(second.url, '/readyz');
    // Out of the Service's endpoints at once, while it still holds the lease and finishes its pass.
    expect(draining.status).toBe(503);
    expect(draining.body).toBe('[+]informers-synced ok\n[+]lease ok\n[-]shutdown failed\nreadyz check failed\n');
    expect((await probe(second.url, '/healthz')).status).toBe(200);
    expect((await lease()).spec.holderIdentity).toBe('operator-2');

    held.open();
    await stopping;
    expect(await second.operator.whenEnded()).toBe('stopped');
    expect((await lease()).spec.holderIdentity ?? '').toBe('');
    await expect(probe(second.url, '/readyz')).rejects.toThrow();
  });
});
