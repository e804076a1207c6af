import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InvocationFilter } from '../../shared/history';
import type { InvocationRecord, InvocationStatus } from '../../shared/invocation';
import type { HistoryStore } from './HistoryStore';
import { InvocationStore } from './InvocationStore';
import { PostgresHistory } from './PostgresHistory';
import { SqliteHistory } from './SqliteHistory';
import { startPostgresRig, type PostgresRig } from './testing/postgresHistoryRig';
import { invocation } from './testing/testRecords';

/**
 * One suite, both adapters: whatever the console, the CLI and Metrics ask of history, the SQLite
 * file and the PostgreSQL shared by replicas answer alike (filters, search, pages, the 24 h
 * aggregates, export, runs, retention, the replica column).
 */
const DAY = 86_400_000;
const now = Date.now();
let rig: PostgresRig;
const dirs: string[] = [];
const open: HistoryStore[] = [];

beforeAll(async () => {
  rig = await startPostgresRig();
}, 120_000);
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await rig?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const adapters: [string, () => Promise<HistoryStore>][] = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tooldeck-contract-'));
      dirs.push(dir);
      return new SqliteHistory(new InvocationStore(join(dir, 'tooldeck.db'), { retention: false }));
    },
  ],
  ['PostgreSQL', async () => PostgresHistory.open({ url: await rig.database(), retention: false })],
];

const sources = [
  ['mcp', 'everything'],
  ['mcp', 'git'],
  ['a2a', 'planner'],
  ['http', 'weather'],
] as const;
const tools = ['echo', 'get-sum', 'search'];
const statuses: InvocationStatus[] = ['ok', 'ok', 'ok', 'error', 'timeout', 'denied', 'canceled'];

/** 140 varied calls over the last two hours from two replicas, several sharing a start time. */
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
      latencyMs: 1 + ((i * 37) % 400) + (i % 4) / 8,
      resultPreview: i % 11 === 0 ? 'Weather: SUNNY' : `result ${i}`,
      ...(i % 5 === 0 ? { runId: `run-${i % 2}` } : {}),
      ...(i % 6 === 5 ? {} : { via: i % 5 === 0 ? ('run' as const) : i % 2 ? ('ui' as const) : ('gateway' as const) }),
      ...(i % 4 === 1 ? { agent: 'planner-bot' } : {}),
      ...(i % 13 === 0 ? { traceId: `${String(i).padStart(2, '0')}`.repeat(16).slice(0, 32) } : {}),
      ...(i % 7 === 0 ? { isError: true, attempts: 2 } : {}),
      ...(i % 9 === 0 ? { truncated: true, replayOf: `call-${i + 1}` } : {}),
      replica: i % 3 === 0 ? 'gateway-7d9f-a' : 'gateway-7d9f-b',
    });
  });
}

const calls = dataset();
const ids = (page: { items: InvocationRecord[] }) => page.items.map((r) => r.id);
const newestFirst = (records: InvocationRecord[]) => [...records].sort((a, b) => b.startedAt - a.startedAt || Number(b.id.slice(5)) - Number(a.id.slice(5)));

async function filled(openStore: () => Promise<HistoryStore>): Promise<HistoryStore> {
  const store = await openStore();
  open.push(store);
  for (const rec of calls) store.record(rec);
  await store.flush();
  return store;
}

