import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../app/cli/program';
import { connectKube, type KubeConnection } from '../main/kube/KubeConnection';
import { startTestbed, type Testbed } from './kube-testbed/testbed.mjs';
import { createNamespace, toolsPath } from './kube/clusterFixtures';
import { startOperator, type OperatorProcess } from './kube/OperatorProcess';
import { expect, openSection, test } from './support/fixtures';
import { kubeTestbedSkipReason } from './support/kubeTestbed';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

const NS = 'e2e-operator';
const SYSTEM = 'tooldeck-system';
const skipReason = kubeTestbedSkipReason();
if (skipReason) console.warn(`Skipping the operator view e2e: ${skipReason}`);

test.describe.configure({ mode: 'serial' });
test.skip(!!skipReason, skipReason);

let tmp: string;
let testbed: Testbed;
let admin: KubeConnection;
let operator: OperatorProcess;
let server: TooldeckServer;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  tmp = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-operator-'));
  testbed = await startTestbed({ dataDir: join(tmp, 'data'), stderr: 'ignore', buildLog: () => {} });
  admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
  const install = await runCli(['kube', 'install', '--cluster-wide', '--kubeconfig', testbed.kubeconfigPath, '--image', 'tooldeck/operator:e2e'], { stdout: () => {}, stderr: () => {} });
  expect(install).toBe(0);
  await createNamespace(admin.rest, NS);
  const sa = await testbed.serviceAccountKubeconfig({ namespace: SYSTEM, name: 'tooldeck-operator', path: join(tmp, 'operator-kubeconfig') });
  operator = await startOperator({ name: 'tooldeck-operator-5c8d-x7k2p', kubeconfig: sa.kubeconfigPath, leaseNamespace: SYSTEM });
  server = await startTooldeckServer({ env: { KUBECONFIG: testbed.kubeconfigPath } });
});

test.afterAll(async () => {
  await server?.stop();
  operator?.process.kill('SIGTERM');
  await operator?.exited;
  admin?.close();
  await testbed?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('the Cluster section shows the in-cluster operator: leader, lease, replicas, last reconcile and its Events; a stopped operator shows as no leader', async ({ page }) => {
  await page.goto(server.url);
  await openSection(page, 'Cluster');
  const panel = page.getByRole('region', { name: 'In-cluster operator' });
  await expect(panel.getByLabel('Leader')).toHaveText('tooldeck-operator-5c8d-x7k2p', { timeout: 20_000 });
  await expect(panel.getByText('Leading')).toBeVisible();
  await expect(panel.getByText(`Lease ${SYSTEM}/tooldeck-operator · operator 0.1.0 · reconciles all namespaces`)).toBeVisible();
  await expect(panel.getByLabel('Replicas ready')).toHaveText('0/2');
  await expect(panel.getByLabel('Handovers')).toHaveText('0');

  await admin.rest.request('POST', toolsPath(NS), { body: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'weather', namespace: NS }, spec: { image: 'tooldeck.test/weather:1' } } });
  const events = panel.getByRole('table', { name: 'Operator events' });
  await expect(events.getByRole('row', { name: /Reconciled/ })).toContainText(`LanguageTool ${NS}/weather`, { timeout: 20_000 });
  await expect(events.getByRole('row', { name: /Reconciled/ })).toContainText(`created Deployment ${NS}/weather`);
  await expect(panel.getByLabel('Last reconcile')).toHaveText(/^\d+s ago$/);
  await expect(page.getByRole('table', { name: 'Tool inventory' }).getByRole('row', { name: /weather/ })).toContainText('Pending');
  await page.screenshot({ path: test.info().outputPath('cluster-operator.png') });

  operator.process.kill('SIGTERM');
  await operator.exited;
  await expect(panel.getByText('No leader')).toBeVisible({ timeout: 20_000 });
  await expect(panel.getByText(/is free: no replica is reconciling/)).toBeVisible();
});
