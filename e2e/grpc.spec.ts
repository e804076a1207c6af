import { startReflectionServer, startToolsV1Server, type GrpcPeer } from './peers/grpc/grpcPeers';
import { expect, openSection, test } from './support/fixtures';

let tools: GrpcPeer;
let reflecting: GrpcPeer;
test.beforeAll(async () => {
  test.setTimeout(600_000);
  [tools, reflecting] = await Promise.all([startToolsV1Server(), startReflectionServer()]);
});
test.afterAll(async () => {
  await Promise.all([tools?.stop(), reflecting?.stop()]);
});

async function addSource(page: import('@playwright/test').Page, name: string, address: string, reflection = false) {
  await openSection(page, 'gRPC');
  await page.getByRole('button', { name: 'Add gRPC source' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add a gRPC source' });
  await dialog.getByRole('textbox', { name: /^Name/ }).fill(name);
  await dialog.getByRole('textbox', { name: /^Address/ }).fill(address);
  if (reflection) await dialog.locator('label', { hasText: 'Any service (reflection)' }).click();
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(dialog).toBeHidden();
}

test('a tools.v1 server: its tools with versions, a call through the form, the call in History and Metrics', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await addSource(page, 'weather', tools.address);

  const table = page.getByRole('table', { name: 'Tools' });
  const forecast = table.getByRole('row').filter({ hasText: 'forecast' });
  await expect(forecast).toContainText('2.1.0');
  await expect(forecast).toContainText('2.0.0');
  await expect(table.getByRole('row').filter({ hasText: 'broken_schema' })).toContainText('Unusable: its schema is not valid JSON');

  await forecast.getByText('forecast', { exact: true }).click();
  const call = page.getByRole('region', { name: 'Call grpc:weather.forecast' }).or(page.getByLabel('Call grpc:weather.forecast'));
  await call.getByRole('textbox', { name: /^city/ }).fill('Oslo');
  await call.getByRole('button', { name: 'Invoke' }).click();
  await expect(call.getByRole('region', { name: 'Result' })).toContainText('Oslo');

  await openSection(page, 'History');
  const calls = page.getByRole('grid', { name: 'Calls' }).or(page.getByRole('table', { name: 'Calls' }));
  await expect(calls.getByRole('row').filter({ hasText: 'weather' }).filter({ hasText: 'forecast' })).toHaveCount(1);

  await openSection(page, 'Metrics');
  await expect(page.getByRole('region', { name: 'Metrics dashboard' })).toContainText('forecast');
});

test('any service through reflection: call the health service, watch a stream arrive and cancel it', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await addSource(page, 'peer', reflecting.address, true);

  const services = page.getByLabel('Services');
  await services.getByText('Check', { exact: true }).click();
  const check = page.getByLabel('Method grpc.health.v1.Health/Check');
  await check.getByRole('button', { name: 'Call' }).click();
  const response = check.getByRole('region', { name: 'gRPC response' });
  await expect(response.getByLabel('Status OK')).toBeVisible();
  await expect(response.getByLabel('Response message')).toContainText('SERVING');
  await expect(response.getByLabel('Trailers')).toBeVisible();

  await services.getByText('Watch', { exact: true }).click();
  const watch = page.getByLabel('Method grpc.health.v1.Health/Watch');
  await watch.getByRole('button', { name: 'Call' }).click();
  const streamed = watch.getByLabel('Streamed messages');
  await expect(streamed).toContainText('#1');
  await expect(streamed).toContainText('SERVING');
  await watch.getByRole('button', { name: 'Cancel' }).click();
  await expect(watch.getByRole('status').filter({ hasText: 'Canceled' })).toBeVisible();

  await openSection(page, 'History');
  const calls = page.getByRole('grid', { name: 'Calls' }).or(page.getByRole('table', { name: 'Calls' }));
  await expect(calls.getByRole('row').filter({ hasText: 'grpc.health.v1.Health/Check' })).toHaveCount(1);
});

test('a google.protobuf.Struct field is typed as JSON in the method form and reaches the server as a Struct', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await addSource(page, 'explorer', reflecting.address, true);
  await page.getByLabel('Services').getByText('Echo', { exact: true }).click();
  const echo = page.getByLabel('Method explorer.v1.Explorer/Echo');
  const extra = echo.getByRole('textbox', { name: /^extra/ });
  await extra.fill('{"region": ');
  await expect(echo.getByText(/Not valid JSON/)).toBeVisible();
  await extra.fill('{"region": "eu", "limit": 3}');
  await expect(echo.getByText(/Not valid JSON/)).toBeHidden();
  await echo.getByRole('button', { name: 'Call' }).click();
  const response = echo.getByRole('region', { name: 'gRPC response' });
  await expect(response.getByLabel('Status OK')).toBeVisible();
  const message = response.getByLabel('Response message');
  await expect(message).toContainText('"extra": {…} 2 keys');
  await message.getByText('"extra"').click();
  await expect(message).toContainText('"region": "eu"');
  await expect(message).toContainText('"limit": 3');
});
