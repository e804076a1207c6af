import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalName, type ToolApproval } from '../../shared/approvals';
import { AppError } from '../../shared/errors';
import { FakeClock } from '../platform/testing/FakeClock';
import { ApprovalBook, type ApprovalBookOptions } from './ApprovalBook';
import type { HoldOptions, HoldRequest } from './ApprovalHolder';

const books: ApprovalBook[] = [];
afterEach(async () => {
  await Promise.all(books.splice(0).map((book) => book.close()));
});

function newDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'tooldeck-approvals-'));
}

function openBook(options: Partial<ApprovalBookOptions> & { dataDir: string }): ApprovalBook {
  const book = new ApprovalBook(options);
  books.push(book);
  return book;
}

const request = (overrides: Partial<HoldRequest> = {}): HoldRequest => ({
  agent: 'planner-bot',
  tool: 'mcp:files.delete_file',
  operationClass: 'delete',
  input: { path: '/srv/reports/q3.csv', force: true },
  reason: 'ToolPermission files-guard: delete needs approval',
  risk: 'high',
  policyVersion: 'v1',
  taskRef: 'session-1',
  ...overrides,
});

/** Holds a call and resolves once its approval is Pending on disk, with the hold's outcome settled into a result. */
async function holdCall(book: ApprovalBook, req: HoldRequest = request(), options: HoldOptions = {}) {
  let pending!: (approval: ToolApproval) => void;
  const created = new Promise<ToolApproval>((resolve) => (pending = resolve));
  const outcome = book.hold(req, { ...options, onPending: pending }).then(
    (approval) => ({ ok: true as const, approval }),
    (error: unknown) => ({ ok: false as const, error: error as AppError }),
  );
  // A hold that fails before its approval exists must not leave the test waiting.
  const approval = await Promise.race([created, outcome.then((result) => (result.ok ? result.approval : Promise.reject(result.error)))]);
  return { approval, name: approval.metadata.name, outcome };
}

/** Resolves the next time the book says something changed. */
const nextChange = (book: ApprovalBook) => new Promise<void>((resolve) => { const stop = book.onChange(() => { stop(); resolve(); }); });

