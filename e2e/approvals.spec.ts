import { mkdtempSync } from 'node:fs';
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
