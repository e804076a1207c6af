import { join } from 'node:path';
import { repoRoot } from './support/tooldeckServer';
import { expect, openSection, test } from './support/fixtures';

// A 1,000-tool server (written for the tests) connected from the UI: the long tasks of the main
// thread while it connects and its tools render are printed (target: none over 100 ms), the
// server's Tools tab keeps a few dozen rows in the page and finds a tool by search.

const script = join(repoRoot, 'e2e/peers/mcp/thousandToolServerForTests.mjs');

test('connect a 1,000-tool server without blocking the page, then search its tools', async ({ page, tooldeck }) => {
  await page.addInitScript({
    content: `window.__longTasks = []; new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask', buffered: true });`,
  });
  await page.goto(tooldeck.url);
  await openSection(page, 'Servers');
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add MCP server' });
  await dialog.getByLabel('Name').fill('thousand');
  await dialog.getByLabel('Command').fill(`${process.execPath} ${script} 1000`);
  await dialog.getByRole('button', { name: 'Add server' }).click();
  const confirm = page.getByRole('dialog', { name: 'Run this command?' });
  await expect(page.getByRole('listitem', { name: 'thousand' })).toHaveCount(0);
  const before = (await page.evaluate('performance.now()')) as number;
  await confirm.getByRole('button', { name: 'Run and save' }).click();

  await expect(page.getByRole('listitem', { name: 'thousand' })).toContainText('1000 tools', { timeout: 30_000 });
  await page.getByRole('listitem', { name: 'thousand' }).click();
  const table = page.getByRole('table', { name: 'Tools of thousand' });
  await expect(table.getByRole('row').first()).toBeVisible();
  const count = page.getByRole('status').filter({ hasText: /tools$/ });
  await expect(count).toHaveText('1000 tools');
  // The catalogue, search index and palette settle after the list arrives: give them a second of quiet.
  await page.waitForTimeout(1_000);
  const tasks = (await page.evaluate(`window.__longTasks.filter((t) => t.start >= ${before})`)) as { start: number; duration: number }[];
  console.log(`long tasks while a 1,000-tool server connected and rendered: ${tasks.length ? tasks.map((t) => `${Math.round(t.duration)} ms`).join(', ') : 'none'}`);
  // Printed, not asserted: durations depend on the machine's load, and the 100 ms target is
  // measured by `npm run bench -- ui`. What caused the 0.6–1.3 s block — all 1,000 rows rendered at
  // once — is checked directly: the tab keeps only the rows in view in the DOM.
  expect(await table.getByRole('row').count()).toBeLessThan(60);
  const search = page.getByRole('textbox', { name: 'Search tools of thousand' });
  await search.fill('stripe reopen');
  await expect(count).toHaveText(/^\d+ of 1000 tools$/);
  await expect(table.getByRole('row').first()).toContainText('stripe_reopen');
  await search.fill('no such tool anywhere');
  await expect(table).toContainText('No tool matches');
  await page.getByRole('button', { name: 'Clear search' }).click();
  await expect(search).toHaveValue('');
  await expect(count).toHaveText('1000 tools');

  await table.getByRole('row', { name: /^github_create_issue/ }).click();
  await expect(page.getByRole('heading', { name: 'github_create_issue' })).toBeVisible();
  await openSection(page, 'Servers');
});
