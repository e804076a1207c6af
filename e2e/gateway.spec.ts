import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ApprovalBook } from '../main/approvals/ApprovalBook';
import { freePort } from './peers/mcp/everything';
import { expect, openSection, test } from './support/fixtures';
import { createCredential, startGatewayInUi } from './support/gatewayUi';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The Gateway section against the real console (`tooldeck serve` with the seeded example
 * workspace, whose pod grants agent `reader` everything's echo): the operator starts the gateway
 * and creates a credential in the UI, an agent (the official TypeScript SDK client, in this process)
 * calls through it with that credential, and the live calls list shows the call as it happens.
 */
test.describe.configure({ mode: 'serial' });

let console_: TooldeckServer;
const agents: Client[] = [];

test.beforeAll(async () => {
  console_ = await startTooldeckServer();
});
test.afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
  await console_?.stop();
});

async function connectAgent(url: string, credential: string): Promise<Client> {
  const client = new Client({ name: 'e2e-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
  agents.push(client);
  return client;
}

test('start the gateway, create a credential, and watch an agent’s call to everything.echo arrive live', async ({ page }) => {
  await page.goto(console_.url);
  await openSection(page, 'Gateway');
  await expect(page.getByRole('heading', { name: 'No agent credentials yet' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'The gateway is off' })).toBeVisible();

  const port = await freePort();
  const url = await startGatewayInUi(page, port);
  await expect(page.getByRole('heading', { name: 'No calls yet' })).toBeVisible();

  const credential = await createCredential(page, 'reader');
  // The example pod grants reader the defaults only: echo, once server-everything is connected.
  const reader = page.getByRole('row', { name: 'reader' });
  await expect(reader.getByRole('button', { name: '1 granted tools of reader' })).toBeVisible({ timeout: 30_000 });

  const agent = await connectAgent(url, credential);
  await expect(reader.getByRole('cell').nth(4)).toHaveText('1');
  const result = await agent.callTool({ name: 'everything.echo', arguments: { message: 'from an agent' } });
  expect(result.content).toEqual([{ type: 'text', text: 'Echo: from an agent' }]);

  const calls = page.getByRole('table', { name: 'Live calls' });
  const done = calls.getByRole('row', { name: 'reader mcp:everything.echo Done' });
  await expect(done).toBeVisible();
  await expect(done.getByText('OK')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Sessions' })).toContainText('e2e-agent');

  // The call is in History under the agent's name.
  await done.getByRole('button', { name: /in History$/ }).click();
  await expect(page.getByText('agent reader via Gateway')).toBeVisible();
  await expect(page.getByText(/Echo: from an agent/).first()).toBeVisible();
});

test('a second agent, a few calls, and the section as an operator sees it', async ({ page }, testInfo) => {
  await page.goto(console_.url);
  await openSection(page, 'Gateway');
  await expect(page.getByLabel('Gateway URL', { exact: true })).toBeVisible();
  const url = (await page.getByLabel('Gateway URL', { exact: true }).textContent())!.trim();
  const assistant = await connectAgent(url, await createCredential(page, 'assistant'));
  await expect(page.getByRole('row', { name: 'assistant' }).getByRole('button', { name: '4 granted tools of assistant' })).toBeVisible();

  await assistant.callTool({ name: 'everything.get-sum', arguments: { a: 2, b: 40 } });
  await assistant.callTool({ name: 'everything.echo', arguments: { message: 'hello' } });
  // Invalid arguments never reach the server: the call is recorded as refused.
  const invalid = await assistant.callTool({ name: 'everything.get-sum', arguments: { a: 'two' } });
  expect(invalid.isError).toBe(true);
  // A write the example policy wants approved: it is held (an Orloj ToolApproval in the data dir),
  // shows as held in the live calls, and once denied it ends as an error, never run.
  const write = assistant.callTool({ name: 'everything.trigger-long-running-operation', arguments: { duration: 1, steps: 1 } });
  const calls = page.getByRole('table', { name: 'Live calls' });
  await expect(calls.getByRole('row', { name: 'assistant mcp:everything.trigger-long-running-operation Held' })).toBeVisible();
  const book = new ApprovalBook({ dataDir: console_.dataDir });
  const [held] = (await book.list()).filter((approval) => approval.status.phase === 'Pending');
  await book.decide(held!.metadata.name, 'deny', 'e2e', 'Not in this test.');
  await book.close();
  expect((await write).isError).toBe(true);
  await agents[0]!.callTool({ name: 'everything.echo', arguments: { message: 'again' } });

  await expect(calls.getByRole('row')).toHaveCount(7);
  await expect(calls.getByRole('row', { name: 'assistant mcp:everything.get-sum Done' }).first()).toBeVisible();

  await page.getByRole('row', { name: 'assistant' }).getByRole('button', { name: '4 granted tools of assistant' }).click();
  await expect(page.getByLabel('Tools granted to assistant')).toContainText('everything.get-tiny-image');
  await page.screenshot({ path: process.env.TOOLDECK_GATEWAY_SCREENSHOT ?? testInfo.outputPath('gateway.png'), fullPage: true });

  // Metrics, narrowed to that agent from its row.
  await page.getByRole('button', { name: 'Metrics of assistant' }).click();
  await expect(page.getByText('Agent: assistant')).toBeVisible();
  await expect(page.getByRole('group', { name: 'Calls' })).toContainText('4');
});

test('revoking an agent in the section ends its session at once and its credential opens nothing more', async ({ page }) => {
  await page.goto(console_.url);
  await openSection(page, 'Gateway');
  const row = page.getByRole('row', { name: 'assistant' });
  await expect(row.getByRole('cell').nth(4)).toHaveText('1');
  await row.getByRole('button', { name: 'Revoke assistant' }).click();
  await page.getByRole('dialog', { name: 'Revoke assistant?' }).getByRole('button', { name: 'Revoke' }).click();
  await expect(row.getByText('Revoked')).toBeVisible();
  await expect(row.getByRole('cell').nth(4)).toHaveText('0');
  await expect(page.getByRole('table', { name: 'Sessions' })).not.toContainText('assistant');
  // The agent that held it (agents[1]) is turned away on its next request.
  await expect(agents[1]!.callTool({ name: 'everything.echo', arguments: { message: 'still there?' } })).rejects.toThrow(/The agent credential is not valid \(unknown agent, wrong secret or revoked\)/);
  // The other agent is untouched.
  await expect(agents[0]!.callTool({ name: 'everything.echo', arguments: { message: 'still here' } })).resolves.toMatchObject({ content: [{ type: 'text', text: 'Echo: still here' }] });
});
