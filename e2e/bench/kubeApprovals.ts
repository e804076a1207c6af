// `npm run bench -- kube -- --approvals`: 2,000 calls held as ToolApproval objects across two
// gateway replicas (two ClusterApprovals stores as the gateway's ServiceAccount, each with its own
// watch) on the real test bed, each decided by an approver (a third store, bound to the
// tooldeck-approver Role) as soon as it is Pending. It prints approvals created per second, the
// decision-to-resume latency (from sending the status patch to the held call resuming on its
// replica) p50/p99, API requests per approval (every request of the three stores), and lost or
// doubly resumed calls. It exits 1 when p99 is 2 s or more, more than 4 requests per approval
// were needed, or any call was lost or resumed twice (the bounds).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolApproval } from '../../shared/approvals';
import { ClusterApprovals } from '../../main/kube/ClusterApprovals';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { RequestStats } from '../../main/kube/RequestStats';
import { APPROVER_ROLE, GATEWAY_COMPONENT } from '../../main/kube/operator/gatewayManifests';
import { installOperator } from '../../main/kube/operator/installOperator';
import { startTestbed } from '../kube-testbed/testbed.mjs';
import { fmt, round, summarize } from './benchStats';

const CALLS = Number(process.env.BENCH_APPROVALS ?? 2_000);
const IN_FLIGHT = 100;
const NS = 'tooldeck-system';
const MAX_P99_MS = 2_000;
const MAX_REQUESTS_PER_APPROVAL = 4;

export async function runApprovalsBench(): Promise<boolean> {
  const tmp = mkdtempSync(join(tmpdir(), 'tooldeck-bench-approvals-'));
  const testbed = await startTestbed({ stderr: 'ignore' });
  const connections: KubeConnection[] = [];
  const stores: ClusterApprovals[] = [];
  try {
    const admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    connections.push(admin);
    await installOperator(admin.rest, { namespace: NS, image: 'tooldeck/operator:bench', dryRun: false, force: false, gateway: { replicas: 2 } });
    const gatewayKc = join(tmp, 'gateway-kc');
    await testbed.serviceAccountKubeconfig({ namespace: NS, name: GATEWAY_COMPONENT, path: gatewayKc });
    const approverKc = join(tmp, 'approver-kc');
    await testbed.serviceAccountKubeconfig({ namespace: NS, name: 'approver', path: approverKc });
    await admin.rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'approver' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: APPROVER_ROLE }, subjects: [{ kind: 'ServiceAccount', name: 'approver', namespace: NS }] },
    });

    const stats = [new RequestStats(), new RequestStats(), new RequestStats()];
    const open = async (kubeconfig: string, index: number, holder: string, watch: boolean) => {
      const connection = connectKube({ kubeconfig }, stats[index]);
      connections.push(connection);
      const store = await ClusterApprovals.open({ connection, namespace: NS, holder, watch });
      stores.push(store);
      return store;
    };
    const replicas = [await open(gatewayKc, 0, 'replica-a', true), await open(gatewayKc, 1, 'replica-b', true)];
    const approver = await open(approverKc, 2, 'approver', false);
    const before = stats.map((s) => s.snapshot().total);

    const pendingDecisions: Array<{ resumedAt: number; decided: () => number; started: () => number }> = [];
    const resumedTimes = new Map<string, number>();
    let lost = 0;
    let doubly = 0;
    let pendingSeen = 0;
    let firstCreate = 0;
    let lastPending = 0;
    const decisions: Promise<void>[] = [];
    const started = performance.now();

    const holdOne = async (i: number) => {
      const replica = replicas[i % 2]!;
      let decideStarted = 0;
      let decidedAt = 0;
      firstCreate ||= performance.now();
      try {
        const approval: ToolApproval = await replica.hold(
          { agent: 'bench', tool: 'mcp:everything.get-sum', operationClass: 'write', input: { a: i, b: 1 }, reason: 'bench', policyVersion: 'v1', taskRef: `bench/${i}` },
          {
            onPending: (pending) => {
              pendingSeen++;
              lastPending = performance.now();
              decisions.push(
                (async () => {
                  decideStarted = performance.now();
                  await approver.decide(pending.metadata.name, 'approve', 'bench');
                  decidedAt = performance.now();
                })(),
              );
            },
          },
        );
        const times = (resumedTimes.get(approval.metadata.name) ?? 0) + 1;
        resumedTimes.set(approval.metadata.name, times);
        if (times > 1) doubly++;
        const resumedAt = performance.now();
        // The watch may wake the call before the approver's patch is answered: then the decision is
        // taken as committed when the call resumed (latency 0), never negative.
        pendingDecisions.push({ resumedAt, decided: () => decidedAt || resumedAt, started: () => decideStarted });
      } catch (error) {
        lost++;
        console.error(`call ${i} did not resume: ${(error as Error).message}`);
      }
    };

    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < CALLS) await holdOne(next++);
      }),
    );
    await Promise.allSettled(decisions);
    const elapsedMs = performance.now() - started;
    for (const store of stores) await store.settled();
    const requests = stats.reduce((sum, s, index) => sum + s.snapshot().total - before[index]!, 0);
    const perApproval = requests / CALLS;
    const latency = summarize(pendingDecisions.map((d) => Math.max(0, d.resumedAt - d.decided())));
    const endToEnd = summarize(pendingDecisions.map((d) => d.resumedAt - d.started()));
    const createdPerSecond = pendingSeen / ((lastPending - firstCreate) / 1_000);

    console.log(`${CALLS} held calls across 2 gateway replicas, ${IN_FLIGHT} in flight, each approved as soon as it was Pending`);
    console.log(`approvals created: ${createdPerSecond.toFixed(0)}/s; whole run ${(elapsedMs / 1_000).toFixed(1)} s`);
    console.log(`decision → resume: p50 ${fmt(latency.median)}, p99 ${fmt(latency.p99)} (target p99 < ${MAX_P99_MS} ms; from the status patch's answer to the call resuming on its replica)`);
    console.log(`approver starts deciding → resume: p50 ${fmt(endToEnd.median)}, p99 ${fmt(endToEnd.p99)} (with the approver's read and patch, ${IN_FLIGHT} decisions in flight)`);
    console.log(`API requests per approval: ${perApproval.toFixed(2)} (target ≤ ${MAX_REQUESTS_PER_APPROVAL}; create, the approver's read and status patch, deletes of history past 500)`);
    console.log(`lost: ${lost}, resumed twice: ${doubly}, resumed: ${resumedTimes.size}`);
    stats.forEach((s, index) => console.log(`  ${['replica A', 'replica B', 'approver'][index]}: ${JSON.stringify(s.snapshot())}`));
    const ok = latency.p99 < MAX_P99_MS && perApproval <= MAX_REQUESTS_PER_APPROVAL && lost === 0 && doubly === 0 && resumedTimes.size === CALLS;
    console.log(
      JSON.stringify({ bench: 'kube-approvals', calls: CALLS, createdPerSecond: round(createdPerSecond, 1), p50Ms: round(latency.median), p99Ms: round(latency.p99), endToEndP99Ms: round(endToEnd.p99), requestsPerApproval: round(perApproval, 2), lost, doublyResumed: doubly, ok }),
    );
    return ok;
  } finally {
    for (const store of stores) await store.close().catch(() => undefined);
    for (const connection of connections) connection.close();
    await testbed.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
