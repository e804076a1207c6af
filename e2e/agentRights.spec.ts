import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdirSync } from 'node:fs';
import { freePort } from './peers/mcp/everything';
import { expect, openSection, test } from './support/fixtures';
import { createCredential, startGatewayInUi } from './support/gatewayUi';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The Agent rights section against the real console (`tooldeck serve` on a fresh data dir with the
 * seeded example workspace): "what may assistant do, and why?" answered as `tooldeck agents show
 * assistant` answers it — everything.get-tiny-image granted by the Clawdapus pod file, the Orloj
 * ToolPermission that scopes it to assistant and the Language Operator LanguageAgent, with the
 * verdict approval_required for assistant — and a model grant that outlives a reload.
 */
test.describe.configure({ mode: 'serial' });

const SHOTS = '/tmp/shots';
let console_: TooldeckServer;
let agent: Client | undefined;

test.beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  console_ = await startTooldeckServer();
});
test.afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await console_?.stop();
});

test('assistant: its tools with the verdict for it and where each is granted, and models granted in the view that persist', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto(console_.url);
  await openSection(page, 'Agent rights');
  await expect(page).toHaveURL(/\/agentRights$/);

  const agents = page.getByRole('list', { name: 'Agents' });
  await agents.getByRole('listitem', { name: 'assistant', exact: true }).click();
  await expect(page).toHaveURL(/\/agentRights\?agent=assistant$/);

  // The example's server connects in the background; its tools are granted once they are listed.
  const tools = page.getByRole('table', { name: 'Tools granted to assistant' });
  const image = tools.getByRole('row', { name: /^mcp:everything\.get-tiny-image/ });
  await expect(image).toBeVisible({ timeout: 90_000 });
  await expect(image.getByLabel('Verdict for assistant: approval_required')).toHaveText('approval_required');
  const origins = image.getByRole('list', { name: 'Where mcp:everything.get-tiny-image is granted' }).getByRole('listitem');
  await expect(origins).toHaveCount(3);
  await expect(origins.nth(0)).toHaveAccessibleName('ClawPod agents.claw-pod.yml');
  await expect(origins.nth(1)).toHaveAccessibleName('ToolPermission permissions.yaml');
  await expect(origins.nth(2)).toHaveAccessibleName('LanguageAgent agent.yaml');
  await expect(origins.nth(1)).toContainText('target_agents [assistant]');
  await expect(tools.getByRole('row', { name: /^mcp:everything\.echo/ }).getByLabel('Verdict for assistant: allow')).toBeVisible();

  // Deny by default: no model until one is granted here.
  const models = page.getByRole('region', { name: 'Models' });
  await expect(models.getByLabel('Models granted to assistant')).toHaveText('deny by default: no model');
  await models.getByRole('combobox', { name: 'Model patterns' }).fill('mock/*');
  await models.getByRole('combobox', { name: 'Model patterns' }).press('Enter');
  await models.getByRole('button', { name: 'Save models' }).click();
  await expect(models.getByLabel('Models granted to assistant')).toHaveText('May use mock/*', { timeout: 30_000 });
  await expect(agents.getByRole('listitem', { name: 'assistant', exact: true })).toContainText('models: mock/*', { timeout: 30_000 });

  await page.reload();
  await expect(page.getByRole('region', { name: 'Models' }).getByLabel('Models granted to assistant')).toHaveText('May use mock/*', { timeout: 30_000 });
  await expect(page.getByRole('table', { name: 'Tools granted to assistant' }).getByRole('row', { name: /^mcp:everything\.get-tiny-image/ })).toBeVisible({ timeout: 90_000 });
  await page.screenshot({ path: `${SHOTS}/agent-rights.png`, fullPage: true, animations: 'disabled' });

  // The file that scopes the rule opens in Resources.
  await page
    .getByRole('table', { name: 'Tools granted to assistant' })
    .getByRole('row', { name: /^mcp:everything\.get-tiny-image/ })
    .getByRole('button', { name: 'permissions.yaml' })
    .click();
  await expect(page).toHaveURL(/\/resources\?file=permissions\.yaml$/);
});

test('the Gateway section links each agent to its rights and shows its models; a call through the gateway shows as a session and a recent call linked to History', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto(console_.url);
  await openSection(page, 'Gateway');
  const url = await startGatewayInUi(page, await freePort());
  const credential = await createCredential(page, 'assistant');
  const row = page.getByRole('row', { name: 'assistant' });
  // The models granted in the first test, the same answer as Agent rights.
  await expect(row).toContainText('models: mock/*', { timeout: 30_000 });

  // An agent (the official TypeScript SDK client) calls as assistant.
  agent = new Client({ name: 'e2e-agent', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
  const result = await agent.callTool({ name: 'everything.echo', arguments: { message: 'from assistant' } });
  expect(result.content).toEqual([{ type: 'text', text: 'Echo: from assistant' }]);

  await expect(row.getByRole('cell').nth(4)).toHaveText('1');
  await page.screenshot({ path: `${SHOTS}/gateway-agents.png`, animations: 'disabled' });
  await row.getByRole('button', { name: 'assistant', exact: true }).click();
  await expect(page).toHaveURL(/\/agentRights\?agent=assistant$/);
  await expect(page.getByRole('group', { name: 'Doors of assistant' }).first()).toContainText('credential', { timeout: 30_000 });
  await expect(page.getByRole('list', { name: 'Sessions of assistant' })).toContainText('e2e-agent', { timeout: 30_000 });
  const call = page.getByRole('table', { name: 'Recent calls of assistant' }).getByRole('row', { name: 'mcp:everything.echo ok' });
  await expect(call).toBeVisible({ timeout: 30_000 });
  await expect(call).toContainText('gateway');
  await page.screenshot({ path: `${SHOTS}/agent-rights-with-calls.png`, fullPage: true, animations: 'disabled' });
  await call.getByRole('button', { name: /^Open call .* in History$/ }).click();
  await expect(page).toHaveURL(/\/history\?call=/);
});
