import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LLMock } from '@copilotkit/aimock';
import { startScriptedModels } from '../main/evals/testing/scriptedModels';
import { expect, openSection, test } from './support/fixtures';
import { cliPath, startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * Definitions meet evals, against the real console: a hand-written drifting MCP server changes
 * get_weather's description while connected; in the drift review the operator runs the
 * workspace's suite with the approved and the pending definition side by side, and sees that the
 * change makes a model (aimock's `cautious`) stop picking the tool.
 */
const driftingServer = join(import.meta.dirname, 'peers/mcp/driftingServerForTests.mjs');
let console_: TooldeckServer;
let models: { url: string; mock: LLMock };
let statePath: string;
const drift = (variant: string) => writeFileSync(statePath, JSON.stringify({ variant }));

test.beforeAll(async () => {
  models = await startScriptedModels();
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-definition-evals-'));
  statePath = join(dataDir, 'drift-state.json');
  drift('baseline');
  for (const args of [
    ['mcp', 'add', 'drift', '--stdio', `${process.execPath} ${driftingServer}`, '--env', `DRIFT_STATE=${statePath}`],
    ['providers', 'add', 'mock', '--format', 'openai', '--base-url', `${models.url}/v1`],
  ]) {
    const done = spawnSync(process.execPath, [cliPath, '--data-dir', dataDir, ...args], { encoding: 'utf8' });
    expect(done.status, done.stderr).toBe(0);
  }
  console_ = await startTooldeckServer({ dataDir });
  mkdirSync(join(dataDir, 'workspace', 'evals'), { recursive: true });
  writeFileSync(join(dataDir, 'workspace', 'evals', 'weather.yml'), 'name: weather\ntools: [mcp:drift.get_weather, mcp:drift.convert]\ncases:\n  - name: weather in Lisbon\n    prompt: What is the weather in Lisbon?\n    expect:\n      toolCalls: [{ tool: get_weather, arguments: { city: string } }]\n');
});
test.afterAll(async () => {
  await console_?.stop();
  await models?.mock.stop();
});

test('the drift review runs the suites that use a changed tool with both definitions, side by side', async ({ page }) => {
  await page.goto(console_.url);
  await openSection(page, 'Servers');
  await page.getByRole('listitem', { name: 'drift' }).click();
  await expect(page.getByRole('listitem', { name: 'drift' })).toContainText('Connected');
  await page.getByRole('tab', { name: /^History/ }).click();
  await expect(page.getByText('Every tool matches tooldeck.lock')).toBeVisible();

  drift('description');
  await expect(page.getByRole('tab', { name: 'History (1 held)' })).toBeVisible();
  const evals = page.getByLabel('Definition diff').getByLabel('Evals with both definitions');
  const models = evals.getByRole('combobox', { name: 'Models' });
  await models.fill('mock/cautious');
  await models.press('Enter');
  await evals.getByRole('button', { name: 'Run evals with both definitions' }).click();
  const row = evals.getByRole('row', { name: 'weather in Lisbon with mock/cautious' });
  await expect(row.getByRole('cell').nth(2)).toContainText('100%', { timeout: 30_000 });
  await expect(row.getByRole('cell').nth(2)).toContainText('drift_get_weather');
  await expect(row.getByRole('cell').nth(3)).toContainText('0%');
  await expect(row.getByRole('cell').nth(3)).toContainText('selection changed');
  await expect(row.getByRole('cell').nth(3)).toContainText('no tool');
  await evals.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('definition-evals.png'), animations: 'disabled' });
});
