import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { InvocationRecord, InvocationStatus } from '../../shared/invocation';
import { invocation } from './testing/testRecords';
import type { InvocationFilter } from '../../shared/history';
import { InvocationStore, type InvocationStoreOptions, type StoreWriteError } from './InvocationStore';
import { loadSqlite } from './loadSqlite';

const DAY = 86_400_000;
const now = Date.now();
const open: InvocationStore[] = [];
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-store-'));
  dirs.push(dir);
  return dir;
}

function memoryStore(options: InvocationStoreOptions = {}): InvocationStore {
  const store = new InvocationStore(':memory:', { retention: false, ...options });
  open.push(store);
  return store;
}

function fileStore(options: InvocationStoreOptions = {}): InvocationStore {
  const store = new InvocationStore(join(tempDir(), 'tooldeck.db'), { retention: false, ...options });
  open.push(store);
  return store;
}

/** What another process (the CLI, a second window) sees in the file right now. */
function countFromOutside(path: string): number {
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM invocations').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sources = [
  ['mcp', 'everything'],
  ['mcp', 'git'],
  ['a2a', 'planner'],
  ['http', 'weather'],
] as const;
const tools = ['echo', 'get-sum', 'search'];
const statuses: InvocationStatus[] = ['ok', 'ok', 'ok', 'error', 'timeout', 'denied', 'canceled'];

/** 140 varied calls over the last two hours, several sharing a start time. */
function dataset(): InvocationRecord[] {
  return Array.from({ length: 140 }, (_, i) => {
    const [sourceKind, sourceName] = sources[i % sources.length]!;
    const status = statuses[i % statuses.length]!;
    return invocation({
      id: `call-${i}`,
      startedAt: now - 2 * 3_600_000 + Math.floor(i / 3) * 60_000,
      sourceKind,
      sourceName,
      tool: tools[i % tools.length]!,
      argumentsJson: JSON.stringify({ query: i % 10 === 0 ? 'discount 50% off' : `item ${i}` }),
      status,
      ...(status !== 'ok' ? { errorCode: 'ExecutionFailed' as const, errorMessage: `Failure number ${i}` } : {}),
      latencyMs: 1 + ((i * 37) % 400),
      resultPreview: i % 11 === 0 ? 'Weather: SUNNY' : `result ${i}`,
      ...(i % 5 === 0 ? { runId: `run-${i % 2}` } : {}),
      // Older records have no way in; some calls are an agent's.
      ...(i % 6 === 5 ? {} : { via: i % 5 === 0 ? ('run' as const) : i % 2 ? ('ui' as const) : ('gateway' as const) }),
      ...(i % 4 === 1 ? { agent: i % 8 === 1 ? 'planner-bot' : 'triage-bot' } : {}),
    });
  });
}

/** The filter semantics, stated plainly, to check the SQL against. */
function matches(rec: InvocationRecord, f: InvocationFilter): boolean {
  const text = f.text?.toLowerCase();
  return (
    (f.sourceKind === undefined || rec.sourceKind === f.sourceKind) &&
    (f.sourceName === undefined || rec.sourceName === f.sourceName) &&
    (f.tool === undefined || rec.tool === f.tool) &&
    (!f.status?.length || f.status.includes(rec.status)) &&
    (f.since === undefined || rec.startedAt >= f.since) &&
    (f.until === undefined || rec.startedAt < f.until) &&
    (f.runId === undefined || rec.runId === f.runId) &&
    (f.via === undefined || rec.via === f.via) &&
    (f.agent === undefined || (rec.agent ?? null) === f.agent) &&
    (text === undefined || [rec.tool, rec.argumentsJson, rec.resultPreview, rec.errorMessage ?? ''].some((v) => v.toLowerCase().includes(text)))
  );
}

const newestFirst = (records: InvocationRecord[]) =>
  records
    .map((rec, order) => ({ rec, order }))
    .sort((a, b) => b.rec.startedAt - a.rec.startedAt || b.order - a.order)
    .map(({ rec }) => rec.id);

