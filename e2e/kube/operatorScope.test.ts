// `tooldeck operator --namespace` and the console's `kube reconcile` beside operators, on the real
// test bed: the operators are the built CLI as separate processes with the operator ServiceAccount's
// kubeconfig, the local reconciles the built CLI with the admin's, as a user would run them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import type { LeaseObject } from '../../main/kube/leaderelection/LeaseLock';
import { installOperator } from '../../main/kube/operator/installOperator';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { cliPath } from '../support/tooldeckServer';
import { createNamespace, eventually, getOrUndefined, toolsPath } from './clusterFixtures';
import { startOperator, total, waitUntilSteady, type OperatorProcess } from './OperatorProcess';

const SYSTEM = 'tooldeck-system';
const ALPHA = 'alpha';
const BETA = 'beta';
const leasePath = (name: string) => `/apis/coordination.k8s.io/v1/namespaces/${SYSTEM}/leases/${name}`;
/** As in operator.test.ts: short enough for a quick test, long enough that a loaded machine keeps the bound. */
const FAST_ARGS = ['--lease-duration', '6s', '--renew-deadline', '4s', '--retry-period', '3s'];

const skipReason = existsSync(cliPath) ? undefined : `${cliPath} is missing: run npx electron-vite build first`;
if (skipReason) console.warn(`Skipping the operator scope suite: ${skipReason}`);

interface ToolView {
  metadata: { resourceVersion: string; finalizers?: string[]; managedFields?: Array<{ manager: string }> };
  status?: { endpoint?: string };
}

interface LocalReconcile {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; at: number }>;
}

