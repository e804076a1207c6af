import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cliPath } from '../support/tooldeckServer';
import { eventually } from './clusterFixtures';

export interface OperatorProcess {
  name: string;
  url: string;
  process: ChildProcess;
  /** Every JSON log line so far. */
  logs: Array<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Prometheus samples by `name{labels}` (as printed). */
  metrics(): Promise<Map<string, number>>;
  readyz(): Promise<number>;
}

/** The built `tooldeck operator`, as a separate process with its own kubeconfig and pod name. */
export async function startOperator(options: { name: string; kubeconfig: string; args?: string[]; leaseNamespace: string }): Promise<OperatorProcess> {
  const child = spawn(process.execPath, [cliPath, 'operator', '--kubeconfig', options.kubeconfig, '--listen', '127.0.0.1:0', ...(options.args ?? [])], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, POD_NAME: options.name, POD_NAMESPACE: options.leaseNamespace, TOOLDECK_LOG_LEVEL: 'info' },
  });
  const logs: Array<Record<string, unknown>> = [];
  let text = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      text += `${line}\n`;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.message === 'operator started') resolve(String(entry.endpoints));
      } catch {
        // Plain lines (the CLI's own messages) are kept in the text only.
      }
    });
    void exited.then(({ code }) => reject(new Error(`operator ${options.name} exited with ${code}: ${text}`)));
  });
  return {
    name: options.name,
    url,
    process: child,
    logs,
    stderr: () => text,
    exited,
    async metrics() {
      const body = await (await fetch(`${url}/metrics`)).text();
      const samples = new Map<string, number>();
      for (const line of body.split('\n')) {
        if (!line || line.startsWith('#')) continue;
        const at = line.lastIndexOf(' ');
        samples.set(line.slice(0, at), Number(line.slice(at + 1)));
      }
      return samples;
    },
    readyz: async () => (await fetch(`${url}/readyz`)).status,
  };
}

/** Sum of every sample of a metric (all label sets). */
export function total(samples: Map<string, number>, metric: string): number {
  let sum = 0;
  for (const [key, value] of samples) if (key === metric || key.startsWith(`${metric}{`)) sum += value;
  return sum;
}

/**
 * Waits until an operator is steady: nothing queued or retrying, and its pass count stood still
 * across two lease renewals. Its caches were listed before its first pass, so once it is steady an
 * object it has not touched is one it does not see — no waiting for time to pass.
 */
export async function waitUntilSteady(op: OperatorProcess): Promise<void> {
  let last = -1;
  let since = -1;
  await eventually(async () => {
    const m = await op.metrics();
    const runs = total(m, 'controller_runtime_reconcile_total');
    const renewals = total(m, 'tooldeck_operator_lease_renewals');
    if (total(m, 'workqueue_depth') !== 0 || total(m, 'tooldeck_operator_retrying_keys') !== 0 || runs !== last) {
      last = runs;
      since = renewals;
      return false;
    }
    return renewals >= since + 2;
  }, `${op.name} steady`, 120_000);
}