describe.each(adapters)('%s history (the contract)', { timeout: 60_000 }, (_name, openStore) => {
  it('reads back every record as it was recorded, newest first, with its replica', async () => {
    const store = await filled(openStore);
    const page = await store.list({ limit: 1000 });
    expect(page.items).toEqual(newestFirst(calls));
    expect(await store.get('call-42')).toEqual(calls[42]);
    expect(await store.get('nope')).toBeUndefined();
    expect(await store.count()).toBe(140);
  });

  it('keeps the first record of an id recorded twice', async () => {
    const store = await filled(openStore);
    store.record({ ...calls[3]!, tool: 'changed' });
    await store.flush();
    expect(await store.count()).toBe(140);
    expect((await store.get('call-3'))?.tool).toBe(calls[3]!.tool);
  });

  const filters: [string, InvocationFilter, (r: InvocationRecord) => boolean][] = [
    ['source', { sourceKind: 'mcp', sourceName: 'git' }, (r) => r.sourceKind === 'mcp' && r.sourceName === 'git'],
    ['tool and statuses', { tool: 'echo', status: ['error', 'timeout'] }, (r) => r.tool === 'echo' && (r.status === 'error' || r.status === 'timeout')],
    ['time window', { since: now - 100 * 60_000, until: now - 80 * 60_000 }, (r) => r.startedAt >= now - 100 * 60_000 && r.startedAt < now - 80 * 60_000],
    ['run', { runId: 'run-1' }, (r) => r.runId === 'run-1'],
    ['way in and agent', { via: 'ui', agent: 'planner-bot' }, (r) => r.via === 'ui' && r.agent === 'planner-bot'],
    ["the operator's own calls", { agent: null }, (r) => r.agent === undefined],
    ['replica', { replica: 'gateway-7d9f-a' }, (r) => r.replica === 'gateway-7d9f-a'],
    ['replica and status', { replica: 'gateway-7d9f-b', status: ['denied'] }, (r) => r.replica === 'gateway-7d9f-b' && r.status === 'denied'],
    ['text, any case', { text: 'sunny' }, (r) => r.resultPreview.includes('SUNNY')],
    ['text with a LIKE wildcard taken literally', { text: '50%' }, (r) => r.argumentsJson.includes('50%')],
    ['text in the error message', { text: 'failure NUMBER 4' }, (r) => (r.errorMessage ?? '').toLowerCase().includes('failure number 4')],
    ['trace', { traceId: calls[13]!.traceId! }, (r) => r.traceId === calls[13]!.traceId],
  ];
  it.each(filters)('filters by %s', async (_label, filter, keep) => {
    const store = await filled(openStore);
    const expected = newestFirst(calls.filter(keep)).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(await store.list({ ...filter, limit: 1000 }))).toEqual(expected);
    expect(await store.count(filter)).toBe(expected.length);
  });

  it('pages with a cursor through records that share a start time', async () => {
    const store = await filled(openStore);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(newestFirst(calls).map((r) => r.id));
  });

  it('computes the 24 h aggregates Metrics reads: breakdown, time series and histogram', async () => {
    const store = await filled(openStore);
    const window = { since: now - DAY, until: now + 1 };
    const bySource = await store.breakdown({ ...window, by: 'source' });
    expect(bySource.map((row) => [row.group.key, row.count])).toEqual([
      ['mcp:everything', 35],
      ['mcp:git', 35],
      ['a2a:planner', 35],
      ['http:weather', 35],
    ].sort((a, b) => (a[0] as string).localeCompare(b[0] as string)));
    const git = calls.filter((r) => r.sourceName === 'git');
    const latencies = git.map((r) => r.latencyMs).sort((a, b) => a - b);
    const rank = (p: number) => latencies[Math.ceil((p / 100) * latencies.length) - 1];
    expect(bySource.find((row) => row.group.key === 'mcp:git')).toMatchObject({
      count: 35,
      errors: git.filter((r) => r.status !== 'ok').length,
      p50: rank(50),
      p95: rank(95),
      p99: rank(99),
    });
    const byReplica = await store.breakdown({ ...window, by: 'replica' });
    expect(byReplica.map((row) => [row.group, row.count])).toEqual([
      [{ key: 'gateway-7d9f-b', source: '', replica: 'gateway-7d9f-b' }, calls.filter((r) => r.replica === 'gateway-7d9f-b').length],
      [{ key: 'gateway-7d9f-a', source: '', replica: 'gateway-7d9f-a' }, calls.filter((r) => r.replica === 'gateway-7d9f-a').length],
    ]);
    const byTool = await store.breakdown({ ...window, by: 'tool', filter: { replica: 'gateway-7d9f-a' } });
    expect(byTool.reduce((sum, row) => sum + row.count, 0)).toBe(calls.filter((r) => r.replica === 'gateway-7d9f-a').length);

    const series = await store.timeSeries({ since: now - 2 * 3_600_000, until: now, bucketMs: 15 * 60_000, groupBy: 'tool', filter: { status: ['ok'] } });
    expect(series.series.map((s) => s.group?.key).sort()).toEqual(
      [...new Set(calls.filter((r) => r.status === 'ok').map((r) => `${r.sourceKind}:${r.sourceName}/${r.tool}`))].sort(),
    );
    for (const s of series.series) expect(s.points).toHaveLength(series.series[0]!.points.length);
    const total = series.series.flatMap((s) => s.points).reduce((sum, p) => sum + p.count, 0);
    expect(total).toBe(calls.filter((r) => r.status === 'ok' && r.startedAt >= now - 2 * 3_600_000 && r.startedAt < now).length);
    const ungrouped = await store.timeSeries({ since: now + DAY, until: now + DAY + 60_000, bucketMs: 60_000 });
    expect(ungrouped.series).toEqual([{ points: [{ t: Math.floor((now + DAY) / 60_000) * 60_000, count: 0, errors: 0, errorRate: 0, p50: null, p95: null, p99: null }, expect.anything()].slice(0, ungrouped.series[0]!.points.length) }]);

    const histogram = await store.latencyHistogram({ ...window, buckets: [10, 100, 250] });
    expect(histogram.total).toBe(140);
    expect(histogram.buckets.map((b) => b.count)).toEqual([
      calls.filter((r) => r.latencyMs <= 10).length,
      calls.filter((r) => r.latencyMs > 10 && r.latencyMs <= 100).length,
      calls.filter((r) => r.latencyMs > 100 && r.latencyMs <= 250).length,
      calls.filter((r) => r.latencyMs > 250).length,
    ]);
  });

  it('exports the console download (JSON, CSV) and streams any filter as JSON lines or CSV', async () => {
    const store = await filled(openStore);
    const filter: InvocationFilter = { replica: 'gateway-7d9f-a', status: ['ok'] };
    const expected = newestFirst(calls.filter((r) => r.replica === 'gateway-7d9f-a' && r.status === 'ok'));
    expect(JSON.parse(await store.export(filter, 'json'))).toEqual(expected);
    const csv = await store.export(filter, 'csv');
    expect(csv.split('\r\n')[0]).toMatch(/,via,agent,replica$/);
    let lines = '';
    for await (const chunk of store.exportStream(filter, 'jsonl')) lines += chunk;
    expect(lines.trim().split('\n').map((line) => JSON.parse(line) as InvocationRecord)).toEqual(expected);
    let streamed = '';
    for await (const chunk of store.exportStream(filter, 'csv')) streamed += chunk;
    expect(streamed).toBe(csv);
  });

  it('keeps collection runs and a detached task’s final status', async () => {
    const store = await filled(openStore);
    store.record(invocation({ id: 'task-call', taskId: 'task-1', taskStatus: 'working', sourceName: 'everything' }));
    await store.flush();
    store.setTaskStatus('everything', 'task-1', 'completed');
    await expect.poll(async () => (await store.get('task-call'))?.taskStatus).toBe('completed');
    const summary = {
      runId: 'r-1',
      collection: 'smoke',
      startedAt: now,
      durationMs: 12,
      requests: { total: 3, passed: 1, failed: 1, errored: 0, skipped: 1 },
      assertions: { total: 2, passed: 1, failed: 1 },
      results: [],
      connectFailures: [],
      canceled: false,
      ok: false,
    };
    await store.saveRun({ kind: 'collection', summary } as never);
    expect((await store.listRuns()).map((r) => r.runId)).toEqual(['r-1']);
    expect(await store.getRun('r-1')).toMatchObject({ runId: 'r-1', kind: 'collection', requests: 2, failures: 1, summary });
    expect(await store.getRun('nope')).toBeUndefined();
  });

  it('deletes calls past the retention age', async () => {
    const store = await filled(openStore);
    store.record(invocation({ id: 'ancient', startedAt: now - 40 * DAY }));
    await store.flush();
    expect((await store.applyRetention({ maxAgeDays: 30 })).deleted).toBe(1);
    expect(await store.get('ancient')).toBeUndefined();
    expect(await store.count()).toBe(140);
    const total = (await store.breakdown({ since: now - 50 * DAY, until: now + 1, by: 'source' })).reduce((sum, row) => sum + row.count, 0);
    expect(total).toBe(140);
  });
});

it('both adapters give identical aggregates for the same calls', { timeout: 60_000 }, async () => {
  const [sqlite, postgres] = await Promise.all(adapters.map(([, openStore]) => filled(openStore)));
  const window = { since: now - DAY, until: now + 1 };
  const sorted = <T extends { group?: { key: string } }>(rows: T[]) => [...rows].sort((a, b) => (a.group?.key ?? '').localeCompare(b.group?.key ?? ''));
  for (const by of ['tool', 'source', 'replica'] as const) expect(await postgres!.breakdown({ ...window, by })).toEqual(await sqlite!.breakdown({ ...window, by }));
  const query = { since: now - 2 * 3_600_000 - 30_000, until: now, bucketMs: 10 * 60_000, groupBy: 'source' as const, filter: { replica: 'gateway-7d9f-b' } };
  expect(sorted((await postgres!.timeSeries(query)).series)).toEqual(sorted((await sqlite!.timeSeries(query)).series));
  expect(await postgres!.latencyHistogram(window)).toEqual(await sqlite!.latencyHistogram(window));
});
