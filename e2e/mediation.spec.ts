import { LLMock } from '@copilotkit/aimock';
import OpenAI from 'openai';
import { freePort } from './peers/mcp/everything';
import { expect, openSection, test } from './support/fixtures';
import { createCredential, startGatewayInUi } from './support/gatewayUi';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The Mediation section against the real console (`tooldeck serve` with the seeded example
 * workspace, whose pod grants agent `reader` everything's echo): the operator adds aimock as an
 * OpenAI provider in the UI and grants reader its models in Agent rights (denied by default until
 * then), a runner (the official `openai` client, in this process) asks a
 * question whose answer needs echo, and the Sessions view shows the turn round by round, with a
 * link to the History row of the managed call.
 */
test.describe.configure({ mode: 'serial' });

let console_: TooldeckServer;
let mock: LLMock;
let mockUrl: string;

test.beforeAll(async () => {
  console_ = await startTooldeckServer();
  mock = new LLMock({ host: '127.0.0.1', port: 0 });
  type Messages = { role: string; content?: unknown }[];
  const toolResult = (messages: Messages) => messages.find((message) => message.role === 'tool');
  mock.on({ predicate: (req) => !toolResult(req.messages as Messages) }, { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"through mediation"}' }] } as never);
  mock.on({ predicate: () => true }, ((req: { messages: unknown }) => ({ content: `The tool said: ${String(toolResult(req.messages as Messages)?.content ?? '')}` })) as never);
  mockUrl = await mock.start();
});
test.afterAll(async () => {
  await mock?.stop();
  await console_?.stop();
});

test('add a provider, run a mediated turn as an agent, and read it round by round with its History row', async ({ page }) => {
  await page.goto(console_.url);
  await openSection(page, 'Mediation');
  await expect(page.getByRole('heading', { name: 'No mediated turns yet' })).toBeVisible();

  await page.getByRole('button', { name: 'Add provider' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a model provider' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('mock');
  await dialog.getByRole('textbox', { name: 'Base URL' }).fill(`${mockUrl}/v1`);
  await dialog.getByLabel('API key').fill('sk-e2e-provider-key');
  await dialog.getByRole('button', { name: 'Save provider' }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole('table', { name: 'Providers' }).getByRole('row', { name: /mock/ });
  await expect(row).toContainText(`${mockUrl}/v1`);
  await expect(row).toContainText('In the secret store');
  await expect(page.getByText('sk-e2e-provider-key')).toHaveCount(0);

  await openSection(page, 'Gateway');
  const gateway = new URL(await startGatewayInUi(page, await freePort())).origin;
  const credential = await createCredential(page, 'reader');
  await expect(page.getByRole('row', { name: 'reader' }).getByRole('button', { name: '1 granted tools of reader' })).toBeVisible({ timeout: 30_000 });

  const runner = new OpenAI({ baseURL: `${gateway}/v1`, apiKey: credential, maxRetries: 0 });
  // Models are denied by default: reader may spend no provider's key until the operator grants it one.
  const refused = await runner.chat.completions.create({ model: 'mock/gpt-e2e', messages: [{ role: 'user', content: 'Echo something for me' }] }).catch((error: { status?: number }) => error);
  expect(refused).toMatchObject({ status: 403 });
  await openSection(page, 'Agent rights');
  await page.getByRole('list', { name: 'Agents' }).getByRole('listitem', { name: 'reader', exact: true }).click();
  const models = page.getByRole('region', { name: 'Models' });
  await models.getByRole('combobox', { name: 'Model patterns' }).fill('mock/*');
  await models.getByRole('combobox', { name: 'Model patterns' }).press('Enter');
  await models.getByRole('button', { name: 'Save models' }).click();
  await expect(models.getByLabel('Models granted to reader')).toHaveText('May use mock/*', { timeout: 30_000 });
  const answer = await runner.chat.completions.create({ model: 'mock/gpt-e2e', messages: [{ role: 'user', content: 'Echo something for me' }] });
  expect(answer.choices[0]!.message.content).toMatch(/^The tool said: .*Echo: through mediation/);

  await openSection(page, 'Mediation');
  const turn = page.getByRole('table', { name: 'Turns' }).getByRole('row', { name: /reader/ });
  await expect(turn).toContainText('mock/gpt-e2e');
  const round = page.getByRole('region', { name: 'Round 1' });
  await expect(round).toContainText('everything_echo');
  await expect(round).toContainText('mcp:everything.echo');
  await expect(page.getByText('The answer the runner got')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('mediation.png'), fullPage: true });

  await round.getByRole('button', { name: 'History row of everything_echo' }).click();
  await expect(page.getByRole('heading', { name: 'History' })).toBeVisible();
  await expect(page.getByText('Model mediation').first()).toBeVisible();
  await expect(page.getByText('Echo: through mediation').first()).toBeVisible();
});
