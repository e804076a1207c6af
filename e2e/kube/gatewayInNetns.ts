import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONTENT_TYPE, type KubeRest } from '../../main/kube/KubeRest';
import { netnsAddress, startMcpInNetns, type NetnsMcpServer } from './mcpInNetns';

export const GATEWAY_MCP_PORT = 7411;
export const GATEWAY_METRICS_PORT = 7412;
export const builtCli = join(resolve(import.meta.dirname, '../..'), 'out/main/cli.js');
const gatewayLabels = { 'app.kubernetes.io/name': 'tooldeck-gateway', 'app.kubernetes.io/part-of': 'tooldeck' };

/** The example workspace's assistant may call get-sum, but each call waits for a person's approval here. */
const heldSums = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: assistant-sums-need-approval
spec:
  tool_ref: everything--get-sum
  apply_mode: scoped
  target_agents: [assistant]
  operation_rules:
    - {operation_class: "*", verdict: approval_required}
`;

export interface GatewayInNetns extends NetnsMcpServer {
  /** `http://<address>:7411/mcp`. */
  url: string;
  /** The assistant's credential (NAME:SECRET). */
  credential: string;
}

/**
 * A gateway replica as the Deployment runs it — the built CLI, `tooldeck gateway` with
 * `--metrics-port` — on the example workspace (get-sum held for approval), in a network namespace
 * of its own at 10.203.<subnet>.2 (the API server's proxy refuses loopback addresses).
 */
export async function startGatewayInNetns(subnet: number, dataDir: string): Promise<GatewayInNetns> {
  const run = (...args: string[]) => spawnSync(process.execPath, [builtCli, '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 60_000 });
  // Any command that opens the workspace seeds it with the examples.
  const seeded = run('compile', '--agent', 'assistant');
  if (seeded.status !== 0) throw new Error(`tooldeck compile failed (${seeded.status}): ${seeded.stderr}`);
  writeFileSync(join(dataDir, 'workspace', 'held-sums.yaml'), heldSums);
  const created = run('gateway', 'token', 'create', 'assistant');
  if (created.status !== 0) throw new Error(`tooldeck gateway token create failed (${created.status}): ${created.stderr}`);
  const args = ['--data-dir', dataDir, 'gateway', `--host=${netnsAddress(subnet)}`, '--dangerously-bind-all', `--port=${GATEWAY_MCP_PORT}`, `--metrics-port=${GATEWAY_METRICS_PORT}`];
  // Waits for the metrics port: the gateway binds it after its own.
  const server = await startMcpInNetns({ subnet, port: GATEWAY_METRICS_PORT, script: builtCli, args });
  return { ...server, url: `http://${server.address}:${GATEWAY_MCP_PORT}/mcp`, credential: created.stdout.trim().split('\n').at(-1)! };
}

/** A gateway Pod as the Deployment would make it (ports named as the manifests name them), "running" at `address` (no kubelet here); none: Pending. */
export async function createGatewayPod(rest: KubeRest, namespace: string, name: string, address: string | undefined, metricsPort = GATEWAY_METRICS_PORT) {
  await rest.request('POST', `/api/v1/namespaces/${namespace}/pods`, {
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace, labels: gatewayLabels },
      spec: {
        containers: [
          {
            name: 'gateway',
            image: 'tooldeck/operator:test',
            ports: [
              { name: 'mcp', containerPort: GATEWAY_MCP_PORT, protocol: 'TCP' },
              { name: 'metrics', containerPort: metricsPort, protocol: 'TCP' },
            ],
          },
        ],
      },
    },
  });
  if (!address) return;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await rest.request('PATCH', `/api/v1/namespaces/${namespace}/pods/${name}/status`, {
    contentType: CONTENT_TYPE.mergePatch,
    body: { status: { phase: 'Running', podIP: address, podIPs: [{ ip: address }], startTime: now, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } },
  });
}
