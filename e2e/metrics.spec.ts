import { execFileSync } from 'node:child_process';
import { everythingScript } from './peers/mcp/everything';
import { expect, openSection, test } from './support/fixtures';
import { cliPath } from './support/tooldeckServer';

test('20 echo calls from the CLI show on the dashboard and in History, and Replay adds one', async ({ page, tooldeck }) => {
  test.setTimeout(120_000);
  const cli = (...args: string[]) => execFileSync(process.execPath, [cliPath, '--data-dir', tooldeck.dataDir, ...args], { encoding: 'utf8' });
  cli('mcp', 'add', 'ev', '--stdio', `${process.execPath} ${everythingScript} stdio`);
  for (let i = 0; i < 20; i++) cli('mcp', 'call', 'echo', 'ev', '--args', JSON.stringify({ message: `call ${i}` }));

  await page.goto(tooldeck.url);
  // The console notices the server the CLI saved and connects it.
  await openSection(page, 'Servers');
  await expect(page.getByRole('listitem', { name: 'ev', exact: true })).toContainText('Connected');
  await openSection(page, 'Metrics');
  const dashboard = page.getByRole('region', { name: 'Metrics dashboard' });
  await expect(dashboard).toBeVisible();
  await expect(dashboard.getByText('Calls', { exact: true }).first()).toBeVisible();
  await expect(dashboard).toContainText('20');
  await expect(dashboard.getByLabel('Latency percentiles')).toBeVisible();

  await openSection(page, 'History');
  await page.getByRole('textbox', { name: 'Search' }).fill('call 7');
  const calls = page.getByRole('grid', { name: 'Calls' }).or(page.getByRole('table', { name: 'Calls' }));
  await expect(calls.getByRole('row').filter({ hasText: 'echo' })).toHaveCount(1);
  await calls.getByRole('row').filter({ hasText: 'echo' }).first().click();
  await page.getByRole('button', { name: 'Replay' }).click();
  const dialogConfirm = page.getByRole('dialog').getByRole('button', { name: /Replay|Invoke|Confirm/ });
  if (await dialogConfirm.isVisible().catch(() => false)) await dialogConfirm.click();
  await expect(page.getByRole('region', { name: 'Result' }).first()).toContainText('Echo: call 7');
  await page.getByRole('textbox', { name: 'Search' }).fill('');
  await openSection(page, 'Metrics');
  await expect(page.getByRole('region', { name: 'Metrics dashboard' })).toContainText('21', { timeout: 15_000 });
});
