import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolApproval } from '../../shared/approvals';
import { ApprovalBook } from '../../main/approvals/ApprovalBook';
import type { HoldRequest } from '../../main/approvals/ApprovalHolder';
import { cliPath } from '../support/tooldeckServer';

/**
 * The built `tooldeck approvals` decides from its own process, on the same data dir, while a
 * holder elsewhere (here: this test's process, as the gateway would be) waits on the call: the
 * holder wakes on the decision file, and of two deciders racing, one wins and one gets a conflict.
 */
const run = promisify(execFile);

async function tooldeck(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliPath, '--data-dir', dataDir, ...args], { encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const request: HoldRequest = {
  agent: 'planner-bot',
  tool: 'mcp:everything.echo',
  operationClass: 'write',
  input: { message: 'deploy to production' },
  reason: 'approval_required by ToolPermission echo-guard',
  policyVersion: 'v1',
  taskRef: 'session-1',
};

const books: ApprovalBook[] = [];
afterEach(async () => {
  await Promise.all(books.splice(0).map((book) => book.close()));
});

async function heldCall() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-approvals-xproc-'));
  const book = new ApprovalBook({ dataDir });
  books.push(book);
  let pending!: (approval: ToolApproval) => void;
  const created = new Promise<ToolApproval>((resolve) => (pending = resolve));
  const outcome = book.hold(request, { onPending: pending }).then(
    (approval) => `${approval.status.phase} by ${approval.status.decided_by}`,
    (error: Error) => error.message,
  );
  return { dataDir, name: (await created).metadata.name, outcome };
}

describe('tooldeck approvals from another process', { timeout: 60_000 }, () => {
  it('approves a call held in another process, which then runs', async () => {
    const { dataDir, name, outcome } = await heldCall();
    const listed = await tooldeck(dataDir, 'approvals', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ metadata: { name }, spec: { agent: 'planner-bot', input: { message: 'deploy to production' } }, status: { phase: 'Pending' } }]);
    const approved = await tooldeck(dataDir, 'approvals', 'approve', name, '--by', 'alice', '--comment', 'go');
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(await outcome).toBe('Approved by alice');
  });

  it('lets one of two racing deciders win; the other exits 1 saying how it ended', async () => {
    const { dataDir, name, outcome } = await heldCall();
    const [first, second] = await Promise.all([tooldeck(dataDir, 'approvals', 'approve', name, '--by', 'alice'), tooldeck(dataDir, 'approvals', 'deny', name, '--by', 'bob')]);
    expect([first.code, second.code].sort()).toEqual([0, 1]);
    const loser = first.code === 1 ? first : second;
    expect(loser.stderr).toMatch(new RegExp(`^Approval ${name} is no longer Pending: it was (approved by alice|denied by bob) at \\S+\\.\\n$`));
    const result = await outcome;
    expect(result).toBe(first.code === 0 ? 'Approved by alice' : `Approval ${name} was denied by bob; the call did not run.`);
  });
});
