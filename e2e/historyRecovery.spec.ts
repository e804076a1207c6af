import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './support/fixtures';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/** A console whose history file is damaged says so over every section, with where the old file went. */
let console_: TooldeckServer;

test.beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-history-'));
  writeFileSync(join(dataDir, 'tooldeck.db'), 'not a database\n'.repeat(100));
  console_ = await startTooldeckServer({ dataDir });
});
test.afterAll(() => console_?.stop());

test('a history file moved aside is announced in a banner naming the old file, and the banner can be dismissed', async ({ page }) => {
  const moved = readdirSync(console_.dataDir).find((name) => name.startsWith('tooldeck.db.corrupt-'));
  expect(moved).toBeDefined();
  await page.goto(console_.url);
  const banner = page.getByRole('alert').filter({ hasText: 'Invocation history' });
  await expect(banner).toContainText('could not be used');
  await expect(banner).toContainText(join(console_.dataDir, moved!));
  await expect(banner).toContainText('a new, empty history was started');
  await banner.getByRole('button', { name: 'Dismiss' }).click();
  await expect(banner).toBeHidden();
});
