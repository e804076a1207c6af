import { PostgresHistory } from '../main/store/PostgresHistory';
import { startPostgresRig, type PostgresRig } from '../main/store/testing/postgresHistoryRig';
import { invocation } from '../main/store/testing/testRecords';
import { expect, openSection, test } from './support/fixtures';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The console reads the fleet: `serve --history-url` shows the calls two gateway replicas wrote
 * into one PostgreSQL, with a Replica column and picker, and a call another replica records while
 * the page is open appears without a reload.
 */
let rig: PostgresRig;
let url: string;
let console_: TooldeckServer;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  rig = await startPostgresRig({ password: 'console-pw' });
  url = await rig.database();
  const now = Date.now();
  for (const replica of ['gateway-5c7d-a', 'gateway-5c7d-b']) {
    const writer = await PostgresHistory.open({ url, retention: false });
    for (let i = 0; i < 3; i++) {
      writer.record(invocation({ id: `${replica}-${i}`, startedAt: now - 60_000 + i * 1_000, tool: 'echo', argumentsJson: JSON.stringify({ message: `from ${replica} #${i}` }), via: 'gateway', agent: 'planner-bot', replica }));
    }
    await writer.close();
  }
  console_ = await startTooldeckServer({ args: ['--history-url', url, '--replica-name', 'console-1'] });
});

test.afterAll(async () => {
  await console_?.stop();
  await rig?.stop();
});

test("History shows both replicas' calls, filters by replica, and a new call from another replica arrives live", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(console_.url);
  await openSection(page, 'History');
  const calls = page.getByRole('grid', { name: 'Calls' });
  await expect(calls.getByRole('row').filter({ hasText: 'planner-bot' })).toHaveCount(6);
  await expect(calls.getByRole('columnheader', { name: 'Replica' })).toBeVisible();
  await expect(calls.getByRole('row').filter({ hasText: 'gateway-5c7d-a' })).toHaveCount(3);
  await expect(calls.getByRole('row').filter({ hasText: 'gateway-5c7d-b' })).toHaveCount(3);

  // Another replica records a call while the page is open: it appears without a reload.
  const writer = await PostgresHistory.open({ url, retention: false });
  writer.record(invocation({ id: 'live-1', startedAt: Date.now(), tool: 'get-sum', argumentsJson: '{"a":1,"b":2}', via: 'gateway', agent: 'builder-bot', replica: 'gateway-5c7d-b' }));
  await writer.close();
  await expect(calls.getByRole('row').filter({ hasText: 'builder-bot' })).toHaveCount(1, { timeout: 5_000 });
  await expect(calls.getByRole('row').filter({ hasText: 'builder-bot' })).toContainText('gateway-5c7d-b');

  await page.getByRole('combobox', { name: 'Replica' }).click();
  await page.getByRole('option', { name: 'gateway-5c7d-a' }).click();
  await expect(calls.getByRole('row').filter({ hasText: 'planner-bot' })).toHaveCount(3);
  await expect(calls.getByRole('row').filter({ hasText: 'gateway-5c7d-b' })).toHaveCount(0);
});
