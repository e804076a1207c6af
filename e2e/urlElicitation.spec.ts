import { startEverythingHttp, type RunningPeer } from './peers/mcp/everything';
import { expect, openSection, test } from './support/fixtures';

test.describe.configure({ mode: 'serial' });

let peer: RunningPeer;
test.beforeAll(async () => {
  peer = await startEverythingHttp();
});
test.afterAll(() => peer?.close());

test('URL-mode elicitation end to end: the request path, and the error path (-32042) with a retry', async ({ page, tooldeck }) => {
  await page.goto(tooldeck.url);
  await openSection(page, 'Servers');
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add MCP server' });
  await dialog.getByLabel('Name').fill('urls');
  await dialog.getByText('Streamable HTTP', { exact: true }).click();
  await dialog.getByRole('textbox', { name: /^URL/ }).fill(peer.url);
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByRole('listitem', { name: 'urls' })).toContainText('Connected', { timeout: 20_000 });

  await page.goto(`${tooldeck.origin}/tools?tool=${encodeURIComponent('mcp:urls.trigger-url-elicitation')}#token=${tooldeck.token}`);
  await page.getByRole('textbox', { name: /^url/i }).fill('https://consent.example.com/grant?app=tooldeck');

  // Request path: the server asks (elicitation/create, mode url); the operator sees where it leads, finishes, says Done.
  await page.getByRole('button', { name: 'Invoke' }).click();
  const question = page.getByRole('dialog', { name: /urls asks for input/ });
  await expect(question).toContainText('Open this page on consent.example.com');
  await expect(question.getByRole('link', { name: /consent\.example\.com\/grant/ })).toHaveAttribute('target', '_blank');
  await question.getByRole('button', { name: 'Done' }).click();
  const result = page.getByRole('region', { name: 'Result' });
  await expect(result).toContainText('User completed the URL elicitation flow');

  // Error path: the call fails with the pages to open; after visiting them the operator retries.
  await page.getByRole('checkbox', { name: /errorPath/i }).check();
  await page.getByRole('button', { name: 'Invoke' }).click();
  const pages = result.getByRole('list', { name: 'Pages to open' });
  await expect(pages).toContainText('https://modelcontextprotocol.io/');
  await result.getByRole('button', { name: 'Retry the call' }).click();
  await page.getByRole('dialog', { name: /urls asks for input/ }).getByRole('button', { name: 'Done' }).click();
  await expect(result).toContainText('User completed the URL elicitation flow');
});
