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
