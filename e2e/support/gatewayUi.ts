import type { Page } from '@playwright/test';
import { expect } from './fixtures';

/** In the Gateway section: creates a credential for `name` in the UI and returns it as shown (once). */
export async function createCredential(page: Page, name: string): Promise<string> {
  await page.getByRole('button', { name: 'New credential' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New agent credential' });
  await dialog.getByRole('textbox', { name: 'Agent name' }).fill(name);
  await dialog.getByRole('button', { name: 'Create credential' }).click();
  const shown = page.getByRole('dialog', { name: `Credential for ${name}` });
  const credential = (await shown.getByLabel('New credential').textContent())!.trim();
  expect(credential).toMatch(new RegExp(`^${name}:[A-Za-z0-9_-]{43}$`));
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toBeHidden();
  return credential;
}

/** In the Gateway section: turns the gateway on at `port` and waits until it says where it listens. */
export async function startGatewayInUi(page: Page, port: number): Promise<string> {
  await page.getByRole('textbox', { name: 'Port' }).fill(String(port));
  await page.getByRole('switch', { name: /Serve the gateway/ }).click();
  const url = `http://127.0.0.1:${port}/mcp`;
  await expect(page.getByLabel('Gateway URL', { exact: true })).toHaveText(url);
  return url;
}