describe('InvocationStore records', () => {
  it('reads back exactly what was recorded, optional fields included and absent ones absent', () => {
    const store = memoryStore();
    const full = invocation({
      id: 'full',
      status: 'error',
      errorCode: 'Timeout',
      errorMessage: 'took too long',
      replayOf: 'earlier',
      runId: 'run-1',
      isError: true,
      attempts: 3,
      truncated: true,
      latencyMs: 1234.567,
    });
    const bare = invocation({ id: 'bare' });
    store.record(full);
    store.record(bare);
    expect(store.get('full')).toEqual(full);
    expect(store.get('bare')).toEqual(bare);
    expect(Object.keys(store.get('bare')!)).not.toContain('errorCode');
    expect(store.get('missing')).toBeUndefined();
  });

  it('reads back who called and how: the agent and the way in, absent for the operator and for older records', () => {
    const store = memoryStore();
    const byAgent = invocation({ id: 'agent', via: 'gateway', agent: 'planner-bot' });
    const byOperator = invocation({ id: 'operator', via: 'cli' });
    store.record(byAgent);
    store.record(byOperator);
    expect(store.get('agent')).toEqual(byAgent);
    expect(store.get('operator')).toEqual(byOperator);
    expect(Object.keys(store.get('operator')!)).not.toContain('agent');
  });

  it('keeps the first of two records with the same id', () => {
    const store = memoryStore();
    store.record(invocation({ id: 'same', resultPreview: 'first' }));
    store.record(invocation({ id: 'same', resultPreview: 'second' }));
    expect(store.count()).toBe(1);
    expect(store.get('same')?.resultPreview).toBe('first');
    expect(store.breakdown({ since: 0, until: now + DAY, by: 'source' })[0]?.count).toBe(1);
  });

  it('writes batches off the call path: on flush, after the interval, or once a batch is full', async () => {
    const store = fileStore({ flushIntervalMs: 50, maxBatchRows: 10 });
    store.record(invocation({ id: 'a' }));
    expect(countFromOutside(store.path)).toBe(0);
    await store.flush();
    expect(countFromOutside(store.path)).toBe(1);

    store.record(invocation({ id: 'b' }));
    await vi.waitFor(() => expect(countFromOutside(store.path)).toBe(2), { timeout: 5_000 });

    for (let i = 0; i < 10; i++) store.record(invocation({ id: `batch-${i}` }));
    expect(countFromOutside(store.path)).toBe(2);
    await nextTurn();
    expect(countFromOutside(store.path)).toBe(12);
  });

  it('drops a record that cannot be stored, says why, and keeps the rest of its batch', () => {
    const store = memoryStore();
    const errors: StoreWriteError[] = [];
    store.onWriteError((error) => errors.push(error));
    store.record(invocation({ id: 'good-1' }));
    store.record(invocation({ id: 'bad', latencyMs: Number.NaN }));
    store.record(invocation({ id: 'good-2' }));
    expect(store.count()).toBe(2);
    expect(errors).toEqual([expect.objectContaining({ message: expect.stringContaining('latencyMs is not a number'), rows: 1, retrying: false })]);
    expect(store.health()).toEqual({ ok: true, pendingRows: 0, droppedRows: 1 });
  });

  it('ignores records after close instead of throwing', async () => {
    const store = memoryStore();
    await store.close();
    expect(() => store.record(invocation({ id: 'late' }))).not.toThrow();
    expect(store.health().droppedRows).toBe(1);
  });
});

