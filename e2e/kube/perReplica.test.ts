import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../app/cli/program';
import { replicaResolver } from '../../main/collections/load/kubeReplicas';
import { createCore, type Core } from '../../main/core';
import { installCrds } from '../../main/kube/crds';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { Collection } from '../../shared/collections';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { createNamespace, createRunningPod, toolsPath } from './clusterFixtures';
import { netnsUnavailableReason, startMcpInNetns, type NetnsMcpServer } from './mcpInNetns';

// `--per-replica` against a real kube-apiserver: a LanguageTool whose Service has two ready pods,
// each a real server-everything in its own network namespace (the apiserver's proxy refuses
// loopback addresses). The replicas differ only in one environment variable, which the `get-env`
// tool reports and `echo` does not.

const NS = 'tooldeck-replicas';
const skipReason = netnsUnavailableReason();
if (skipReason) console.warn(`Skipping the per-replica load suite: ${skipReason}`);

describe.skipIf(!!skipReason)('load per replica through the API server', { timeout: 120_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let kube: KubeConnection;
  let core: Core;
  const servers: NetnsMcpServer[] = [];

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-replicas-'));
    servers.push(await startMcpInNetns({ subnet: 31, env: { REPLICA_FLAVOUR: 'blue' } }));
    servers.push(await startMcpInNetns({ subnet: 32, env: { REPLICA_FLAVOUR: 'green' } }));
    // The first start may build the test bed binary (about 5 minutes on a cold cache).
    testbed = await startTestbed({ dataDir: join(tmp, 'testbed'), stderr: 'ignore', buildLog: () => {} });
    kube = connectKube({ kubeconfig: testbed.kubeconfigPath, namespace: NS });
    await installCrds(kube.rest);
    await createNamespace(kube.rest, NS);
    await kube.rest.request('POST', toolsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'everything', namespace: NS }, spec: { image: 'tooldeck.test/everything:1' } } });
    await kube.rest.request('POST', `/api/v1/namespaces/${NS}/services`, {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'everything', namespace: NS }, spec: { selector: { app: 'everything' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    });
    for (const [i, server] of servers.entries()) await createRunningPod(kube.rest, NS, `everything-${i}`, server.address, { app: 'everything' });
    // A third pod that is not ready must get no load.
    await kube.rest.request('POST', `/api/v1/namespaces/${NS}/endpoints`, {
      body: {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'everything', namespace: NS },
        subsets: [
          {
            addresses: servers.map((s, i) => ({ ip: s.address, targetRef: { kind: 'Pod', namespace: NS, name: `everything-${i}` } })),
            notReadyAddresses: [{ ip: '10.203.33.2', targetRef: { kind: 'Pod', namespace: NS, name: 'everything-starting' } }],
            ports: [{ name: 'http', port: servers[0]!.port, protocol: 'TCP' }],
          },
        ],
      },
    });
    core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', dataDir: join(tmp, 'data'), secretStore: new MemorySecretStore(), logger: silentLogger });
  }, 600_000);

  afterAll(async () => {
    await core?.close();
    kube?.close();
    await testbed?.stop();
    for (const server of servers) await server.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  const resolver = () => replicaResolver({ catalog: core.catalog, rest: kube.rest, namespace: NS, clientInfo: { name: 'tooldeck-e2e', version: '0' } });
  const collection = (tool: string, args: Record<string, unknown>) => Collection.parse({ name: 'replicas', requests: [{ name: tool, target: 'mcp:everything', tool, arguments: args }] });

  it('sends the whole rate to each ready pod through the pipeline and reports each one; alike answers are not a difference', async () => {
    const run = core.collections.load(collection('echo', { message: 'same everywhere' }), { rps: 10, durationMs: 2_000, replicas: resolver() });
    const started = [];
    for await (const event of run) if (event.type === 'load-started') started.push(event);
    const summary = await run.summary;
    expect(started[0]!.replicas).toEqual(['everything-0', 'everything-1']);
    expect(summary.replicas!.map((r) => [r.replica, r.address, r.requests, r.errors])).toEqual([
      ['everything-0', `${servers[0]!.address}:${servers[0]!.port}`, 20, 0],
      ['everything-1', `${servers[1]!.address}:${servers[1]!.port}`, 20, 0],
    ]);
    expect(summary.replicas!.every((r) => r.latency.p50! > 0)).toBe(true);
    expect(summary).toMatchObject({ requests: 40, errors: 0, askedRps: 20, replicaDifferences: [] });
    await core.history.flush();
    const calls = (await core.history.list({ runId: summary.runId, limit: 100 })).items;
    expect(new Set(calls.map((c) => c.sourceName))).toEqual(new Set(['everything@everything-0', 'everything@everything-1']));
    // The replicas' registry entries are gone once the run ends.
    expect(core.catalog.list({ source: 'mcp:everything@everything-0' })).toEqual([]);
  });

  it('reports replicas that answer the same request differently, showing where', async () => {
    const summary = await core.collections.load(collection('get-env', {}), { rps: 5, durationMs: 1_000, replicas: resolver() }).summary;
    expect(summary.errors).toBe(0);
    expect(summary.replicaDifferences).toHaveLength(1);
    const [difference] = summary.replicaDifferences!;
    expect(difference!.request).toBe('get-env');
    expect(difference!.answers.map((a) => a.replicas)).toEqual([['everything-0'], ['everything-1']]);
    expect(difference!.answers[0]!.answer).toContain('blue');
    expect(difference!.answers[1]!.answer).toContain('green');
  });

  it('works from the command line: tooldeck run --load --per-replica, JSON report per replica, exit 1 when replicas differ', async () => {
    const file = join(tmp, 'replicas.yaml');
    writeFileSync(file, 'name: cli-replicas\nrequests:\n  - name: env\n    target: mcp:everything\n    tool: get-env\n');
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
    const argv = ['--data-dir', join(tmp, 'cli-data'), 'run', file, '--load', '--rps', '4', '--duration', '1s', '--per-replica', '--kubeconfig', testbed.kubeconfigPath, '-n', NS, '--reporter', 'json'];
    const code = await runCli(argv, io, {});
    expect(stderr).toContain('Replicas answered 1 request differently');
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.replicas.map((r: { replica: string; requests: number }) => [r.replica, r.requests])).toEqual([
      ['everything-0', 4],
      ['everything-1', 4],
    ]);
    expect(report.replica_differences).toHaveLength(1);
  });

  it('says plainly when the tool is not a LanguageTool of the namespace', async () => {
    const c = Collection.parse({ name: 'missing', requests: [{ name: 'x', target: 'mcp:nothing-here', tool: 'echo' }] });
    const summary = await core.collections.load(c, { rps: 5, durationMs: 1_000, replicas: resolver() }).summary;
    expect(summary).toMatchObject({ sent: 0, ok: false });
    expect(summary.connectFailures).toEqual([{ target: 'mcp:nothing-here', error: expect.objectContaining({ code: 'NotFound', message: `No LanguageTool named "nothing-here" in namespace ${NS}` }) }]);
  });
});
