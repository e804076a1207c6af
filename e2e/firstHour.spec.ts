import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from '@playwright/test';
import type { LLMock } from '@copilotkit/aimock';
import { startScriptedModels } from '../main/evals/testing/scriptedModels';
import { expect, openSection, test } from './support/fixtures';
import { cliPath, startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * A newcomer's first hour, on a fresh data folder, the way the README and the screens lead:
 * Start here, the palette by keyboard, a tool call and its History row (at 1,440 px), the gateway
 * switched on with a credential for the example's agent and the Gateway section's curl recipe run
 * as given, a Playground turn with no tool set picked (aimock as the model, its provider added
 * from the button a disabled Send offers), and an agent's call held for approval and approved from
 * the header's Approvals button. Screenshots go to /tmp/shots for a person to look at.
 */
test.describe.configure({ mode: 'serial' });

const SHOTS = '/tmp/shots';
let console_: TooldeckServer;
let models: { url: string; mock: LLMock };
/** The gateway and the example agent's credential the first test set up, for the second. */
let gatewayPort: number;
let agentCredential: string;

test.beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  models = await startScriptedModels();
  console_ = await startTooldeckServer({ startHere: true });
});
test.afterAll(async () => {
  await console_?.stop();
  await models?.mock.stop();
});

/** A loopback port nothing listens on now, for the gateway's switch (the default 7411 may be another console's). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: false, animations: 'disabled' });

test('the first hour: Start here, the palette, a call in History, the gateway and its curl recipe, a Playground turn, an approval', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto(console_.url);

  // Start here, above the first section, and the navigation in named groups with Tools second.
  const startHere = page.getByRole('region', { name: 'Start here' });
  await expect(startHere).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const group of ['Build & test', 'Operate', 'Observe', 'Configure']) await expect(nav.getByRole('group', { name: group })).toBeVisible();
  await expect(nav.getByRole('group', { name: 'Build & test' }).getByRole('button')).toHaveText(['Servers', 'Tools', 'Playground', 'Evals', 'Collections', 'A2A agents', 'gRPC']);
  // The example's server runs (its launch is the seeded example's), which ticks the first step.
  await expect(page.getByRole('listitem', { name: 'everything' })).toContainText('Connected', { timeout: 45_000 });
  await expect(startHere.getByRole('listitem', { name: '1. Run the example server (done)' })).toBeVisible();
  await shot(page, 'start-here');

  // The palette by keyboard: Ctrl K, a name, Enter opens the best match.
  await page.keyboard.press('Control+k');
  await page.getByRole('textbox', { name: 'Command palette search' }).pressSequentially('echo');
  await expect(page.getByRole('button', { name: 'Tool mcp:everything.echo' })).toHaveAttribute('data-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/tools\?tool=mcp%3Aeverything\.echo$/);

  // Call it, then see it in History (the step's own link).
  await page.getByRole('textbox', { name: /message/i }).first().fill('hello from the first hour');
  await page.getByRole('button', { name: 'Invoke' }).click();
  await expect(page.getByRole('region', { name: 'Result' })).toContainText('Echo: hello from the first hour');
  await startHere.getByRole('button', { name: '3. See it in History' }).click();
  const row = page.getByRole('row').filter({ hasText: 'hello from the first hour' }).or(page.getByRole('row').filter({ hasText: 'echo' })).first();
  await expect(row).toBeVisible();
  // At 1,440 px the Tool column shows the whole name and Flags keeps its heading.
  const toolCell = page.getByRole('row').nth(1).getByText('echo', { exact: true });
  await expect(toolCell).toBeVisible();
  expect(await toolCell.evaluate((cell) => cell.scrollWidth <= cell.clientWidth)).toBe(true);
  const flags = page.getByRole('columnheader', { name: 'Flags' });
  expect(await flags.evaluate((cell) => cell.scrollWidth <= cell.clientWidth + 1)).toBe(true);
  await expect(startHere.getByRole('listitem', { name: '3. See it in History (done)' })).toBeVisible();
  await shot(page, 'history-1440');

  // The gateway, switched on on a free port, and a credential for the example's agent.
  await startHere.getByRole('button', { name: '4. Switch the gateway on' }).click();
  const port = await freePort();
  const endpoint = page.getByRole('region', { name: 'Gateway endpoint' });
  await endpoint.getByRole('textbox', { name: 'Port' }).fill(String(port));
  await endpoint.getByRole('switch', { name: /Serve the gateway/ }).click();
  await expect(endpoint.getByLabel('Gateway URL', { exact: true })).toHaveText(`http://127.0.0.1:${port}/mcp`);
  await page.getByRole('button', { name: 'New credential' }).click();
  const dialog = page.getByRole('dialog', { name: 'New agent credential' });
  await dialog.getByRole('group', { name: 'Agents the workspace declares' }).getByRole('button', { name: 'assistant' }).click();
  await expect(dialog.getByRole('button', { name: 'Create credential' })).toBeVisible();
  await shot(page, 'new-credential');
  await dialog.getByRole('button', { name: 'Create credential' }).click();
  const shown = page.getByRole('dialog', { name: 'Credential for assistant' });
  const credential = (await shown.getByLabel('New credential').textContent())!.trim();
  expect(credential).toMatch(/^assistant:/);
  gatewayPort = port;
  agentCredential = credential;

  // The curl recipe, copied as shown, lists the agent's granted tools.
  await shown.getByRole('tab', { name: 'curl' }).click();
  const recipe = (await shown.getByLabel('curl recipe', { exact: true }).textContent())!;
  await shot(page, 'curl-recipe');
  const { stdout } = await promisify(execFile)('sh', ['-c', recipe], { timeout: 30_000 });
  expect(stdout).toContain('"everything.get-sum"');
  expect(stdout).toContain('"everything.get-tiny-image"');
  await shown.getByRole('button', { name: 'Done' }).click();

  // One vocabulary, for a named caller: the operator may call get-tiny-image at once, assistant needs an approval.
  await page.keyboard.press('Control+k');
  await page.getByRole('textbox', { name: 'Command palette search' }).pressSequentially('get-tiny-image');
  await expect(page.getByRole('button', { name: 'Tool mcp:everything.get-tiny-image' })).toHaveAttribute('data-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Policy for you: allow' }).first()).toBeVisible();
  await expect(page.getByLabel('Verdicts for agents')).toContainText('for assistant: approval_required');
  await shot(page, 'tool-verdicts');
  // The example's Tool resource declares the long-running operation a write: its server's read-only hint does not stand beside that.
  await page.getByRole('option', { name: 'mcp:everything.trigger-long-running-operation' }).click();
  await expect(page.getByText('write · declared')).toBeVisible();
  await expect(page.getByText(/^server hints overridden: read-only/)).toBeVisible();
  await expect(page.getByText('read-only', { exact: true })).toHaveCount(0);
  await shot(page, 'tool-declared-class');

  // The Playground: Send says why it waits and leads to Add provider; then a turn with no tool set picked.
  await openSection(page, 'Playground');
  await expect(page.getByText('Send needs a model provider: add one in Mediation.')).toBeVisible();
  await page.getByRole('button', { name: 'Add provider' }).click();
  const add = page.getByRole('dialog', { name: 'Add a model provider' });
  await add.getByRole('textbox', { name: 'Name' }).fill('mock');
  await add.getByRole('textbox', { name: 'Base URL' }).fill(`${models.url}/v1`);
  await add.getByRole('button', { name: 'Save provider' }).click();
  await expect(page.getByRole('table', { name: 'Providers' })).toContainText('mock');
  await openSection(page, 'Playground');
  await page.getByRole('combobox', { name: 'Model', exact: true }).fill('mock/right');
  await expect(page.getByLabel('Tool set')).toContainText("assistant's grants (the first agent the workspace declares");
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('Please add 2 and 40');
  // The provider added a moment ago is known here too: Send is enabled and says nothing is missing.
  await expect(page.getByText('providers: mock')).toBeVisible();
  await page.getByRole('button', { name: 'Send' }).click();
  const turn = page.getByLabel('Turn of mock/right');
  await expect(turn.getByLabel('Tool call everything_get-sum')).toContainText('The sum of 2 and 40 is 42.', { timeout: 30_000 });
  await expect(turn.getByLabel('Answer')).toContainText('The sum is 42.');
  await shot(page, 'playground');

  // The example's agent calls a tool whose verdict for it is approval_required: held, approved from the header.
  const agent = new Client({ name: 'assistant-runner', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
  const call = agent.callTool({ name: 'everything.get-tiny-image', arguments: {} });
  const header = page.getByRole('banner');
  await header.getByRole('button', { name: 'Approvals: 1 waiting for a decision' }).click();
  const card = page.getByRole('article', { name: /^Approval assistant-/ });
  await expect(card.getByLabel('Tool')).toHaveText('mcp:everything.get-tiny-image');
  await expect(card.getByLabel('Rule')).toContainText('approval_required');
  await expect(card.getByLabel('Rule')).not.toContainText('confirm');
  await shot(page, 'approval');
  await card.getByRole('button', { name: /^Approve / }).click();
  const result = await call;
  expect(result.isError).toBeFalsy();
  expect(JSON.stringify(result.content)).toContain('image');
  await agent.close();

  // Every step ticked; hidden, it stays hidden until About shows it again.
  await expect(startHere.getByText('6 of 6 done')).toBeVisible();
  await shot(page, 'start-here-done');
  await startHere.getByRole('button', { name: /^Hide/ }).click();
  await expect(startHere).toBeHidden();
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Start here' })).toBeHidden();
  await openSection(page, 'About');
  await page.getByRole('button', { name: 'Show Start here' }).click();
  await expect(page.getByRole('region', { name: 'Start here' })).toBeVisible();
});

test('a mediated turn whose tool call waits for approval shows in Mediation, linked to its approval', async ({ page }) => {
  test.setTimeout(120_000);
  // aimock as a model that asks for the image, then answers; assistant may use mock's models.
  const asksForImage = (req: { messages: Array<{ role: string }> }) => !req.messages.some((message) => message.role === 'tool');
  models.mock.prependFixture({ match: { model: 'imager' }, response: { content: 'Here is the tiny image.' } });
  models.mock.prependFixture({ match: { model: 'imager', predicate: asksForImage as never }, response: { toolCalls: [{ name: 'everything_get-tiny-image', arguments: '{}' }] } });
  await promisify(execFile)(process.execPath, [cliPath, '--data-dir', console_.dataDir, 'agents', 'models', 'assistant', 'mock/*']);

  // The runner's request waits while the managed call is held.
  const turn = fetch(`http://127.0.0.1:${gatewayPort}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${agentCredential}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'mock/imager', messages: [{ role: 'user', content: 'Show me the tiny image.' }] }),
  });
  await page.goto(console_.url);
  await openSection(page, 'Mediation');
  const held = page.getByRole('region', { name: 'Turns waiting for approval' });
  await expect(held.getByRole('group', { name: 'Held call of assistant' })).toContainText('mcp:everything.get-tiny-image', { timeout: 30_000 });
  await shot(page, 'mediation-held-turn');
  await held.getByRole('button', { name: 'Decide in Approvals' }).click();
  const card = page.getByRole('article', { name: /^Approval assistant-/ });
  await expect(card).toHaveAttribute('aria-current', 'true');
  await card.getByRole('button', { name: /^Approve / }).click();

  const answer = await turn;
  expect(answer.status).toBe(200);
  expect(JSON.stringify(await answer.json())).toContain('Here is the tiny image.');
  await openSection(page, 'Mediation');
  await expect(page.getByRole('region', { name: 'Turns waiting for approval' })).toBeHidden();
});
