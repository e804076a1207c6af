import { afterEach, describe, expect, it } from 'vitest';
import type { InvocationRecord, InvocationStatus } from '../../shared/invocation';
import { invocation } from './testing/testRecords';
import type { MetricFilter, TimeSeriesQuery } from '../../shared/history';
import { InvocationStore } from './InvocationStore';
import { CHUNK_CAPACITY } from './LatencyRollup';

const MIN = 60_000;
const open: InvocationStore[] = [];

function storeWith(records: InvocationRecord[]): InvocationStore {
  const store = new InvocationStore(':memory:', { retention: false, maxBatchRows: 1_000 });
  open.push(store);
  for (const rec of records) store.record(rec);
  return store;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});

/** Deterministic pseudo-random numbers, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function shuffled<T>(items: T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

// An hour boundary, so 5-minute buckets start exactly here.
const base = Date.UTC(2026, 10, 22, 9, 0, 0);

describe('metric queries', () => {
  it('computes exact nearest-rank percentiles, error counts and rates per bucket', () => {
    const next = random(1);
    // Bucket 1 (09:00–09:05): latencies 1..100 ms in random order, every 10th an error.
    const first = shuffled(
      Array.from({ length: 100 }, (_, i) => i + 1),
      next,
    ).map((latencyMs, i) =>
      invocation({ id: `a${i}`, startedAt: base + Math.floor(next() * 5 * MIN), latencyMs, status: latencyMs % 10 === 0 ? 'error' : 'ok' }),
    );
    // Bucket 3 (09:10–09:15): ten calls, 10..100 ms, one timeout.
    const third = Array.from({ length: 10 }, (_, i) =>
      invocation({ id: `c${i}`, startedAt: base + 10 * MIN + i * 1_000, latencyMs: (i + 1) * 10, status: i === 0 ? 'timeout' : 'ok' }),
    );
    const store = storeWith([...first, ...third]);

    const result = store.timeSeries({ since: base, until: base + 15 * MIN, bucketMs: 5 * MIN });
    expect(result.series).toHaveLength(1);
    expect(result.series[0]!.points).toEqual([
      { t: base, count: 100, errors: 10, errorRate: 0.1, p50: 50, p95: 95, p99: 99 },
      { t: base + 5 * MIN, count: 0, errors: 0, errorRate: 0, p50: null, p95: null, p99: null },
      { t: base + 10 * MIN, count: 10, errors: 1, errorRate: 0.1, p50: 50, p95: 100, p99: 100 },
    ]);
  });

  it('aligns buckets to the epoch and clips the first and last to the window', () => {
    const store = storeWith([
      invocation({ id: 'before', startedAt: base + 2 * MIN, latencyMs: 1 }),
      invocation({ id: 'in-1', startedAt: base + 3 * MIN + 30_000, latencyMs: 7 }),
      invocation({ id: 'in-2', startedAt: base + 6 * MIN, latencyMs: 9 }),
      invocation({ id: 'after', startedAt: base + 6 * MIN + 45_000, latencyMs: 1 }),
    ]);
    const points = store.timeSeries({ since: base + 3 * MIN + 15_000, until: base + 6 * MIN + 40_000, bucketMs: 5 * MIN }).series[0]!.points;
    expect(points.map((p) => [p.t, p.count, p.p50])).toEqual([
      [base, 1, 7],
      [base + 5 * MIN, 1, 9],
    ]);
  });

  it('groups by tool or source and applies tool, source and status filters', () => {
    const records = [
      invocation({ id: '1', startedAt: base, sourceName: 'everything', tool: 'echo', latencyMs: 1 }),
      invocation({ id: '2', startedAt: base + 1, sourceName: 'everything', tool: 'echo', latencyMs: 3, status: 'error' }),
      invocation({ id: '3', startedAt: base + 2, sourceName: 'everything', tool: 'sum', latencyMs: 5 }),
      invocation({ id: '4', startedAt: base + 3, sourceKind: 'a2a', sourceName: 'planner', tool: 'plan', latencyMs: 7, status: 'denied' }),
    ];
    const store = storeWith(records);
    const window = { since: base, until: base + 5 * MIN, bucketMs: 5 * MIN };

    const byTool = store.timeSeries({ ...window, groupBy: 'tool' }).series;
    expect(byTool.map((s) => [s.group, s.points[0]!.count, s.points[0]!.errors])).toEqual(
      expect.arrayContaining([
        [{ key: 'mcp:everything/echo', source: 'mcp:everything', tool: 'echo' }, 2, 1],
        [{ key: 'mcp:everything/sum', source: 'mcp:everything', tool: 'sum' }, 1, 0],
        [{ key: 'a2a:planner/plan', source: 'a2a:planner', tool: 'plan' }, 1, 1],
      ]),
    );
    expect(byTool).toHaveLength(3);

    const bySource = store.breakdown({ since: base, until: base + 5 * MIN, by: 'source' });
    expect(bySource).toEqual([
      { group: { key: 'mcp:everything', source: 'mcp:everything' }, count: 3, errors: 1, errorRate: 1 / 3, p50: 3, p95: 5, p99: 5 },
      { group: { key: 'a2a:planner', source: 'a2a:planner' }, count: 1, errors: 1, errorRate: 1, p50: 7, p95: 7, p99: 7 },
    ]);

    for (const useRollup of [true, false]) {
      const deniedOnly = { ...window, groupBy: 'tool' as const, filter: { status: ['denied' as const] } };
      expect(store.timeSeries(deniedOnly, { useRollup }).series.map((s) => s.group?.key)).toEqual(['a2a:planner/plan']);
      expect(store.breakdown({ ...deniedOnly, by: 'tool' }, { useRollup }).map((row) => row.group.key)).toEqual(['a2a:planner/plan']);
    }

    const okEcho = store.timeSeries({ ...window, filter: { tool: 'echo', status: ['ok'] } }).series[0]!.points[0]!;
    expect(okEcho).toMatchObject({ count: 1, errors: 0, p50: 1 });
    expect(store.timeSeries({ ...window, groupBy: 'tool', filter: { sourceKind: 'http' } }).series).toEqual([]);
  });

  it('gives the same answers from the rollup as from the rows, for any window, bucket and filter', () => {
    const next = random(7);
    const tools = ['echo', 'sum', 'search', 'fetch'];
    const statuses: InvocationStatus[] = ['ok', 'ok', 'ok', 'ok', 'error', 'timeout', 'canceled', 'denied'];
    const records = Array.from({ length: 3_000 }, (_, i) =>
      invocation({
        id: `r${i}`,
        startedAt: base + Math.floor(next() * 3 * 3_600_000),
        sourceName: next() < 0.5 ? 'everything' : 'git',
        tool: tools[Math.floor(next() * tools.length)]!,
        status: statuses[Math.floor(next() * statuses.length)]!,
        latencyMs: Math.round(next() ** 3 * 5_000 * 1000) / 1000,
        ...(next() < 0.1 ? { runId: 'run-1' } : {}),
      }),
    );
    const store = storeWith(records);
    const filters: MetricFilter[] = [{}, { tool: 'echo' }, { status: ['error', 'timeout'] }, { sourceName: 'git', status: ['ok'] }, { sourceKind: 'a2a' }];
    const windows = [
      { since: base, until: base + 3 * 3_600_000 },
      { since: base + 17_321, until: base + 2 * 3_600_000 + 59_999 },
      { since: base + 90 * MIN + 1, until: base + 90 * MIN + 50_000 },
    ];
    for (const window of windows) {
      for (const filter of filters) {
        for (const bucketMs of [MIN, 5 * MIN, 3_600_000]) {
          for (const groupBy of [undefined, 'tool', 'source'] as const) {
            const query: TimeSeriesQuery = { ...window, bucketMs, filter, ...(groupBy ? { groupBy } : {}) };
            const sortSeries = (q: TimeSeriesQuery, useRollup: boolean) =>
              store.timeSeries(q, { useRollup }).series.sort((a, b) => (a.group?.key ?? '').localeCompare(b.group?.key ?? ''));
            expect(sortSeries(query, true)).toEqual(sortSeries(query, false));
          }
        }
        expect(store.breakdown({ ...window, by: 'tool', filter })).toEqual(store.breakdown({ ...window, by: 'tool', filter }, { useRollup: false }));
        expect(store.latencyHistogram({ ...window, filter })).toEqual(store.latencyHistogram({ ...window, filter }, { useRollup: false }));
      }
    }
    const total = store.breakdown({ since: base, until: base + 3 * 3_600_000, by: 'source' }).reduce((sum, row) => sum + row.count, 0);
    expect(total).toBe(records.length);
  });

  it('answers sub-minute buckets and text or run filters from the rows', () => {
    const store = storeWith([
      invocation({ id: '1', startedAt: base + 1_000, latencyMs: 4, runId: 'run-a' }),
      invocation({ id: '2', startedAt: base + 12_000, latencyMs: 6, resultPreview: 'needle here' }),
      invocation({ id: '3', startedAt: base + 13_000, latencyMs: 8, runId: 'run-a' }),
    ]);
    const points = store.timeSeries({ since: base, until: base + 20_000, bucketMs: 10_000 }).series[0]!.points;
    expect(points.map((p) => [p.t, p.count, p.p99])).toEqual([
      [base, 1, 4],
      [base + 10_000, 2, 8],
    ]);
    const window = { since: base, until: base + MIN };
    expect(store.breakdown({ ...window, by: 'tool', filter: { runId: 'run-a' } })[0]).toMatchObject({ count: 2, p50: 4, p99: 8 });
    expect(store.breakdown({ ...window, by: 'tool', filter: { text: 'NEEDLE' } })[0]).toMatchObject({ count: 1, p50: 6 });
  });

  it('answers way-in and agent filters from the rows (the rollup keeps neither)', () => {
    const store = storeWith([
      invocation({ id: '1', startedAt: base + 1_000, latencyMs: 4, via: 'gateway', agent: 'planner-bot' }),
      invocation({ id: '2', startedAt: base + 2_000, latencyMs: 6, via: 'ui' }),
      invocation({ id: '3', startedAt: base + 3_000, latencyMs: 8, via: 'gateway', agent: 'triage-bot' }),
      invocation({ id: '4', startedAt: base + 4_000, latencyMs: 10 }),
    ]);
    const window = { since: base, until: base + 2 * MIN };
    const count = (filter: MetricFilter) => store.breakdown({ ...window, by: 'tool', filter })[0]?.count ?? 0;
    expect(count({ via: 'gateway' })).toBe(2);
    expect(count({ agent: 'planner-bot' })).toBe(1);
    expect(count({ agent: null })).toBe(2);
    expect(count({ via: 'gateway', agent: 'triage-bot' })).toBe(1);
    expect(store.latencyHistogram({ ...window, filter: { via: 'ui' } }).total).toBe(1);
    expect(store.timeSeries({ ...window, bucketMs: MIN, filter: { via: 'gateway' } }).series[0]!.points.reduce((n, p) => n + p.count, 0)).toBe(2);
  });

  it('keeps exact percentiles when a single minute holds more calls than one rollup chunk', () => {
    const count = CHUNK_CAPACITY + 904;
    const next = random(3);
    const latencies = shuffled(
      Array.from({ length: count }, (_, i) => i + 1),
      next,
    );
    const store = storeWith(latencies.map((latencyMs, i) => invocation({ id: `m${i}`, startedAt: base + (i % 60_000), latencyMs })));
    const [row] = store.breakdown({ since: base, until: base + MIN, by: 'source' });
    expect(row).toMatchObject({ count, p50: count / 2, p95: Math.ceil(0.95 * count), p99: Math.ceil(0.99 * count) });
  });

  it('counts latencies into histogram buckets with inclusive upper bounds', () => {
    const store = storeWith([0.2, 1, 1.5, 10, 10.01, 400_000].map((latencyMs, i) => invocation({ id: `h${i}`, startedAt: base + i, latencyMs })));
    expect(store.latencyHistogram({ since: base, until: base + MIN, buckets: [10, 1, 100] })).toEqual({
      total: 6,
      buckets: [
        { lowerMs: 0, upperMs: 1, count: 2 },
        { lowerMs: 1, upperMs: 10, count: 2 },
        { lowerMs: 10, upperMs: 100, count: 1 },
        { lowerMs: 100, upperMs: null, count: 1 },
      ],
    });
    const defaults = store.latencyHistogram({ since: base, until: base + MIN });
    expect(defaults.buckets.at(-1)).toEqual({ lowerMs: 300_000, upperMs: null, count: 1 });
  });

  it('returns empty results for an empty window and refuses an absurd number of buckets', () => {
    const store = storeWith([invocation({ id: 'x', startedAt: base })]);
    expect(store.timeSeries({ since: base, until: base, bucketMs: MIN }).series).toEqual([]);
    expect(store.breakdown({ since: base + MIN, until: base + 2 * MIN, by: 'tool' })).toEqual([]);
    expect(() => store.timeSeries({ since: 0, until: base, bucketMs: 1_000 })).toThrowError(expect.objectContaining({ code: 'InvalidInput' }));
  });
});
