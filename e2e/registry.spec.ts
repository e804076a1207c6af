import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWeatherService } from './peers/http/weatherService';
import { expect, openSection, test } from './support/fixtures';

let weather: Awaited<ReturnType<typeof startWeatherService>>;
test.beforeAll(async () => {
  weather = await startWeatherService();
});
test.afterAll(() => weather?.close());

test('import a descriptor, find its HTTP tool from the palette beside MCP tools, and call it', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'Servers');
  await page.getByRole('button', { name: 'Import descriptor' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a claw.describe descriptor' });
  await dialog.getByRole('textbox', { name: /^Service name/ }).fill('weather');
  await dialog.getByRole('textbox', { name: /^Descriptor/ }).fill(weather.descriptorUrl);
  await dialog.getByRole('button', { name: 'Import' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('region', { name: 'HTTP services' }).or(page.getByLabel('HTTP services'))).toContainText('1 tools');

  await page.keyboard.press('Control+K');
  await page.getByRole('textbox', { name: 'Command palette search' }).fill('weather forecast');
  await page.getByRole('button', { name: 'Tool http:weather.get_forecast' }).click();
  await expect(page.getByRole('heading', { name: 'get_forecast' })).toBeVisible();

  await page.getByRole('textbox', { name: 'city' }).fill('Lyon');
  await page.getByRole('button', { name: 'Invoke' }).click();
  await expect(page.getByRole('region', { name: 'Result' })).toContainText('Lyon');

  // MCP tools of the example workspace are in the same catalog.
  await openSection(page, 'Tools');
  await expect(page.getByRole('option', { name: 'mcp:everything.echo' })).toBeVisible();
  await expect(page.getByRole('option', { name: 'http:weather.get_forecast' })).toBeVisible();
});

test("an agent's tool access: grants from the workspace's pod file, tools.json previewed, downloaded and written", async ({ page, tooldeck }) => {
  const workspace = join(tooldeck.dataDir, 'workspace');
  await page.goto(tooldeck.url);
  await openSection(page, 'Tools');
  await page.locator('label', { hasText: 'Agent access' }).click();

  // The example pod: assistant keeps the defaults (echo) with "..." and adds two tools.
  const agents = page.getByRole('list', { name: 'Agents' });
  await expect(agents.getByRole('listitem')).toHaveCount(2);
  await agents.getByRole('listitem').filter({ hasText: 'assistant' }).click();
  const grants = page.getByRole('table', { name: 'Grants' });
  await expect(grants).toContainText('mcp:everything');
  await expect(grants).toContainText('3 of 4');
  const preview = page.getByLabel('Compiled tools.json');
  await expect(preview).toContainText('"name": "everything.get-sum"');
  await expect(preview).toContainText('"max_rounds": 8');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download' }).click();
  const file = await (await download).path();
  const downloaded = JSON.parse(readFileSync(file, 'utf8'));
  expect(downloaded.tools.map((tool: { name: string }) => tool.name)).toEqual(['everything.echo', 'everything.get-sum', 'everything.get-tiny-image']);

  // config.yaml lists network endpoints; a stdio server has none, and the preview says so.
  await page.locator('label', { hasText: 'config.yaml' }).click();
  await expect(page.getByRole('alert')).toContainText('no endpoint known for everything');

  await page.getByRole('button', { name: 'Write files' }).click();
  await expect(page.getByText('config.yaml not written')).toBeVisible();
  const written = join(workspace, '.claw-runtime/context/assistant/tools.json');
  await expect.poll(() => existsSync(written)).toBe(true);
  expect(JSON.parse(readFileSync(written, 'utf8'))).toEqual(downloaded);

  // An agent added to the pod file outside the console shows up, with Clawdapus's deny by default.
  const pod = join(workspace, 'agents.claw-pod.yml');
  writeFileSync(pod, `${readFileSync(pod, 'utf8')}\n  auditor:\n    x-claw:\n      cllama: passthrough\n      tools: []\n`);
  await agents.getByRole('listitem').filter({ hasText: 'auditor' }).click();
  await expect(page.getByText('No grants: this agent may call no tools.')).toBeVisible();

  // Agents are in the palette's search too, and lead to their tool access.
  await openSection(page, 'History');
  await page.keyboard.press('Control+K');
  await page.getByRole('textbox', { name: 'Command palette search' }).fill('reader');
  await page.getByRole('button', { name: 'Agent pod:example/reader' }).click();
  await expect(page.getByRole('heading', { name: 'reader' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Grants' })).toContainText('1 of 4');
});