describe('ApprovalBook', () => {
  it('holds a call as a Pending ToolApproval in its own owner-only file, bound to the RFC 8785 digest of its arguments', async () => {
    const dataDir = newDataDir();
    const clock = new FakeClock(Date.parse('2026-11-28T12:00:00Z'));
    const book = openBook({ dataDir, clock });
    const { approval, name } = await holdCall(book, request({ input: { force: true, path: '/srv/reports/q3.csv', n: 1.0 } }));

    expect(ApprovalName.safeParse(name).success).toBe(true);
    expect(name).toMatch(/^planner-bot-mcp-files-delete-file-[0-9a-f]{10}$/);
    expect(approval).toMatchObject({
      apiVersion: 'orloj.dev/v1',
      kind: 'ToolApproval',
      metadata: { created_at: '2026-11-28T12:00:00.000Z' },
      spec: { task_ref: 'session-1', tool: 'mcp:files.delete_file', operation_class: 'delete', agent: 'planner-bot', reason: 'ToolPermission files-guard: delete needs approval', ttl: '10m' },
      status: { phase: 'Pending', expires_at: '2026-11-28T12:10:00.000Z' },
      binding: { policy_version: 'v1', risk: 'high' },
    });
    // Key order and number spelling do not change the digest: it is SHA-256 of the RFC 8785 form.
    const expected = createHash('sha256').update(canonicalize({ path: '/srv/reports/q3.csv', n: 1, force: true })!).digest('hex');
    expect(approval.binding.input_digest).toBe(expected);

    const folder = join(dataDir, 'approvals');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, `${name}.json`)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(folder, `${name}.json`), 'utf8'))).toEqual(approval);
    expect(await book.list()).toEqual([approval]);
    expect(await book.get(name)).toEqual(approval);
  });

  it('lets the held call run once approved, and refuses every later decision with a conflict', async () => {
    const book = openBook({ dataDir: newDataDir() });
    const { name, outcome } = await holdCall(book);

    const decided = await book.decide(name, 'approve', 'alice', 'looks right');
    expect(decided.status).toMatchObject({ phase: 'Approved', decision: 'approved', decided_by: 'alice', comment: 'looks right' });
    const result = await outcome;
    expect(result.ok && result.approval.status.phase).toBe('Approved');

    for (const verdict of ['approve', 'deny'] as const) {
      const late = await book.decide(name, verdict, 'bob').catch((error: AppError) => error);
      expect(late).toBeInstanceOf(AppError);
      expect(late).toMatchObject({ code: 'AlreadyExists', step: 'decided' });
      expect((late as AppError).message).toMatch(new RegExp(`^Approval ${name} is no longer Pending: it was approved by alice at \\S+\\.$`));
    }
    expect((await book.get(name)).status.phase).toBe('Approved');
  });

  it('ends the held call with the denial: who denied it and their comment', async () => {
    const book = openBook({ dataDir: newDataDir() });
    const { name, outcome } = await holdCall(book);
    await book.decide(name, 'deny', 'alice', 'not on a Friday');
    const result = await outcome;
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatchObject({ code: 'PolicyDenied', step: 'denied', message: `Approval ${name} was denied by alice: not on a Friday; the call did not run.` });
  });

  it('gives each call its own approval: approving one call does not release another with the same arguments', async () => {
    const book = openBook({ dataDir: newDataDir() });
    const first = await holdCall(book);
    const second = await holdCall(book);
    expect(first.name).not.toBe(second.name);
    await book.decide(first.name, 'approve', 'alice');
    expect((await first.outcome).ok).toBe(true);
    expect((await book.get(second.name)).status.phase).toBe('Pending');
    await book.decide(second.name, 'deny', 'alice');
    expect((await second.outcome).ok).toBe(false);
  });

  it('expires an approval nobody decided within its ttl: the call ends, the file says Expired, a late decision is a conflict', async () => {
    const clock = new FakeClock(Date.parse('2026-11-28T12:00:00Z'));
    const book = openBook({ dataDir: newDataDir(), clock });
    const { name, outcome } = await holdCall(book, request({ ttlMs: 90_000 }));
    expect((await book.get(name)).spec.ttl).toBe('1m30s');
    await clock.advance(90_000);
    const result = await outcome;
    expect(!result.ok && result.error).toMatchObject({ code: 'PolicyDenied', step: 'expired', message: `Approval ${name} expired: nobody decided within 1m30s, so the call did not run.` });
    expect((await book.get(name)).status).toMatchObject({ phase: 'Expired', expires_at: '2026-11-28T12:01:30.000Z' });
    await expect(book.decide(name, 'approve', 'alice')).rejects.toMatchObject({ code: 'AlreadyExists', message: `Approval ${name} is no longer Pending: it expired at 2026-11-28T12:01:30.000Z.` });
  });

  it('ends a canceled call (the agent disconnected) Denied by tooldeck, saying why, and never lets it run', async () => {
    const book = openBook({ dataDir: newDataDir() });
    const controller = new AbortController();
    const { name, outcome } = await holdCall(book, request(), { signal: controller.signal });
    controller.abort(new Error('the agent disconnected'));
    const result = await outcome;
    expect(!result.ok && result.error).toMatchObject({ code: 'PolicyDenied', step: 'canceled', message: `Approval ${name} was canceled while it waited for a person's decision (the agent disconnected); the call did not run.` });
    expect((await book.get(name)).status).toMatchObject({ phase: 'Denied', decision: 'denied', decided_by: 'tooldeck', comment: 'Canceled: the agent disconnected' });
    await expect(book.decide(name, 'approve', 'alice')).rejects.toMatchObject({ code: 'AlreadyExists' });
  });

  it('does not hold a call whose signal is already aborted', async () => {
    const dataDir = newDataDir();
    const book = openBook({ dataDir });
    await expect(book.hold(request(), { signal: AbortSignal.abort(new Error('gone')) })).rejects.toMatchObject({ code: 'PolicyDenied', step: 'canceled' });
    expect(readdirSync(join(dataDir, 'approvals'))).toEqual([]);
  });

  it('ends calls still held when the book closes (the gateway stops): Denied, canceled, never run', async () => {
    const book = new ApprovalBook({ dataDir: newDataDir() });
    const { name, outcome } = await holdCall(book);
    await book.close();
    const result = await outcome;
    expect(!result.ok && result.error).toMatchObject({ step: 'canceled', message: expect.stringContaining('Tooldeck stopped') });
    const reader = openBook({ dataDir: book.folder.replace(/[/\\]approvals$/, ''), watch: false });
    expect((await reader.get(name)).status).toMatchObject({ phase: 'Denied', decided_by: 'tooldeck' });
  });

  it('wakes a call held in one book when another book on the same data dir decides, and tells listeners there', async () => {
    const dataDir = newDataDir();
    const holder = openBook({ dataDir });
    const console = openBook({ dataDir });
    const seen = nextChange(console);
    const { name, outcome } = await holdCall(holder);
    await seen;
    expect((await console.list()).map((approval) => approval.metadata.name)).toEqual([name]);
    const decider = openBook({ dataDir, watch: false });
    await decider.decide(name, 'approve', 'alice');
    const result = await outcome;
    expect(result.ok && result.approval.status).toMatchObject({ phase: 'Approved', decided_by: 'alice' });
  });

  it('lets exactly one of many concurrent deciders win', async () => {
    const dataDir = newDataDir();
    const holder = openBook({ dataDir });
    const { name, outcome } = await holdCall(holder);
    const deciders = Array.from({ length: 8 }, () => openBook({ dataDir, watch: false }));
    const results = await Promise.allSettled(deciders.map((book, i) => book.decide(name, i % 2 ? 'deny' : 'approve', `operator-${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'AlreadyExists', step: 'decided' });
    const winner = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<ToolApproval>).value;
    const result = await outcome;
    expect(result.ok).toBe(winner.status.phase === 'Approved');
    expect((await holder.get(name)).status.decided_by).toBe(winner.status.decided_by);
  });

  it('does not run a call whose approval file was changed on disk before it was approved (other arguments)', async () => {
    const dataDir = newDataDir();
    const book = openBook({ dataDir });
    const { name, outcome } = await holdCall(book);
    const path = join(dataDir, 'approvals', `${name}.json`);
    const tampered = JSON.parse(readFileSync(path, 'utf8')) as ToolApproval;
    tampered.spec.input = { path: '/' };
    tampered.binding.input_digest = createHash('sha256').update(canonicalize(tampered.spec.input)!).digest('hex');
    writeFileSync(path, JSON.stringify(tampered));
    await openBook({ dataDir, watch: false }).decide(name, 'approve', 'alice');
    const result = await outcome;
    expect(!result.ok && result.error).toMatchObject({ code: 'PolicyDenied', step: 'binding' });
  });

  it('does not run a call approved after the policy changed under it', async () => {
    let version = 'v1';
    const book = openBook({ dataDir: newDataDir(), currentPolicyVersion: () => version });
    const { name, outcome } = await holdCall(book);
    version = 'v2';
    await book.decide(name, 'approve', 'alice');
    const result = await outcome;
    expect(!result.ok && result.error).toMatchObject({ code: 'PolicyDenied', step: 'binding', message: expect.stringContaining('the policy changed (now v2)') });
  });

  it('fails closed on a decision file that is garbage: the call is denied, the file stays as it was', async () => {
    const dataDir = newDataDir();
    const book = openBook({ dataDir });
    const { name, outcome } = await holdCall(book);
    const decisionPath = join(dataDir, 'approvals', `${name}.decision.json`);
    // A hand-written hostile decision: not JSON at all.
    writeFileSync(decisionPath, '\u0000\u001b[31mapproved!!');
    const result = await outcome;
    expect(!result.ok && result.error).toMatchObject({ code: 'PolicyDenied', step: 'denied' });
    expect((!result.ok && result.error.message) || '').toContain('cannot be read');
    expect(readFileSync(decisionPath, 'utf8')).toBe('\u0000\u001b[31mapproved!!');
    expect((await book.get(name)).status).toMatchObject({ phase: 'Denied', decided_by: 'tooldeck' });
  });

  it('refuses bad decisions in one clear sentence and changes nothing', async () => {
    const dataDir = newDataDir();
    const book = openBook({ dataDir });
    const { name } = await holdCall(book);
    const cases: Array<[() => Promise<unknown>, string, RegExp]> = [
      [() => book.decide('../etc/passwd', 'approve', 'alice'), 'InvalidInput', /^"\.\.\/etc\/passwd" is not an approval name/],
      [() => book.decide('Nope', 'approve', 'alice'), 'InvalidInput', /is not an approval name/],
      [() => book.decide('no-such-approval', 'approve', 'alice'), 'NotFound', /^No approval named no-such-approval\.$/],
      [() => book.decide(name, 'approve', '   '), 'InvalidInput', /Say who decides/],
      [() => book.decide(name, 'approve', 'a'.repeat(201)), 'InvalidInput', /at most 200 characters; it has 201/],
      [() => book.decide(name, 'approve', 'alice\u001b[2J'), 'InvalidInput', /control characters/],
      [() => book.decide(name, 'approve', 'alice', 'x'.repeat(2001)), 'InvalidInput', /^A comment may have at most 2000 characters; this one has 2001\.$/],
      [() => book.decide(name, 'approve', 'alice', 'ok\u001b]0;pwned\u0007'), 'InvalidInput', /control characters/],
    ];
    for (const [attempt, code, message] of cases) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe(code);
      expect((error as AppError).message).toMatch(message);
    }
    expect((await book.get(name)).status.phase).toBe('Pending');
    // Line breaks and tabs are ordinary text in a comment.
    expect((await book.decide(name, 'deny', 'alice', 'line one\n\tline two')).status.comment).toBe('line one\n\tline two');
  });

  it('lists around files it cannot use: a damaged approval, a name outside the alphabet, a stray file', async () => {
    const dataDir = newDataDir();
    const book = openBook({ dataDir });
    const { name } = await holdCall(book);
    const folder = join(dataDir, 'approvals');
    writeFileSync(join(folder, 'broken.json'), '{"kind":');
    writeFileSync(join(folder, 'Evil Name.json'), '{}');
    writeFileSync(join(folder, 'notes.txt'), 'hello');
    expect((await book.list()).map((approval) => approval.metadata.name)).toEqual([name]);
    await expect(book.get('broken')).rejects.toMatchObject({ code: 'InvalidInput', message: expect.stringMatching(/broken\.json is not JSON/) });
    expect(readFileSync(join(folder, 'broken.json'), 'utf8')).toBe('{"kind":');
  });

  it('keeps the newest decided approvals up to its cap, and every Pending one', async () => {
    const clock = new FakeClock(Date.parse('2026-11-28T12:00:00Z'));
    const book = openBook({ dataDir: newDataDir(), clock, keepDecided: 2 });
    const pending = await holdCall(book);
    const decidedNames: string[] = [];
    for (let i = 0; i < 4; i++) {
      const held = await holdCall(book, request({ input: { i } }));
      await clock.advance(1000);
      await book.decide(held.name, 'deny', 'alice');
      await held.outcome;
      decidedNames.push(held.name);
    }
    await book.settled();
    const names = (await book.list()).map((approval) => approval.metadata.name);
    expect(names).toEqual([pending.name, decidedNames[3], decidedNames[2]]);
  });
});

describe('ApprovalBook and a holder that is gone', () => {
  it('ends a Pending approval whose holding process ended (a crashed gateway), so nobody approves a call that cannot run', async () => {
    const dataDir = newDataDir();
    const holder = openBook({ dataDir });
    const { name } = await holdCall(holder);
    const folder = join(dataDir, 'approvals');
    expect(JSON.parse(readFileSync(join(folder, `${name}.holder.json`), 'utf8'))).toEqual({ host: hostname(), pid: process.pid });
    // A process that has ended stands for the gateway that crashed while holding the call.
    const ended = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
    writeFileSync(join(folder, `${name}.holder.json`), JSON.stringify({ host: hostname(), pid: ended.pid }));

    const console = openBook({ dataDir, watch: false });
    expect((await console.get(name)).status).toMatchObject({ phase: 'Denied', decided_by: 'tooldeck', comment: `Canceled: the process that held the call (pid ${ended.pid}) ended before anyone decided` });
    await expect(console.decide(name, 'approve', 'alice')).rejects.toMatchObject({ code: 'AlreadyExists', message: expect.stringContaining(`(Canceled: the process that held the call (pid ${ended.pid}) ended before anyone decided)`) });
  });

  it('counts an approval as held while its holder runs, on another machine, or without a holder file', async () => {
    const dataDir = newDataDir();
    const holder = openBook({ dataDir });
    const folder = join(dataDir, 'approvals');
    const running = await holdCall(holder);
    const elsewhere = await holdCall(holder);
    writeFileSync(join(folder, `${elsewhere.name}.holder.json`), JSON.stringify({ host: `not-${hostname()}`, pid: 999_999_999 }));
    const unknown = await holdCall(holder);
    rmSync(join(folder, `${unknown.name}.holder.json`));
    const console = openBook({ dataDir, watch: false });
    for (const { name } of [running, elsewhere, unknown]) expect((await console.get(name)).status.phase).toBe('Pending');
  });
});

describe('ApprovalBook.hold with arguments that are not JSON', () => {
  it('refuses them in a sentence and holds nothing', async () => {
    const dataDir = newDataDir();
    const book = openBook({ dataDir });
    await expect(book.hold(request({ input: { size: 10n } }))).rejects.toMatchObject({ code: 'InvalidInput', message: expect.stringMatching(/^The arguments of a held call must be JSON: /) });
    expect(readdirSync(join(dataDir, 'approvals'))).toEqual([]);
  });
});
