import { startProtectedMcpServer, type ProtectedServer } from '../main/mcp/oauth/testing/startProtectedMcpServer';
import { expect, openSection, test } from './support/fixtures';

let protectedServer: ProtectedServer;
test.beforeAll(async () => {
  protectedServer = await startProtectedMcpServer();
});
test.afterAll(() => protectedServer?.close());

test('add an OAuth-protected server, sign in through the browser, see every step, call a tool', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'Servers');
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add MCP server' });
  await dialog.getByLabel('Name').fill('notes');
  await dialog.getByText('Streamable HTTP', { exact: true }).click();
  await dialog.getByRole('textbox', { name: /^URL/ }).fill(protectedServer.url);
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();
  // Not signed in yet: the doctor names the auth step.
  await expect(page.getByRole('alert').filter({ hasText: /auth/ }).first()).toBeVisible({ timeout: 20_000 });

  await page.getByRole('tab', { name: 'Authorization' }).click();
  const popup = page.context().waitForEvent('page');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await (await popup).waitForLoadState();
  const steps = page.getByRole('list', { name: 'Authorization steps' });
  await expect(steps.getByRole('listitem').filter({ hasText: /token/i }).first()).toHaveAccessibleName(/done/, { timeout: 20_000 });
  await expect(page.getByRole('listitem', { name: 'notes' })).toContainText('Connected', { timeout: 20_000 });

  await openSection(page, 'Tools');
  await page.getByRole('textbox', { name: 'Search tools' }).fill('whoami');
  await page.getByRole('option', { name: 'mcp:notes.whoami' }).click({ timeout: 20_000 });
  await page.getByRole('button', { name: 'Invoke' }).click();
  await expect(page.getByRole('region', { name: 'Result' })).toContainText(/\S/);
  await expect(page.getByRole('region', { name: 'Result' })).not.toContainText(/Unauthorized|ConnectionFailed/);
});
