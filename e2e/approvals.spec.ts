import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalBook } from '../main/approvals/ApprovalBook';
import type { HoldRequest } from '../main/approvals/ApprovalHolder';
import type { ToolApproval } from '../shared/approvals';
import { expect, test } from './support/fixtures';
import { startTooldeckServer, type TooldeckServer } from './support/tooldeckServer';

/**
 * The Approvals inbox against the real console: calls held by an ApprovalBook in this process (as
 * the gateway, another process on the same data dir, holds them) appear in the browser with a count
 * in the navigation, and Approve in the page releases the held call.
 */
let console_: TooldeckServer;
let book: ApprovalBook;

test.beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-e2e-approvals-'));
  console_ = await startTooldeckServer({ dataDir });
  book = new ApprovalBook({ dataDir });
});
test.afterAll(async () => {
  await book?.close();
  await console_?.stop();
});

function hold(request: HoldRequest): { created: Promise<ToolApproval>; outcome: Promise<string> } {
  let pending!: (approval: ToolApproval) => void;
  const created = new Promise<ToolApproval>((resolve) => (pending = resolve));
  const outcome = book.hold(request, { onPending: pending }).then(
    (approval) => `${approval.status.phase} by ${approval.status.decided_by}: ${approval.status.comment ?? ''}`,
    (error: Error) => error.message,
  );
  return { created, outcome };
}

const base = { operationClass: 'write', policyVersion: 'v1', ttlMs: 10 * 60_000 } as const;

test('a held call shows in the inbox with its arguments, and Approve in the page lets it run', async ({ page }, testInfo) => {
  const denied = hold({ ...base, agent: 'researcher', tool: 'mcp:everything.echo', input: { message: 'publish the draft' }, reason: 'ToolPermission everything-changes-need-approval: write needs approval', risk: 'medium', taskRef: 'session-7' });
  await book.decide((await denied.created).metadata.name, 'deny', 'alice', 'The draft is not reviewed yet.');
  await denied.outcome;
  const deploy = hold({
    ...base,
    agent: 'planner-bot',
    tool: 'mcp:ops.deploy_service',
    input: { service: 'billing-api', version: '2.14.0', regions: ['eu-west-1', 'us-east-1'], canary: { percent: 10, hold_minutes: 15 } },
    reason: 'ToolPermission ops-changes-need-approval: write needs approval',
    risk: 'high',
    taskRef: 'session-12',
  });
  const cleanup = hold({ ...base, operationClass: 'delete', agent: 'janitor', tool: 'mcp:files.delete_file', input: { path: '/srv/reports/2025-q3.csv' }, reason: 'ToolPermission files-guard: delete needs approval', risk: 'critical', taskRef: 'session-3', ttlMs: 4 * 60_000 });
  const deployName = (await deploy.created).metadata.name;
  await cleanup.created;

  await page.goto(console_.url);
  const navigation = page.getByRole('navigation', { name: 'Sections' });
  await expect(navigation.getByLabel('2 waiting for a decision')).toHaveText('2');
  await navigation.getByRole('button', { name: /^Approvals/ }).click();

  const card = page.getByRole('article', { name: `Approval ${deployName}` });
  await expect(card.getByLabel('Agent')).toHaveText('planner-bot');
  await expect(card.getByLabel('Tool')).toHaveText('mcp:ops.deploy_service');
  await expect(card.getByLabel('Risk')).toHaveText('risk: high');
  await expect(card.getByLabel('Rule')).toHaveText('ToolPermission ops-changes-need-approval: write needs approval');
  await expect(card.getByLabel('Time left')).toHaveText(/^\d+:\d\d left$/);
  await expect(card.getByRole('tree', { name: `Arguments of ${deployName}` }).getByRole('treeitem', { name: /"service":\s*"billing-api"/ })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Decided approvals' })).toContainText('The draft is not reviewed yet.');
  await page.screenshot({ path: testInfo.outputPath('approvals-inbox.png'), fullPage: true });

  await card.getByRole('textbox', { name: /Comment/ }).fill('Canary first, as planned.');
  await card.getByRole('button', { name: `Approve ${deployName}` }).click();
  // The held call, waiting in another process's book, runs.
  expect(await deploy.outcome).toMatch(/^Approved by \S+: Canary first, as planned\.$/);
  await expect(page.getByRole('article', { name: `Approval ${deployName}` })).toHaveCount(0);
  await expect(navigation.getByLabel('1 waiting for a decision')).toHaveText('1');
  await expect(page.getByRole('table', { name: 'Decided approvals' }).getByRole('row', { name: deployName })).toContainText('Approved');
});

/** A page another local server serves (any dev server of the operator's), trying every way a page can POST a decision. */
function attackPage(approveUrl: string): string {
  const body = JSON.stringify({ decided_by: 'mallory', comment: 'approved from another site' });
  return `<!doctype html><title>attacker</title><body><iframe name="sink"></iframe><script>
  const url = ${JSON.stringify(approveUrl)};
  const body = ${JSON.stringify(body)};
  const settle = (p) => p.then(() => 'resolved', () => 'rejected');
  const attacks = [
    settle(fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', body, headers: { 'Content-Type': 'text/plain' } })),
    settle(fetch(url, { method: 'POST', credentials: 'include', body, headers: { 'Content-Type': 'application/json' } })),
    new Promise((done) => {
      const form = document.createElement('form');
      form.method = 'POST'; form.action = url; form.enctype = 'text/plain'; form.target = 'sink';
      // text/plain sends name=value: this name and value make the body valid JSON with one more key.
      const field = document.createElement('input'); field.name = body.slice(0, -1) + ',"x":"'; field.value = '"}';
      form.appendChild(field); document.body.appendChild(form);
      document.querySelector('iframe').onload = () => done('form'); form.submit();
    }),
  ];
  Promise.all(attacks).then((results) => { document.title = 'done:' + results.join(','); });
  </script></body>`;
}

test('a page of another local site cannot approve a held call, even in the browser the console is open in', async ({ browser }) => {
  const held = hold({ ...base, agent: 'planner-bot', tool: 'mcp:ops.deploy_service', input: { service: 'billing-api' }, reason: 'ToolPermission ops: write needs approval', risk: 'high', taskRef: 'session-13' });
  const name = (await held.created).metadata.name;
  const attacker = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(attackPage(`${console_.origin}/v1/tool-approvals/${name}/approve`));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  try {
    const context = await browser.newContext();
    const consolePage = await context.newPage();
    await consolePage.goto(console_.url);
    await expect(consolePage.getByRole('navigation', { name: 'Sections' })).toBeVisible();
    const page = await context.newPage();
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(console_.origin)) statuses.push(response.status());
    });
    await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    await expect(page).toHaveTitle(/^done:/, { timeout: 30_000 });
    // What the browser let the page see of the console's answers is a refusal; the approval is untouched.
    for (const status of statuses) expect(status).toBe(403);
    expect((await book.get(name)).status.phase).toBe('Pending');
    await context.close();
  } finally {
    attacker.close();
  }
  await book.decide(name, 'deny', 'alice', 'end of the attack test');
  expect(await held.outcome).toMatch(/was denied by alice: end of the attack test/);
});