describe('InvocationStore queries', () => {
  const records = dataset();
  const t0 = now - 2 * 3_600_000;
  const filters: InvocationFilter[] = [
    {},
    { sourceKind: 'mcp' },
    { sourceKind: 'mcp', sourceName: 'git' },
    { tool: 'echo' },
    { tool: 'search', sourceKind: 'a2a' },
    { status: ['error', 'timeout'] },
    { status: ['ok'], tool: 'get-sum', sourceName: 'everything' },
    { since: t0 + 10 * 60_000, until: t0 + 20 * 60_000 },
    { since: t0 + 30 * 60_000, status: ['denied'], sourceKind: 'http' },
    { runId: 'run-0' },
    { runId: 'run-1', tool: 'echo' },
    { text: 'sunny' },
    { text: '50%' },
    { text: '%' },
    { text: 'failure number 1', status: ['error', 'timeout', 'denied', 'canceled'] },
    { text: 'item_1' },
    { sourceKind: 'a2a', sourceName: 'everything' },
    { status: [] },
    { via: 'gateway' },
    { via: 'run', runId: 'run-0' },
    { agent: 'planner-bot' },
    { agent: null },
    { agent: 'triage-bot', via: 'ui', status: ['ok'] },
    { agent: 'nobody' },
  ];

  it.each(filters.map((f) => [JSON.stringify(f), f] as const))('list and count agree with the filter %s', (_, filter) => {
    const store = memoryStore();
    for (const rec of records) store.record(rec);
    const expected = newestFirst(records.filter((rec) => matches(rec, filter)));
    expect(store.list({ ...filter, limit: 1000 }).items.map((r) => r.id)).toEqual(expected);
    expect(store.count(filter)).toBe(expected.length);
  });

  it('pages newest first without gaps or repeats, even when calls arrive between pages', () => {
    const store = memoryStore();
    for (const rec of records) store.record(rec);
    const seen: string[] = [];
    let page = store.list({ limit: 7, sourceKind: 'mcp' });
    seen.push(...page.items.map((r) => r.id));
    store.record(invocation({ id: 'arrived-later', startedAt: now }));
    while (page.nextCursor) {
      page = store.list({ limit: 7, sourceKind: 'mcp', cursor: page.nextCursor });
      expect(page.items.length).toBeGreaterThan(0);
      seen.push(...page.items.map((r) => r.id));
    }
    expect(seen).toEqual(newestFirst(records.filter((r) => r.sourceKind === 'mcp')));
  });

  it('answers the last page without a cursor and rejects a forged one', () => {
    const store = memoryStore();
    for (const rec of records.slice(0, 5)) store.record(rec);
    expect(store.list({ limit: 5 }).nextCursor).toBeUndefined();
    expect(() => store.list({ cursor: 'not-a-cursor' })).toThrowError(expect.objectContaining({ code: 'InvalidInput' }));
  });

  it('exports JSON that reads back as the listed records', () => {
    const store = memoryStore();
    for (const rec of records) store.record(rec);
    const exported = JSON.parse(store.export({ tool: 'echo' }, 'json')) as InvocationRecord[];
    expect(exported).toEqual(store.list({ tool: 'echo', limit: 1000 }).items);
    expect(JSON.parse(store.export({ limit: 3 }, 'json'))).toHaveLength(3);
  });

  it('exports CSV with a header row, RFC 4180 quoting and neutralized formulas', () => {
    const store = memoryStore();
    store.record(
      invocation({
        id: 'csv-1',
        startedAt: Date.UTC(2026, 10, 22, 9, 30, 0, 250),
        argumentsJson: '{"a":1,"b":"x"}',
        resultPreview: 'He said "hi",\r\nthen left',
        status: 'error',
        errorCode: 'ExecutionFailed',
        errorMessage: '=HYPERLINK("http://evil")',
        latencyMs: 12.5,
      }),
    );
    const csv = store.export({}, 'csv');
    const [header, ...rest] = csv.split('\r\n');
    expect(header).toBe(
      'id,startedAt,sourceKind,sourceName,tool,argumentsJson,status,errorCode,errorMessage,latencyMs,requestBytes,responseBytes,resultPreview,truncated,replayOf,runId,isError,attempts,taskId,taskStatus,traceId,via,agent,replica',
    );
    expect(rest.join('\r\n')).toBe(
      'csv-1,2026-11-22T09:30:00.250Z,mcp,everything,echo,"{""a"":1,""b"":""x""}",error,ExecutionFailed,"\'=HYPERLINK(""http://evil"")",12.5,19,42,"He said ""hi"",\r\nthen left",false,,,,,,,,,,\r\n',
    );
  });
});

