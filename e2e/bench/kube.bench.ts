// `npm run bench -- kube`: 200 LanguageTools reconciled to steady state on the real test bed
// (kube-apiserver 1.35 + etcd). The bench plays kubelet and controllers: it marks each Deployment
// ready and writes Endpoints that route every tool's Service to one server-everything running in
// a network namespace, so discovery (tools/list through the service proxy) is part of the run.
// Without root/netns it measures without discovery (Deployments stay unready, tools Pending).
import { connectKube } from '../../main/kube/KubeConnection';
import { installCrds } from '../../main/kube/crds';
import { LanguageToolReconciler } from '../../main/kube/LanguageToolReconciler';
import { createStderrLogger } from '../../main/platform/Logger';
import { startTestbed } from '../kube-testbed/testbed.mjs';
import { createEndpoints, createNamespace, createRunningPod, eventually, markDeploymentReady, toolsPath } from '../kube/clusterFixtures';
import { netnsUnavailableReason, startMcpInNetns, type NetnsMcpServer } from '../kube/mcpInNetns';

const TOOLS = 200;
const NS = 'bench';
const QUIET_MS = 5_000;

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function main() {
  const noNetns = netnsUnavailableReason();
  if (noNetns) console.log(`No discovery in this run: ${noNetns}`);
  let mcp: NetnsMcpServer | undefined;
  const testbed = await startTestbed({ stderr: 'ignore' });
  const direct = connectKube({ kubeconfig: testbed.kubeconfigPath });
  const reconcilers: LanguageToolReconciler[] = [];
  const newReconciler = async () => {
    const r = new LanguageToolReconciler({
      connection: connectKube({ kubeconfig: testbed.kubeconfigPath, namespace: NS }),
      logger: createStderrLogger('error'),
      clientInfo: { name: 'tooldeck-bench', version: '0' },
    });
    reconcilers.push(r);
    await r.start();
    return r;
  };
  try {
    if (!noNetns) mcp = await startMcpInNetns({ subnet: 2 });
    await installCrds(direct.rest);
    await createNamespace(direct.rest, NS);
    if (mcp) await createRunningPod(direct.rest, NS, 'mcp-pod', mcp.address);
    const names = Array.from({ length: TOOLS }, (_, i) => `tool-${String(i).padStart(3, '0')}`);

    const reconciler = await newReconciler();
    const started = performance.now();
    await inBatches(names, 10, (name) =>
      direct.rest.request('POST', toolsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name, namespace: NS }, spec: { image: `bench.test/${name}:1` } } }),
    );

    if (mcp) {
      // Kubelet and controllers: ready Deployments, Endpoints for every Service, as they appear.
      const readied = new Set<string>();
      const routed = new Set<string>();
      await eventually(
        async () => {
          const deps = await direct.rest.request<{ items: Array<{ metadata: { name: string } }> }>('GET', `/apis/apps/v1/namespaces/${NS}/deployments`);
          await inBatches(
            deps.items.filter((d) => !readied.has(d.metadata.name)),
            10,
            async (d) => {
              await markDeploymentReady(direct.rest, NS, d.metadata.name);
              readied.add(d.metadata.name);
            },
          );
          const services = await direct.rest.request<{ items: Array<{ metadata: { name: string } }> }>('GET', `/api/v1/namespaces/${NS}/services`);
          await inBatches(
            services.items.filter((s) => !routed.has(s.metadata.name)),
            10,
            async (s) => {
              await createEndpoints(direct.rest, NS, s.metadata.name, 'mcp-pod', mcp!.address, mcp!.port);
              routed.add(s.metadata.name);
            },
          );
          const tools = await direct.rest.request<{ items: Array<{ status?: { phase?: string } }> }>('GET', toolsPath(NS));
          return tools.items.filter((t) => t.status?.phase === 'Running').length === TOOLS;
        },
        'all tools Running',
        300_000,
      );
    } else {
      await eventually(
        async () => {
          const tools = await direct.rest.request<{ items: Array<{ status?: { endpoint?: string } }> }>('GET', toolsPath(NS));
          return tools.items.filter((t) => t.status?.endpoint).length === TOOLS;
        },
        'all tools reconciled',
        300_000,
      );
    }
    await reconciler.whenSteady(500);
    const seconds = (performance.now() - started - 500) / 1_000;
    const counts = reconciler.stats.snapshot();

    const mark = counts.writes;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    await reconciler.whenSteady();
    const quietWrites = reconciler.stats.snapshot().writes - mark;
    await reconciler.stop();
    const fresh = await newReconciler();
    await fresh.whenSteady();
    const restartWrites = fresh.stats.snapshot().writes;
    const steadyStateWrites = quietWrites + restartWrites;

    console.log(`tools                  ${TOOLS}${mcp ? ' (discovered through the service proxy)' : ' (no discovery)'}`);
    console.log(`to steady state        ${seconds.toFixed(1)} s (target < 60 s)`);
    console.log(`requests per tool      ${(counts.total / TOOLS).toFixed(2)} (reads ${counts.reads}, writes ${counts.writes}, MCP via proxy ${counts.proxy}, watches ${counts.watches}, conflicts ${counts.conflicts})`);
    console.log(`writes per tool        ${(counts.writes / TOOLS).toFixed(2)}`);
    console.log(`steady-state writes    ${quietWrites} in ${QUIET_MS / 1000} s quiet, ${restartWrites} by a fresh reconciler`);
    console.log(JSON.stringify({ bench: 'kube', tools: TOOLS, seconds: Number(seconds.toFixed(2)), requests_per_tool: Number((counts.total / TOOLS).toFixed(2)), steady_state_writes: steadyStateWrites }));
  } finally {
    for (const r of reconcilers) {
      await r.stop().catch(() => undefined);
      r.connection.close();
    }
    direct.close();
    await testbed.stop();
    await mcp?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
