import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LLMock } from '@copilotkit/aimock';
import { startScriptedModels } from '../main/evals/testing/scriptedModels';
import { expect, openSection, test } from './support/fixtures';
import { cliPath, startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The Evals section against the real console (`tooldeck serve` with the seeded example workspace,
 * whose pod grants agent `assistant` everything's get-sum and echo) and aimock as the models: the
 * operator runs a suite of the workspace against two models from the UI, sees the case × model
 * matrix, and opens the failing run's transcript.
 */
test.describe.configure({ mode: 'serial' });

let console_: TooldeckServer;
let models: { url: string; mock: LLMock };

test.beforeAll(async () => {
  models = await startScriptedModels();
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-evals-'));
  await promisify(execFile)(process.execPath, [cliPath, '--data-dir', dataDir, 'providers', 'add', 'mock', '--format', 'openai', '--base-url', `${models.url}/v1`]);
  console_ = await startTooldeckServer({ dataDir });
  // The seeded workspace is there once the console serves; the suite arrives as a file written outside (the folder is watched).
  mkdirSync(join(dataDir, 'workspace', 'evals'), { recursive: true });
  writeFileSync(
    join(dataDir, 'workspace', 'evals', 'sums.yml'),
    'name: assistant sums\nagent: assistant\ncases:\n  - name: adds\n    prompt: Please add 2 and 40\n    expect:\n      toolCalls: [{ tool: everything.get-sum, arguments: { a: number, b: number } }]\n      finalAnswerContains: "42"\n',
  );
});
test.afterAll(async () => {
  await console_?.stop();
  await models?.mock.stop();
});

test('run a suite against two models from the console, read the matrix, open the failing run’s transcript', async ({ page }) => {
  await page.goto(console_.url);
  // The agent's grants are everything's tools: wait until the seeded server is connected.
  await expect(page.getByRole('listitem', { name: 'everything' })).toContainText('Connected', { timeout: 30_000 });
  await openSection(page, 'Evals');
  const suites = page.getByRole('navigation', { name: 'Eval suites' });
  await expect(suites.getByText('assistant sums')).toBeVisible({ timeout: 30_000 });
  // The seeded example brings a suite of its own (evals/assistant.yml): pick this one.
  await suites.getByText('assistant sums').click();

  const models = page.getByRole('combobox', { name: 'Models' });
  await models.fill('mock/right');
  await models.press('Enter');
  await models.fill('mock/wrong');
  await models.press('Enter');
  await page.getByRole('button', { name: 'Run suite' }).click();

  const matrix = page.getByRole('table', { name: 'Case by model' });
  await expect(matrix.getByRole('button', { name: 'adds with mock/right: 1 of 1 passed' })).toBeVisible({ timeout: 30_000 });
  await expect(matrix.getByRole('button', { name: 'adds with mock/wrong: 0 of 1 passed' })).toBeVisible();
  await expect(page.getByText('accuracy 50%')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('evals-matrix.png'), fullPage: true });

  await matrix.getByRole('button', { name: 'adds with mock/wrong: 0 of 1 passed' }).click();
  const drawer = page.getByRole('dialog', { name: 'adds · mock/wrong' });
  await expect(drawer.getByText(/^Expected everything\.get-sum .*; the model called mcp:everything\.echo/)).toBeVisible();
  await expect(drawer.getByLabel('Tool call everything_echo')).toContainText('Echo: 2 + 40');
  await expect(drawer.getByLabel('Answer')).toContainText('I echoed it.');
  await page.screenshot({ path: test.info().outputPath('evals-transcript.png'), fullPage: true, animations: 'disabled' });
});