describe('InvocationStore retention', () => {
  it('deletes calls older than the age limit and keeps the metrics in step', () => {
    const store = memoryStore();
    for (const [id, age] of [
      ['100d', 100 * DAY],
      ['91d', 91 * DAY],
      ['89d', 89 * DAY],
      ['1h', 3_600_000],
    ] as const) {
      store.record(invocation({ id, startedAt: now - age }));
    }
    expect(store.applyRetention({ maxAgeDays: 90 }, now)).toEqual({ deleted: 2 });
    expect(store.list().items.map((r) => r.id)).toEqual(['1h', '89d']);
    expect(store.breakdown({ since: 0, until: now + DAY, by: 'source' })[0]?.count).toBe(2);
  });

  it('keeps only the newest calls beyond the row limit, even when the cut falls inside a minute', () => {
    const store = memoryStore();
    const minute = Math.floor(now / 60_000) * 60_000 - 10 * 60_000;
    for (let i = 0; i < 50; i++) store.record(invocation({ id: `r${i}`, startedAt: minute + i * 1_000, latencyMs: i }));
    expect(store.applyRetention({ maxRows: 20 }, now)).toEqual({ deleted: 30 });
    expect(store.count()).toBe(20);
    expect(store.get('r29')).toBeUndefined();
    expect(store.get('r30')).toBeDefined();
    const [row] = store.breakdown({ since: 0, until: now + DAY, by: 'tool' });
    expect(row).toMatchObject({ count: 20, p50: 39 });
    expect(store.latencyHistogram({ since: 0, until: now + DAY }).total).toBe(20);
  });

  it('applies the policy on open and then on its interval', async () => {
    const path = join(tempDir(), 'tooldeck.db');
    const first = new InvocationStore(path, { retention: false });
    for (let i = 0; i < 30; i++) first.record(invocation({ id: `r${i}`, startedAt: now - i * 1_000 }));
    await first.close();

    const reopened = new InvocationStore(path, { retention: { maxRows: 10 }, retentionIntervalMs: 50 });
    open.push(reopened);
    expect(reopened.count()).toBe(10);
    for (let i = 0; i < 5; i++) reopened.record(invocation({ id: `new${i}`, startedAt: now + i }));
    await reopened.flush();
    await vi.waitFor(() => expect(reopened.count()).toBe(10), { timeout: 5_000 });
    expect(reopened.get('new4')).toBeDefined();
  });
});

describe('InvocationStore runs', () => {
  const collectionRun = (runId: string, startedAt: number) => ({
    kind: 'collection' as const,
    summary: {
      runId,
      collection: 'smoke',
      startedAt,
      durationMs: 12,
      requests: { total: 3, passed: 1, failed: 1, errored: 0, skipped: 1 },
      assertions: { total: 2, passed: 1, failed: 1 },
      results: [],
      connectFailures: [],
      canceled: false,
      ok: false,
    },
  });

  it('keeps each run with its summary, lists them newest first and survives a reopen', async () => {
    const path = join(tempDir(), 'tooldeck.db');
    const store = new InvocationStore(path, { retention: false });
    store.saveRun(collectionRun('older', now - 5_000));
    store.saveRun(collectionRun('newer', now));
    await store.close();
    const again = new InvocationStore(path, { retention: false });
    open.push(again);
    expect(again.listRuns().map((r) => [r.runId, r.kind, r.requests, r.failures])).toEqual([
      ['newer', 'collection', 2, 1],
      ['older', 'collection', 2, 1],
    ]);
    expect(again.getRun('older')?.summary).toEqual(collectionRun('older', now - 5_000).summary);
    expect(again.getRun('missing')).toBeUndefined();
    expect(again.listRuns({ kind: 'load' })).toEqual([]);
  });

  it('lets runs go with the age limit', () => {
    const store = memoryStore();
    store.saveRun(collectionRun('ancient', now - 100 * DAY));
    store.saveRun(collectionRun('recent', now - DAY));
    store.applyRetention({ maxAgeDays: 90 }, now);
    expect(store.listRuns().map((r) => r.runId)).toEqual(['recent']);
  });
});
