import { expect, openSection, test } from './support/fixtures';

test('save a call from the invoke panel, add an assertion, run the collection and see the result', async ({ page, tooldeck }) => {
  await page.goto(`${tooldeck.origin}/tools?tool=${encodeURIComponent('mcp:everything.echo')}#token=${tooldeck.token}`);
  await expect(page.getByRole('heading', { name: 'echo' })).toBeVisible({ timeout: 20_000 });
  await page.getByRole('textbox', { name: /message/i }).fill('collection run');
  await page.getByRole('button', { name: 'Save to collection' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save to collection' });
  await dialog.getByRole('combobox', { name: 'Collection' }).fill('smoke');
  await dialog.getByRole('textbox', { name: /^Request name/ }).fill('echo works');
  await dialog.getByRole('button', { name: /^Save/ }).click();
  await expect(dialog).toBeHidden();

  await openSection(page, 'Collections');
  await page.getByRole('list', { name: 'Collections' }).getByText('smoke').click();
  await page.getByText('echo works').first().click();
  await page.getByRole('button', { name: 'Add assertion' }).click();
  await page.getByRole('button', { name: 'Run' }).click();
  const results = page.getByRole('table', { name: 'Run results' });
  await expect(results).toContainText('echo works', { timeout: 20_000 });
  await expect(results).toContainText(/passed|failed/);
});
