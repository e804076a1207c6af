import { everythingScript } from './peers/mcp/everything';
import { expect, openSection, test } from './support/fixtures';

test.describe.configure({ mode: 'serial' });

test('add server-everything from the UI, find echo, fill the form, invoke and read the echo', async ({ page, tooldeck }) => {
  // The normal path asks before it saves: no save is refused first, and nothing lands in the console as an error.
  const refused: string[] = [];
  page.on('response', (response) => {
    if (response.url().includes('/trpc/mcp.save') && response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') refused.push(message.text());
  });
  await page.goto(tooldeck.url);
  await openSection(page, 'Servers');
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add MCP server' });
  await dialog.getByLabel('Name').fill('reference');
  await dialog.getByLabel('Command').fill(`${process.execPath} ${everythingScript} stdio`);
  await dialog.getByRole('button', { name: 'Add server' }).click();
  // Browser mode: nothing runs before the exact command line is confirmed.
  const confirm = page.getByRole('dialog', { name: 'Run this command?' });
  await expect(confirm.getByLabel('Command line')).toHaveText(`${process.execPath} ${everythingScript} stdio`);
  await expect(page.getByRole('listitem', { name: 'reference' })).toHaveCount(0);
  await confirm.getByRole('button', { name: 'Run and save' }).click();
  await expect(dialog).toBeHidden();
  expect(refused).toEqual([]);

  await expect(page.getByRole('listitem', { name: 'reference' })).toContainText('Connected');
  await expect(page.getByRole('table', { name: 'Tools of reference' })).toContainText('echo');

  await openSection(page, 'Tools');
  await page.getByRole('textbox', { name: 'Search tools' }).fill('echo');
  await page.getByRole('option', { name: 'mcp:reference.echo' }).click();
  await expect(page.getByRole('heading', { name: 'echo' })).toBeVisible();

  await page.getByRole('textbox', { name: /message/i }).fill('Hello from the browser');
  await page.getByRole('button', { name: 'Invoke' }).click();
  await expect(page.getByRole('region', { name: 'Result' })).toContainText('Echo: Hello from the browser');
});

test('start the long-running operation, watch progress, cancel it', async ({ page, tooldeck }) => {
  await page.goto(`${tooldeck.origin}/tools?tool=${encodeURIComponent('mcp:reference.trigger-long-running-operation')}#token=${tooldeck.token}`);
  await expect(page.getByRole('heading', { name: 'trigger-long-running-operation' })).toBeVisible();
  await page.getByRole('textbox', { name: 'duration' }).fill('30');
  await page.getByRole('textbox', { name: 'steps' }).fill('30');
  await page.getByRole('button', { name: 'Invoke' }).click();

  const progress = page.getByRole('progressbar', { name: 'Progress' });
  await expect(progress).toBeVisible();
  await expect.poll(async () => Number(await progress.getAttribute('aria-valuenow')), { timeout: 15_000 }).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('region', { name: 'Result' })).toContainText(/cancel/i);
});
