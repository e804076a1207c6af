import { startEverythingHttp, type RunningPeer } from './peers/mcp/everything';
import { expect, openSection, test } from './support/fixtures';

let peer: RunningPeer;
test.beforeAll(async () => {
  peer = await startEverythingHttp();
});
test.afterAll(() => peer?.close());

test('each call keeps its trace id: the result links to History filtered by that trace, which shows it', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'Servers');
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add MCP server' });
  await dialog.getByLabel('Name').fill('traced');
  await dialog.getByText('Streamable HTTP', { exact: true }).click();
  await dialog.getByRole('textbox', { name: /^URL/ }).fill(peer.url);
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByRole('listitem', { name: 'traced' })).toContainText('Connected', { timeout: 20_000 });

  await page.goto(`${tooldeck.origin}/tools?tool=${encodeURIComponent('mcp:traced.echo')}#token=${tooldeck.token}`);
  await page.getByRole('textbox', { name: /message/i }).fill('first');
  await page.getByRole('button', { name: 'Invoke' }).click();
  await expect(page.getByRole('region', { name: 'Result' })).toContainText('Echo: first');
  await page.getByRole('textbox', { name: /message/i }).fill('second');
  await page.getByRole('button', { name: 'Invoke' }).click();
  const result = page.getByRole('region', { name: 'Result' });
  await expect(result).toContainText('Echo: second');

  const traceLink = result.getByRole('button', { name: /^Trace [0-9a-f]{32}$/ });
  const traceId = (await traceLink.getAttribute('aria-label'))!.slice('Trace '.length);
  await traceLink.click();
  await expect(page.getByRole('textbox', { name: 'Trace id' })).toHaveValue(traceId);
  const rows = page.getByRole('grid').getByRole('row').filter({ hasText: 'echo' });
  await expect(rows).toHaveCount(1);
  await rows.first().click();
  await expect(page.getByLabel('Trace id', { exact: true }).last()).toHaveText(traceId);
  await expect(page.getByRole('region', { name: /Arguments/ })).toContainText('second');
});
