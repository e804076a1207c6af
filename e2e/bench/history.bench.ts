// `npm run bench -- history -- --postgres`: the invocation history shared by replicas, on a private
// PostgreSQL cluster (e2e/support/postgres.mjs).
//   1. Two replicas (two processes, e2e/bench/historyWriter.ts) write 500,000 calls each at once:
//      rows per second together (target >= 20,000).
//   2. The 24-hour aggregate Metrics reads (breakdown by tool, exact p50/p95/p99) over those
//      1,000,000 rows: median of 7 (target <= 100 ms).
//   3. A call's latency through the built console (`tooldeck serve`, server-everything's echo),
//      with the PostgreSQL history against the SQLite default, alternating: ratio of medians
//      (target <= 1.05).
// Without --postgres it says so and runs nothing (store.bench.ts measures the SQLite file). Last line: JSON.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { PostgresHistory } from '../../main/store/PostgresHistory';
import { startPostgresRig } from '../../main/store/testing/postgresHistoryRig';
import { startTooldeckServer, type TooldeckServer } from '../support/tooldeckServer';
import { round, summarize } from './benchStats';

const ROWS_PER_REPLICA = Number(process.env.HISTORY_BENCH_ROWS ?? 500_000);
const CALLS = Number(process.env.HISTORY_BENCH_CALLS ?? 400);
const DAY = 86_400_000;
const load = () => loadavg()[0]!.toFixed(1);

if (!process.argv.includes('--postgres')) {
  console.log('history bench: pass --postgres (npm run bench -- history -- --postgres); the SQLite file is measured by `npm run bench -- store`.');
  process.exit(0);
}

function writer(url: string, replica: string): Promise<{ started: number; finished: number; rows: number; dropped: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(import.meta.dirname, '../../node_modules/.bin/tsx'), [join(import.meta.dirname, 'historyWriter.ts'), url, replica, String(ROWS_PER_REPLICA)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`writer ${replica} exited ${code}`))));
  });
}

async function invoke(server: TooldeckServer, message: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${server.origin}/trpc/tools.invoke`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'mcp:everything.echo', arguments: { message } }),
  });
  const status = ((await response.json()) as { result?: { data: { record: { status: string } } } }).result?.data.record.status;
  if (status !== 'ok') throw new Error(`echo answered ${status}`);
  return performance.now() - started;
}

async function ready(server: TooldeckServer) {
  for (let attempt = 0; ; attempt++) {
    try {
      await invoke(server, 'ready?');
      return;
    } catch (error) {
      if (attempt > 300) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const rig = await startPostgresRig();
try {
  console.log(`load average (1 min) at start: ${load()}`);
  const url = await rig.database();
  // Migrate once before the clock starts, as a running fleet would have.
  await (await PostgresHistory.open({ url, retention: false })).close();
  const results = await Promise.all([writer(url, 'replica-1'), writer(url, 'replica-2')]);
  const total = results.reduce((sum, r) => sum + r.rows, 0);
  const seconds = (Math.max(...results.map((r) => r.finished)) - Math.min(...results.map((r) => r.started))) / 1000;
  const rowsPerS = total / seconds;
  console.log(`writes:   2 replicas × ${ROWS_PER_REPLICA.toLocaleString('en')} calls in ${seconds.toFixed(1)} s: ${Math.round(rowsPerS).toLocaleString('en')} rows/s together (target >= 20,000); dropped ${results.reduce((s, r) => s + r.dropped, 0)}`);

  const reader = await PostgresHistory.open({ url, retention: false });
  const count = await reader.count();
  if (count !== total) throw new Error(`expected ${total} rows, found ${count}`);
  const until = Date.now();
  const timings: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    await reader.breakdown({ since: until - DAY, until, by: 'tool' });
    timings.push(performance.now() - started);
  }
  const aggregate = summarize(timings);
  console.log(`query:    24 h breakdown by tool, exact p50/p95/p99 over ${count.toLocaleString('en')} rows: median ${aggregate.median.toFixed(1)} ms of 7 [${timings.map((t) => t.toFixed(0)).join(', ')}] (target <= 100 ms)`);
  await reader.close();

  const callUrl = await rig.database();
  const [pgConsole, sqliteConsole] = await Promise.all([startTooldeckServer({ args: ['--history-url', callUrl, '--replica-name', 'bench'] }), startTooldeckServer()]);
  try {
    await Promise.all([ready(pgConsole), ready(sqliteConsole)]);
    for (let i = 0; i < 50; i++) await Promise.all([invoke(pgConsole, `warm ${i}`), invoke(sqliteConsole, `warm ${i}`)]);
    const pg: number[] = [];
    const sqlite: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      // Alternating which goes first, so neither always runs on a warmer machine.
      if (i % 2) {
        pg.push(await invoke(pgConsole, `call ${i}`));
        sqlite.push(await invoke(sqliteConsole, `call ${i}`));
      } else {
        sqlite.push(await invoke(sqliteConsole, `call ${i}`));
        pg.push(await invoke(pgConsole, `call ${i}`));
      }
    }
    const p = summarize(pg);
    const s = summarize(sqlite);
    console.log(`calls:    ${CALLS} echo calls through tooldeck serve, alternating: p50 ${p.median.toFixed(2)} ms with PostgreSQL, ${s.median.toFixed(2)} ms with SQLite: ratio ${(p.median / s.median).toFixed(3)} (target <= 1.05)`);
    console.log(`load average (1 min) at end: ${load()}`);
    console.log(
      JSON.stringify({
        bench: 'history',
        replicas: 2,
        rows: total,
        rowsPerS: Math.round(rowsPerS),
        aggregateP50Ms: round(aggregate.median, 1),
        callP50PostgresMs: round(p.median, 2),
        callP50SqliteMs: round(s.median, 2),
        callRatio: round(p.median / s.median, 3),
      }),
    );
  } finally {
    await Promise.all([pgConsole.stop(), sqliteConsole.stop()]);
  }
} finally {
  await rig.stop();
}
