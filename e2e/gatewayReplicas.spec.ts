import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli } from '../app/cli/program';
import { connectKube, type KubeConnection } from '../main/kube/KubeConnection';
import { startTestbed, type Testbed } from './kube-testbed/testbed.mjs';
import { builtCli, createGatewayPod, startGatewayInNetns, type GatewayInNetns } from './kube/gatewayInNetns';
import { netnsUnavailableReason } from './kube/mcpInNetns';
import { expect, openSection, test } from './support/fixtures';
import { kubeTestbedSkipReason } from './support/kubeTestbed';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

const SYSTEM = 'tooldeck-system';
const skipReason = kubeTestbedSkipReason() ?? netnsUnavailableReason() ?? (existsSync(builtCli) ? undefined : 'the CLI is not built');
if (skipReason) console.warn(`Skipping the gateway replicas view e2e: ${skipReason}`);

test.describe.configure({ mode: 'serial' });
test.skip(!!skipReason, skipReason);

let tmp: string;
let testbed: Testbed;
let admin: KubeConnection;
let server: TooldeckServer;
const gateways: GatewayInNetns[] = [];
const clients: Client[] = [];

test.beforeAll(async () => {
  test.setTimeout(600_000);
  tmp = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-gateway-replicas-'));
  for (const [i, subnet] of [61, 62].entries()) gateways.push(await startGatewayInNetns(subnet, join(tmp, `replica-${i}`)));
  testbed = await startTestbed({ dataDir: join(tmp, 'data'), stderr: 'ignore', buildLog: () => {} });
  admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
  const install = await runCli(['kube', 'install', '--gateway', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:e2e'], { stdout: () => {}, stderr: () => {} });
  expect(install).toBe(0);
  await createGatewayPod(admin.rest, SYSTEM, 'tooldeck-gateway-7d4b9-a1b2c', gateways[0]!.address);
  await createGatewayPod(admin.rest, SYSTEM, 'tooldeck-gateway-7d4b9-d3e4f', gateways[1]!.address);
  server = await startTooldeckServer({ env: { KUBECONFIG: testbed.kubeconfigPath } });
});

test.afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await server?.stop();
  admin?.close();
  await testbed?.stop();
  for (const gateway of gateways) await gateway.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function agentOf(gateway: GatewayInNetns): Promise<Client> {
  const client = new Client({ name: 'agent-under-test', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${gateway.credential}` } } }));
  clients.push(client);
  // The example workspace's server starts in the background: the gateway offers its tools once it is listed.
  await expect.poll(async () => (await client.listTools()).tools.map((tool) => tool.name), { timeout: 45_000 }).toContain('everything.get-sum');
  return client;
}

test('the Cluster section shows each gateway replica’s calls, errors and held calls, per agent, live', async ({ page }) => {
  await page.goto(server.url);
  await openSection(page, 'Cluster');
  const panel = page.getByRole('region', { name: 'Gateway replicas' });
  const table = panel.getByRole('table', { name: 'Gateway traffic per replica' });
  const rowA = table.getByRole('row', { name: /^Replica tooldeck-gateway-7d4b9-a1b2c/ });
  const rowB = table.getByRole('row', { name: /^Replica tooldeck-gateway-7d4b9-d3e4f/ });
  await expect(rowA.getByLabel('Calls')).toHaveText('0', { timeout: 20_000 });
  await expect(panel.getByText('Deployment tooldeck-system/tooldeck-gateway: 0/2 ready · tooldeck/operator:e2e')).toBeVisible();

  const a = await agentOf(gateways[0]!);
  const b = await agentOf(gateways[1]!);
  for (const message of ['one', 'two', 'three']) await a.callTool({ name: 'everything.echo', arguments: { message } });
  void a.callTool({ name: 'everything.get-sum', arguments: { a: 2, b: 40 } }).catch(() => undefined);
  await b.callTool({ name: 'everything.echo', arguments: { message: 'on b' } });
  await b.callTool({ name: 'everything.echo', arguments: { message: 42 } });

  // Live: the panel reads the replicas again by itself.
  await expect(rowA.getByLabel('Held now')).toHaveText('1', { timeout: 20_000 });
  await expect(rowA.getByLabel('Calls')).toHaveText('4');
  await expect(rowB.getByLabel('Calls')).toHaveText('2', { timeout: 20_000 });
  await expect(rowB.getByLabel('Errors')).toHaveText('1');
  await expect(table.getByRole('row', { name: 'Agent assistant on tooldeck-gateway-7d4b9-a1b2c' }).getByLabel('Held now')).toHaveText('1');
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('cluster-gateway-replicas.png'), fullPage: true });
});
