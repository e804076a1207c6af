import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolApproval } from '../../../shared/approvals';
import { ApprovalBook } from '../../../main/approvals/ApprovalBook';
import type { HoldRequest } from '../../../main/approvals/ApprovalHolder';
import { runTooldeck } from '../testing/runTooldeck';

const books: ApprovalBook[] = [];
afterEach(async () => {
  await Promise.all(books.splice(0).map((book) => book.close()));
});

const request: HoldRequest = {
  agent: 'planner-bot',
  tool: 'mcp:files.delete_file',
  operationClass: 'delete',
  input: { path: '/srv/reports/q3.csv' },
  reason: 'approval_required by ToolPermission files-guard',
  policyVersion: 'v1',
  taskRef: 'session-1',
};

/** A data dir whose book holds one call: the approval's name, and the hold's outcome as text. */
async function heldCall(req: HoldRequest = request) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-cli-approvals-'));
  const book = new ApprovalBook({ dataDir });
  books.push(book);
  let pending!: (approval: ToolApproval) => void;
  const created = new Promise<ToolApproval>((resolve) => (pending = resolve));
  const outcome = book.hold(req, { onPending: pending }).then(
    (approval) => `${approval.status.phase} by ${approval.status.decided_by}`,
    (error: Error) => error.message,
  );
  return { dataDir, book, name: (await created).metadata.name, outcome };
}

describe('tooldeck approvals', () => {
  it('lists held calls as a table and as JSON', async () => {
    const { dataDir, name } = await heldCall();
    const table = await runTooldeck(dataDir, ['approvals', 'list']);
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME\s+PHASE\s+AGENT\s+TOOL\s+ARGUMENTS\s+STATE$/);
    expect(row).toMatch(new RegExp(`^${name}\\s+Pending\\s+planner-bot\\s+mcp:files\\.delete_file\\s+\\{"path":"/srv/reports/q3\\.csv"\\}\\s+expires in (10m00s|9m\\d\\ds)$`));
    const json = await runTooldeck(dataDir, ['approvals', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject([{ kind: 'ToolApproval', metadata: { name }, status: { phase: 'Pending' } }]);
    expect(await runTooldeck(mkdtempSync(join(tmpdir(), 'tooldeck-cli-approvals-')), ['approvals', 'list'])).toMatchObject({ code: 0, stdout: 'No approvals.\n' });
  });

  it('approves a held call, which then runs; deciding again is a conflict (exit 1, one sentence)', async () => {
    const { dataDir, name, outcome } = await heldCall();
    const approved = await runTooldeck(dataDir, ['approvals', 'approve', name, '--comment', 'checked the path', '--by', 'alice']);
    expect(approved).toEqual({ code: 0, stdout: `Approved ${name}: mcp:files.delete_file for agent planner-bot may run once.\n`, stderr: '' });
    expect(await outcome).toBe('Approved by alice');
    const again = await runTooldeck(dataDir, ['approvals', 'deny', name]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(new RegExp(`^Approval ${name} is no longer Pending: it was approved by alice at \\S+\\.\\n$`));
  });

  it('denies with a comment the held call ends with', async () => {
    const { dataDir, name, outcome } = await heldCall();
    const denied = await runTooldeck(dataDir, ['approvals', 'deny', name, '--comment', 'wrong quarter', '--by', 'alice', '--json']);
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({ status: { phase: 'Denied', decided_by: 'alice', comment: 'wrong quarter' } });
    expect(await outcome).toBe(`Approval ${name} was denied by alice: wrong quarter; the call did not run.`);
  });

  it('answers an unknown name with exit 1, a bad name or comment with exit 2, each in one sentence', async () => {
    const { dataDir, name } = await heldCall();
    expect(await runTooldeck(dataDir, ['approvals', 'approve', 'no-such-approval'])).toEqual({ code: 1, stdout: '', stderr: 'No approval named no-such-approval.\n' });
    const bad = await runTooldeck(dataDir, ['approvals', 'approve', '../../etc/passwd']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^InvalidInput: "\.\.\/\.\.\/etc\/passwd" is not an approval name: [^\n]+\n$/);
    const long = await runTooldeck(dataDir, ['approvals', 'deny', name, '--comment', 'x'.repeat(5000)]);
    expect(long).toMatchObject({ code: 2, stderr: 'InvalidInput: A comment may have at most 2000 characters; this one has 5000.\n' });
    const control = await runTooldeck(dataDir, ['approvals', 'deny', name, '--comment', 'fine\u001b]0;owned\u0007']);
    expect(control.code).toBe(2);
    expect(control.stderr).toMatch(/control characters/);
  });

  it('writes names and arguments an agent chose so they cannot act on the terminal', async () => {
    const { dataDir } = await heldCall({ ...request, agent: 'evil\u001b[2Jbot', input: { note: 'hi\u001b]8;;http://x\u0007there' } });
    const listed = await runTooldeck(dataDir, ['approvals', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain('\u001b');
    expect(listed.stdout).toContain('evil⟦U+001B ESCAPE');
  });
});
