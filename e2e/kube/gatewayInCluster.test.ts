import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolApprovalObject } from '../../main/kube/ClusterApprovals';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { GATEWAY_COMPONENT } from '../../main/kube/operator/gatewayManifests';
import { installOperator } from '../../main/kube/operator/installOperator';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';

/**
 * `tooldeck gateway --in-cluster` as its Deployment runs it, on the real kube-apiserver test bed:
 * the built CLI in a private mount namespace where, as in a pod, the gateway ServiceAccount's token,
 * the cluster's CA and the pod's namespace are files under /var/run/secrets/kubernetes.io/serviceaccount
 * and KUBERNETES_SERVICE_HOST/PORT name the API server. Nothing but those tells the gateway where its
 * ToolApprovals live: a held call must become a ToolApproval in the pod's namespace, and a person's
 * approval there must let it run.
 */
const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const POD_NAMESPACE = 'agents-gateway';
const APPROVALS = `/apis/orloj.dev/v1/namespaces/${POD_NAMESPACE}/toolapprovals`;

const readerEchoNeedsApproval = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: reader-echo-needs-approval
spec:
  tool_ref: everything--echo
  apply_mode: scoped
  target_agents: [reader]
  operation_rules:
    - {operation_class: "*", verdict: approval_required}
`;

/**
 * The pod's view, made for the child only: a tmpfs over /run (so /var/run) in a mount namespace of
 * its own, the ServiceAccount files copied in, then the CLI. The script is fixed; every value reaches
 * it as a positional argument.
 */
const IN_POD = 'mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount && cp "$1"/token "$1"/ca.crt "$1"/namespace /run/secrets/kubernetes.io/serviceaccount/ && shift && exec "$@"';

describe('tooldeck gateway --in-cluster', { timeout: 180_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;
  let gateway: ChildProcess | undefined;
  let url: string;
  let reader: string;
  let dataDir: string;
  /** What the gateway printed: shown when a step fails. */
  let gatewayOutput = '';

  const tooldeck = (...args: string[]) => spawnSync(process.execPath, [cli, '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 60_000 });

  beforeAll(async () => {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-in-cluster-'));
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await installOperator(admin.rest, { namespace: POD_NAMESPACE, image: 'tooldeck/operator:test', dryRun: false, force: false, gateway: { replicas: 1 } });
    const { token } = await testbed.serviceAccountKubeconfig({ namespace: POD_NAMESPACE, name: GATEWAY_COMPONENT, path: join(tmp, 'unused-kubeconfig') });
    const serviceAccount = join(tmp, 'serviceaccount');
    mkdirSync(serviceAccount);
    writeFileSync(join(serviceAccount, 'token'), token, { mode: 0o600 });
    writeFileSync(join(serviceAccount, 'ca.crt'), testbed.ca);
    writeFileSync(join(serviceAccount, 'namespace'), POD_NAMESPACE);

    // The example workspace as Tooldeck seeds it (server-everything, trusted; a Clawdapus pod
    // granting `reader` echo), then a rule holding reader's echo for approval.
    dataDir = join(tmp, 'data');
    const seeded = tooldeck('search', 'echo', '--refresh');
    expect(seeded.stdout, seeded.stderr).toContain('mcp:everything.echo');
    writeFileSync(join(dataDir, 'workspace', 'reader-approval.yaml'), readerEchoNeedsApproval);
    const created = tooldeck('gateway', 'token', 'create', 'reader');
    expect(created.status, created.stderr).toBe(0);
    reader = created.stdout.trim().split('\n').at(-1)!;

    const server = new URL(testbed.server);
    gateway = spawn('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', IN_POD, 'sh', serviceAccount, process.execPath, cli, '--data-dir', dataDir, 'gateway', '--in-cluster', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port, KUBECONFIG: '' },
    });
    url = await new Promise<string>((done, fail) => {
      let out = '';
      const read = (chunk: Buffer) => {
        out += chunk.toString();
        gatewayOutput += chunk.toString();
        const match = /Gateway listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
        if (match) done(match[1]!);
      };
      gateway!.stdout!.on('data', read);
      gateway!.stderr!.on('data', read);
      gateway!.once('exit', (code) => fail(new Error(`tooldeck gateway --in-cluster exited (${code}) before listening: ${out}`)));
    });
  }, 900_000);

  afterAll(async () => {
    if (gateway && gateway.exitCode === null && gateway.signalCode === null) {
      const exited = new Promise((done) => gateway!.once('exit', done));
      gateway.kill('SIGTERM');
      await exited;
    }
    admin?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it("holds reader's echo as a ToolApproval in the pod's namespace, and runs it once a person approves it there", async () => {
    const client = new Client({ name: 'in-cluster-agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${reader}` } } }));
    try {
      // The example server starts in the background: echo is offered once it is listed.
      await vi.waitFor(async () => expect((await client.listTools()).tools.map((tool) => tool.name), gatewayOutput).toContain('everything.echo'), { timeout: 45_000, interval: 250 });
      const call = client.callTool({ name: 'everything.echo', arguments: { message: 'from a pod' } }, undefined, { timeout: 120_000 });

      const held = await vi.waitFor(
        async () => {
          const { items } = await admin.rest.request<{ items: ToolApprovalObject[] }>('GET', APPROVALS);
          const found = items.find((item) => item.status?.phase === 'Pending' && item.spec.agent === 'reader');
          expect(found).toBeDefined();
          return found!;
        },
        { timeout: 30_000, interval: 100 },
      );
      expect(held.spec.input).toEqual({ message: 'from a pod' });

      const approved = spawnSync(process.execPath, [cli, '--data-dir', join(tmp, 'approver-data'), 'approvals', 'approve', held.metadata.name, '--kubeconfig', testbed.kubeconfigPath, '--namespace', POD_NAMESPACE], { encoding: 'utf8', timeout: 60_000 });
      expect(approved.status, approved.stderr).toBe(0);

      const result = (await call) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
      expect(result.isError).toBeFalsy();
      expect(result.content[0]?.text).toBe('Echo: from a pod');
    } finally {
      await client.close();
    }
  });
});
