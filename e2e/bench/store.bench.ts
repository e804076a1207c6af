// Invocation store: batched inserts of 1,000,000 calls into a file database, then the 24-hour
// time-series query (5-minute buckets, exact p50/p95/p99) over them. Baselines measured in the same
// run: unbatched single-statement inserts, and the same query answered from the rows instead of
// the per-minute rollup. Last line: JSON.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InvocationRecord, InvocationStatus } from '../../shared/invocation';
import { INSERT_SQL, toParams } from '../../main/store/invocationRow';
import { InvocationStore } from '../../main/store/InvocationStore';
import { loadSqlite } from '../../main/store/loadSqlite';
import { migrate } from '../../main/store/migrations';

const ROWS = Number(process.env.STORE_BENCH_ROWS ?? 1_000_000);
const BASELINE_ROWS = 5_000;
const BATCH = 500;
const DAY = 86_400_000;

const sources = [
  ['mcp', 'everything'],
  ['mcp', 'git'],
  ['a2a', 'planner'],
  ['http', 'weather'],
] as const;
const tools = ['echo', 'get-sum', 'search', 'fetch', 'read_file', 'write_file', 'list', 'query', 'translate', 'summarize'];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Calls spread evenly over the last 24 hours, in arrival order, with a long-tailed latency. */
function call(i: number, total: number, end: number): InvocationRecord {
  const [sourceKind, sourceName] = sources[i % sources.length]!;
  const roll = (i * 2_654_435_761) % 1000;
  const status: InvocationStatus = roll < 950 ? 'ok' : roll < 980 ? 'error' : roll < 995 ? 'timeout' : 'denied';
  return {
    id: randomUUID(),
    startedAt: end - DAY + Math.floor((i * DAY) / total),
    sourceKind,
    sourceName,
    tool: tools[(i * 7) % tools.length]!,
    argumentsJson: `{"query":"item ${i}","limit":10}`,
    status,
    ...(status === 'ok' ? {} : { errorCode: 'ExecutionFailed' as const, errorMessage: 'upstream said no' }),
    latencyMs: Math.round(Math.exp(((roll * 7919) % 1000) / 110) * 100) / 100,
    requestBytes: 40,
    responseBytes: 180,
    resultPreview: `result for item ${i}: a few dozen characters of tool output`,
    truncated: false,
  };
}

const load = () => loadavg()[0]!.toFixed(1);
const dir = mkdtempSync(join(tmpdir(), 'tooldeck-store-bench-'));
try {
  // Both figures are CPU-bound on one core; on a shared machine, read them against the load.
  console.log(`load average (1 min) at start: ${load()}`);
  const end = Date.now();
  const { DatabaseSync } = loadSqlite();

  // Baseline: one INSERT per call, each its own transaction, as a store without batching would do.
  const baselineDb = new DatabaseSync(join(dir, 'baseline.db'));
  baselineDb.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
  migrate(baselineDb);
  const insert = baselineDb.prepare(INSERT_SQL);
  let started = performance.now();
  for (let i = 0; i < BASELINE_ROWS; i++) insert.run(...toParams(call(i, BASELINE_ROWS, end)));
  const baselineRowsPerS = BASELINE_ROWS / ((performance.now() - started) / 1000);
  baselineDb.close();
  console.log(`baseline: ${BASELINE_ROWS.toLocaleString('en')} unbatched single-statement inserts: ${Math.round(baselineRowsPerS).toLocaleString('en')} rows/s`);

  const path = join(dir, 'tooldeck.db');
  const store = new InvocationStore(path, { retention: false });
  started = performance.now();
  for (let i = 0; i < ROWS; ) {
    for (let j = 0; j < BATCH && i < ROWS; j++, i++) store.record(call(i, ROWS, end));
    await store.flush();
  }
  const insertSeconds = (performance.now() - started) / 1000;
  const insertRowsPerS = ROWS / insertSeconds;
  if (!store.health().ok || store.count() !== ROWS) throw new Error(`insert failed: ${JSON.stringify(store.health())}, ${store.count()} rows`);
  console.log(
    `batched:  ${ROWS.toLocaleString('en')} calls through record() in batches of ${BATCH}: ${insertSeconds.toFixed(1)} s, ${Math.round(insertRowsPerS).toLocaleString('en')} rows/s ` +
      `(${(insertRowsPerS / baselineRowsPerS).toFixed(1)}x baseline; target >= 20,000), file ${(statSync(path).size / 1e6).toFixed(0)} MB`,
  );

  const query = { since: end - DAY, until: end, bucketMs: 5 * 60_000 };
  const time = (runs: number, fn: () => unknown) => {
    const ms: number[] = [];
    for (let r = 0; r < runs; r++) {
      const t = performance.now();
      fn();
      ms.push(performance.now() - t);
    }
    return { median: median(ms), all: ms.map((m) => m.toFixed(0)).join(', ') };
  };
  const check = store.timeSeries(query).series[0]!.points;
  const counted = check.reduce((sum, p) => sum + p.count, 0);
  if (check.length !== 289 || counted !== ROWS) throw new Error(`query returned ${check.length} buckets, ${counted} calls`);

  const rollup = time(5, () => store.timeSeries(query));
  const grouped = time(5, () => store.timeSeries({ ...query, groupBy: 'tool' }));
  const rows = time(3, () => store.timeSeries(query, { useRollup: false }));
  console.log(`query:    24 h, 5-min buckets, exact p50/p95/p99 over ${ROWS.toLocaleString('en')} calls (${check.length} buckets)`);
  console.log(`  from the per-minute rollup:        median ${rollup.median.toFixed(1)} ms of 5 [${rollup.all}] (target <= 100 ms)`);
  console.log(`  same, grouped by tool (40 series): median ${grouped.median.toFixed(1)} ms of 5 [${grouped.all}]`);
  console.log(`  baseline, from the rows:           median ${rows.median.toFixed(1)} ms of 3 [${rows.all}] (${(rows.median / rollup.median).toFixed(1)}x slower)`);
  await store.close();
  console.log(`load average (1 min) at end: ${load()}`);

  console.log(JSON.stringify({ bench: 'store', insert_rows_per_s: Math.round(insertRowsPerS), query_24h_ms: Number(rollup.median.toFixed(1)) }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
