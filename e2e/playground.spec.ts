import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LLMock } from '@copilotkit/aimock';
import { startScriptedModels } from '../main/evals/testing/scriptedModels';
import { expect, openSection, test } from './support/fixtures';
import { cliPath, startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The Playground against the real console (`tooldeck serve` with the seeded example workspace,
 * whose pod grants agent `assistant` everything's get-sum and echo) and aimock as the models: a
 * message sent with Enter to two models side by side, their tool cards and answers, then Save as
 * eval case (the first model's turn) and the saved case run in Evals.
 */
test.describe.configure({ mode: 'serial' });

let console_: TooldeckServer;
let models: { url: string; mock: LLMock };

test.beforeAll(async () => {
  models = await startScriptedModels();
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-playground-'));
  await promisify(execFile)(process.execPath, [cliPath, '--data-dir', dataDir, 'providers', 'add', 'mock', '--format', 'openai', '--base-url', `${models.url}/v1`]);
  console_ = await startTooldeckServer({ dataDir });
});
test.afterAll(async () => {
  await console_?.stop();
  await models?.mock.stop();
});

test('send a message with Enter, see the tool card and the answer, save the turn as an eval case and run it', async ({ page }) => {
  await page.goto(console_.url);
  await expect(page.getByRole('listitem', { name: 'everything' })).toContainText('Connected', { timeout: 30_000 });
  await openSection(page, 'Playground');

  await page.getByRole('combobox', { name: 'Model', exact: true }).fill('mock/right');
  // A second model answers the same prompt side by side.
  const compare = page.getByRole('combobox', { name: 'Compare with' });
  await compare.fill('mock/wrong');
  await compare.press('Enter');
  await page.getByRole('combobox', { name: 'Agent' }).click();
  await page.getByRole('option', { name: 'assistant' }).click();
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('Please add 2 and 40');
  await message.press('Enter');

  const right = page.getByLabel('Turn of mock/right');
  await expect(right.getByLabel('Tool call everything_get-sum')).toContainText('The sum of 2 and 40 is 42.');
  await expect(right.getByLabel('Answer')).toContainText('The sum is 42.');
  await expect(right.getByLabel('Answer')).toContainText('22 prompt + 14 completion tokens');
  const wrong = page.getByLabel('Turn of mock/wrong');
  await expect(wrong.getByLabel('Tool call everything_echo')).toContainText('Echo: 2 + 40');
  await expect(wrong.getByLabel('Answer')).toContainText('I echoed it.');
  await expect(message).toHaveValue('');
  await page.screenshot({ path: test.info().outputPath('playground.png'), fullPage: true, animations: 'disabled' });

  // The conversation was saved when the turn ended: a new one starts empty, and reopening it brings
  // back its turns and its setup.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page.getByLabel('Turn of mock/right')).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Saved conversations' }).click();
  await page.getByRole('option', { name: /^Please add 2 and 40 · 1 turn · / }).click();
  await expect(right.getByLabel('Answer')).toContainText('The sum is 42.');
  await expect(page.getByRole('combobox', { name: 'Model', exact: true })).toHaveValue('mock/right');

  await page.getByRole('button', { name: 'Save as eval case' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save as eval case' });
  await dialog.getByRole('textbox', { name: 'Case name' }).fill('adds');
  await dialog.getByRole('button', { name: 'Save case' }).click();

  // Saved into evals/playground.yml; the Evals section opens on it, and the case passes for the model it came from.
  await expect(page.getByRole('navigation', { name: 'Eval suites' }).getByText('evals/playground.yml · 1 case(s)')).toBeVisible({ timeout: 20_000 });
  const models = page.getByRole('combobox', { name: 'Models' });
  await models.fill('mock/right');
  await models.press('Enter');
  await page.getByRole('button', { name: 'Run suite' }).click();
  await expect(page.getByRole('table', { name: 'Case by model' }).getByRole('button', { name: 'adds with mock/right: 1 of 1 passed' })).toBeVisible({ timeout: 30_000 });
});

test('a call policy holds for approval asks inline, with its exact arguments, and runs once approved', async ({ page }) => {
  writeFileSync(join(console_.dataDir, 'workspace', 'ask-sums.yaml'), 'apiVersion: orloj.dev/v1\nkind: ToolPermission\nmetadata:\n  name: ask-sums\nspec:\n  tool_ref: everything--get-sum\n  operation_rules:\n    - {operation_class: "*", verdict: approval_required}\n');
  await page.goto(console_.url);
  // The rule is in force once the tool browser shows it.
  await openSection(page, 'Tools');
  await page.getByRole('textbox', { name: 'Search tools' }).fill('get-sum');
  await page.getByRole('option', { name: 'mcp:everything.get-sum' }).click();
  await expect(page.getByRole('button', { name: 'Policy for you: approval_required by ask-sums' }).first()).toBeVisible({ timeout: 20_000 });

  await openSection(page, 'Playground');
  await page.getByRole('combobox', { name: 'Model', exact: true }).fill('mock/right');
  await page.getByRole('combobox', { name: 'Registry tools' }).fill('mcp:everything.get-sum');
  await page.getByRole('combobox', { name: 'Registry tools' }).press('Enter');
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('Please add 2 and 40');
  await message.press('Enter');

  const held = page.getByLabel('Approve mcp:everything.get-sum');
  await expect(held).toContainText('ask-sums');
  await expect(held.getByLabel('Arguments')).toContainText('40');
  await page.screenshot({ path: test.info().outputPath('playground-approval.png'), fullPage: true, animations: 'disabled' });
  await held.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByLabel('Tool call everything_get-sum')).toContainText('The sum of 2 and 40 is 42.');
  await expect(page.getByLabel('Answer')).toContainText('The sum is 42.');
  await expect(held).toBeHidden();
});
