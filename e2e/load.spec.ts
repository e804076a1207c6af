import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openSection, test } from './support/fixtures';

// A load test from the Collections section against the example workspace's server-everything:
// live charts each second, Stop, then the run in History as one run with its summary, and the
// Metrics section narrowed to it.

test('start a load test, watch it live, stop it, find it in History and filter Metrics by it', async ({ page, tooldeck }) => {
  const folder = join(tooldeck.dataDir, 'workspace', 'collections');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'load-smoke.yaml'),
    ['name: load-smoke', 'requests:', '  - name: echo', '    target: mcp:everything', '    tool: echo', '    arguments:', '      message: under load', ''].join('\n'),
  );
  await page.goto(`${tooldeck.origin}/collections?collection=load-smoke#token=${tooldeck.token}`);
  await expect(page.getByRole('heading', { name: 'load-smoke' })).toBeVisible({ timeout: 20_000 });

  await page.getByText('Load test', { exact: true }).click();
  await page.getByRole('textbox', { name: 'Rate' }).fill('20');
  await page.getByRole('textbox', { name: 'Duration' }).fill('60');
  const thresholds = page.getByRole('combobox', { name: 'Thresholds' });
  await thresholds.fill('p50<0.001ms');
  await thresholds.press('Enter');
  await page.getByRole('button', { name: 'Start load test' }).click();

  const panel = page.getByLabel('Load run');
  await expect(panel.getByText('Running', { exact: true })).toBeVisible({ timeout: 30_000 });
  // The charts draw a point a second: wait for the third second rather than for time.
  await expect(panel.getByRole('status')).toContainText(/· [3-9] s of 60 s/, { timeout: 30_000 });
  await expect(page.getByRole('figure', { name: 'Throughput' }).locator('.recharts-line')).toHaveCount(2);
  await expect(page.getByRole('figure', { name: 'Latency percentiles' }).locator('.recharts-line')).toHaveCount(3);
  await expect(page.getByRole('figure', { name: 'Errors' })).toContainText('No errors');
  await expect(page.getByRole('figure', { name: 'Thresholds' })).toContainText('waiting for the end of the run');

  await panel.getByRole('button', { name: 'Stop' }).click();
  await expect(panel.getByText('Stopped', { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('table', { name: 'Per request' })).toContainText('mcp:everything.echo');
  await expect(page.getByRole('figure', { name: 'Thresholds' })).toContainText(/p50 .* fails < 0\.001 ms/);
  const callsGroup = page.getByRole('group', { name: 'Calls' });
  const calls = Number((await callsGroup.locator('p').nth(1).textContent())!.replace(/,/g, ''));
  expect(calls).toBeGreaterThan(20);
  // A call in flight when Stop was pressed is canceled: History records it, the figures leave it out.
  // Read from the caption alone: the group's whole text runs the value and the caption together
  // ("68" then "1 canceled by Stop" reads "681 canceled by Stop").
  const caption = (await callsGroup.locator('p').nth(2).textContent()) ?? '';
  const canceledByStop = Number(/^([\d,]+) canceled by Stop/.exec(caption)?.[1]?.replace(/,/g, '') ?? 0);

  await panel.getByRole('button', { name: 'Calls in History' }).click();
  await expect(page.getByText(/^Run: load-smoke/)).toBeVisible();
  await expect(page.getByText(new RegExp(`^${(calls + canceledByStop).toLocaleString('en-US')} calls`))).toBeVisible({ timeout: 10_000 });

  await page.getByText(/^Runs( \(\d+\))?$/).click();
  const runs = page.getByRole('table', { name: 'Runs' });
  await expect(runs).toContainText('load-smoke');
  await expect(runs).toContainText('load test');
  await expect(runs).toContainText('stopped');
  await runs.getByRole('button', { name: /^Run of load-smoke/ }).first().click();
  const drawer = page.getByRole('dialog', { name: 'Run' });
  await expect(drawer.getByRole('figure', { name: 'Latency percentiles' })).toBeVisible();
  await drawer.getByRole('button', { name: 'Metrics for this run' }).click();

  await expect(page.getByRole('heading', { name: 'Metrics' })).toBeVisible();
  await expect(page.getByText(/^Run: load-smoke · load test/)).toBeVisible();
  await expect(page.getByRole('group', { name: 'Calls' })).toContainText((calls + canceledByStop).toLocaleString('en-US'), { timeout: 10_000 });
  await openSection(page, 'Collections');
});
