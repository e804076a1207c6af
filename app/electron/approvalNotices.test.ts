import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApprovalBook } from '../../main/approvals/ApprovalBook';
import type { HoldRequest } from '../../main/approvals/ApprovalHolder';
import { silentLogger } from '../../main/platform/Logger';
import type { ToolApproval } from '../../shared/approvals';
import { announceNewApprovals } from './approvalNotices';
import { FakeElectron } from './testing/FakeElectron';

const books: ApprovalBook[] = [];
const stops: Array<() => void> = [];
afterEach(async () => {
  stops.splice(0).forEach((stop) => stop());
  await Promise.all(books.splice(0).map((book) => book.close()));
});

const request = (agent: string, overrides: Partial<HoldRequest> = {}): HoldRequest => ({
  agent,
  tool: 'mcp:files.delete_file',
  operationClass: 'delete',
  input: { path: '/srv/reports/q3.csv' },
  reason: 'ToolPermission files-guard: delete needs approval',
  risk: 'high',
  policyVersion: 'v1',
  taskRef: 'session-1',
  ...overrides,
});

async function setUp(platform: NodeJS.Platform = 'linux') {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-notices-'));
  const book = new ApprovalBook({ dataDir });
  books.push(book);
  const electron = new FakeElectron({ userData: dataDir });
  await electron.emitReady();
  const open = vi.fn();
  return { book, electron, open, start: () => { const notices = announceNewApprovals({ approvals: book, electron, platform, open, logger: silentLogger }); stops.push(notices.stop); return notices; } };
}

/** Holds a call and resolves once it is Pending on disk. */
function hold(book: ApprovalBook, req: HoldRequest): Promise<ToolApproval> {
  return new Promise((resolve) => void book.hold(req, { onPending: resolve }).catch(() => undefined));
}

describe('desktop notices of new approvals', () => {
  it('announces each call newly held, not those already waiting at start, and opens the inbox when clicked', async () => {
    const { book, electron, open, start } = await setUp();
    await hold(book, request('early-bot'));
    const notices = start();
    await notices.settled();
    await hold(book, request('planner-bot'));
    await vi.waitFor(() => expect(electron.notifications).toHaveLength(1), { timeout: 10_000 });
    expect(electron.notifications[0]!.options).toEqual({ title: 'planner-bot waits for your approval', body: 'mcp:files.delete_file (risk: high): ToolPermission files-guard: delete needs approval' });
    electron.notifications[0]!.click();
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('writes an agent\'s text as plain text: no control characters, no markup on Linux, cut short', async () => {
    const { book, electron, start } = await setUp('linux');
    await start().settled();
    await hold(book, request('evil\u001b[2J<b>bot</b>', { reason: `<a href="http://x">click</a> & ${'x'.repeat(400)}` }));
    await vi.waitFor(() => expect(electron.notifications).toHaveLength(1), { timeout: 10_000 });
    const { title, body } = electron.notifications[0]!.options;
    expect(title).toBe('evil [2J&lt;b&gt;bot&lt;/b&gt; waits for your approval');
    expect(body).toContain('&lt;a href="http://x"&gt;click&lt;/a&gt; &amp; xxx');
    expect(body).not.toMatch(/[<>]/);
    expect(body.length).toBeLessThan(400);
  });

  it('counts a burst instead of showing a notice per call', async () => {
    const { book, electron } = await setUp('darwin');
    // A feed that changes only when the test says: five calls held between two looks.
    const held = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((agent) => hold(book, request(`${agent}-bot`))));
    let listed: ToolApproval[] = [];
    const listeners = new Set<() => void>();
    const feed = { list: async () => listed, onChange: (listener: () => void) => (listeners.add(listener), () => listeners.delete(listener)) };
    const notices = announceNewApprovals({ approvals: feed, electron, platform: 'darwin', open: () => undefined, logger: silentLogger });
    stops.push(notices.stop);
    await notices.settled();
    listed = held;
    listeners.forEach((listener) => listener());
    await notices.settled();
    expect(electron.notifications.map((notice) => notice.options.title)).toEqual(['a-bot waits for your approval', 'b-bot waits for your approval', '3 more calls wait for your approval']);
  });
});