describe.skipIf(!!skipReason)('operator scopes and the console beside them, on a real kube-apiserver', { timeout: 180_000 }, () => {
  let tmp: string;
  let testbed: Testbed;
  let admin: KubeConnection;
  let saKubeconfig: string;
  const operators: OperatorProcess[] = [];
  const locals: LocalReconcile[] = [];

  const launch = async (name: string, args: string[]) => {
    const op = await startOperator({ name, kubeconfig: saKubeconfig, leaseNamespace: SYSTEM, args: [...FAST_ARGS, ...args] });
    operators.push(op);
    return op;
  };
  /** `tooldeck kube reconcile` without --once: runs until stopped, as on an operator's laptop. */
  const reconcileLocally = (namespace: string): LocalReconcile => {
    const child = spawn(process.execPath, [cliPath, 'kube', 'reconcile', '--kubeconfig', testbed.kubeconfigPath, '--namespace', namespace], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    const local = {
      process: child,
      stdout: () => out,
      stderr: () => err,
      exited: new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() }))),
    };
    locals.push(local);
    return local;
  };
  const createTool = (namespace: string, name: string) =>
    admin.rest.request<ToolView>('POST', toolsPath(namespace), {
      body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name, namespace }, spec: { image: `tooldeck.test/${name}:1` } },
    });
  const converged = (namespace: string, name: string) =>
    eventually(async () => {
      const tool = await getOrUndefined<ToolView>(admin.rest, `${toolsPath(namespace)}/${name}`);
      const dep = await getOrUndefined(admin.rest, `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`);
      const svc = await getOrUndefined(admin.rest, `/api/v1/namespaces/${namespace}/services/${name}`);
      return !!tool?.status?.endpoint && !!dep && !!svc;
    }, `LanguageTool ${namespace}/${name} reconciled`);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'tooldeck-operator-scope-'));
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    // The CRDs and the operator's ServiceAccount and RBAC, as `kube install` applies them (its output is operator.test.ts's concern).
    await installOperator(admin.rest, { namespace: SYSTEM, image: 'tooldeck/operator:test', clusterWide: true, dryRun: false, force: false });
    saKubeconfig = (await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'tooldeck-operator', path: join(tmp, 'operator-kubeconfig') })).kubeconfigPath;
    await createNamespace(admin.rest, ALPHA);
    await createNamespace(admin.rest, BETA);
  }, 600_000);

  afterAll(async () => {
    for (const local of locals) local.process.kill('SIGKILL');
    for (const op of operators) op.process.kill('SIGKILL');
    admin?.close();
    await testbed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('tooldeck operator --namespace alpha reconciles the LanguageTool in alpha and leaves the same-named one in beta untouched', async () => {
    // Same name in both namespaces: only the namespace can tell them apart.
    await createTool(ALPHA, 'docs');
    const untouched = await createTool(BETA, 'docs');
    const op = await launch('operator-alpha', ['--namespace', ALPHA]);

    await converged(ALPHA, 'docs');
    await waitUntilSteady(op);
    const lease = await admin.rest.request<LeaseObject>('GET', leasePath('tooldeck-operator'));
    expect(lease.spec.holderIdentity).toBe('operator-alpha');
    expect(lease.metadata.annotations?.['tooldeck.dev/namespaces']).toBe(ALPHA);

    // Not one write to beta's tool (its resourceVersion is the one its creation returned), and nothing made for it.
    const beta = await admin.rest.request<ToolView>('GET', `${toolsPath(BETA)}/docs`);
    expect(beta.metadata.resourceVersion).toBe(untouched.metadata.resourceVersion);
    expect(beta.status).toBeUndefined();
    expect(beta.metadata.finalizers ?? []).toEqual([]);
    expect(await getOrUndefined(admin.rest, `/apis/apps/v1/namespaces/${BETA}/deployments/docs`)).toBeUndefined();
    expect(await getOrUndefined(admin.rest, `/api/v1/namespaces/${BETA}/services/docs`)).toBeUndefined();
    const events = await admin.rest.request<{ items: unknown[] }>('GET', `/apis/events.k8s.io/v1/namespaces/${BETA}/events`);
    expect(events.items).toEqual([]);
    // While alpha's tool got the operator's Event: the quiet in beta is scoping, not a silent operator.
    const alphaEvents = await admin.rest.request<{ items: Array<{ reason: string; reportingInstance: string }> }>('GET', `/apis/events.k8s.io/v1/namespaces/${ALPHA}/events`);
    expect(alphaEvents.items).toContainEqual(expect.objectContaining({ reason: 'Reconciled', reportingInstance: 'operator-alpha' }));
  });

  it('a running kube reconcile keeps going beside an operator of another scope, and stops with exit 1 naming the holder once an operator takes over its own', async () => {
    // operator-alpha holds its Lease; its scope is alpha, so reconciling beta from here is allowed.
    const local = reconcileLocally(BETA);
    await eventually(async () => local.stdout().includes(`Reconciling namespace ${BETA} on `), 'the local reconcile running', 60_000);
    await converged(BETA, 'docs');
    expect(local.process.exitCode).toBeNull();

    // A second operator for beta, with its own Lease: from its acquisition on, two controllers would write beta.
    const op = await launch('operator-beta', ['--namespace', BETA, '--lease-name', 'tooldeck-operator-beta']);
    // Bounded only so that a reconcile that never leaves fails with a sentence instead of the suite's timeout.
    const { code, at } = await Promise.race([
      local.exited,
      new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`the local reconcile still runs 60 s after operator-beta started: ${local.stderr()}`)), 60_000).unref()),
    ]);
    const lease = await admin.rest.request<LeaseObject>('GET', leasePath('tooldeck-operator-beta'));
    expect(lease.spec.holderIdentity).toBe(op.name);
    console.log(`local reconcile stopped ${at - Date.parse(lease.spec.acquireTime!)} ms after operator-beta acquired its lease (re-checked every 2 s)`);
    expect(code, local.stderr()).toBe(1);
    expect(local.stderr()).toContain(
      `Stopped reconciling namespace ${BETA}: the in-cluster operator operator-beta took the Lease ${SYSTEM}/tooldeck-operator-beta (acquired `,
    );
    expect(local.stderr()).toContain('and reconciles namespaces beta. Two controllers would fight over the same objects;');
    // The Leases were readable all along: no warning that a check could not be made.
    expect(local.stderr()).not.toMatch(/cannot (re-)?check for an in-cluster operator/);

    // The scope is the operator's now: it picks up beta's tool from where the local reconcile left it, without a failure.
    await waitUntilSteady(op);
    const m = await op.metrics();
    expect(total(m, 'controller_runtime_reconcile_total')).toBeGreaterThan(0);
    expect(total(m, 'controller_runtime_reconcile_errors_total')).toBe(0);
  });
});
