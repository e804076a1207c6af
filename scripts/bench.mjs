// `npm run bench -- <name>…`: runs e2e/bench/<name>.bench.ts (all of them without a name).
// Benchmarks print ratios against a baseline measured in the same run; the last line is JSON.
//
// `npm run bench -- --smoke [<name>…]` (or BENCH_SMOKE=1): each bench once with tiny counts, as CI
// runs them (scripts/test.mjs, stage bench) so none stops working unseen. A smoke run checks only
// that each bench ends with exit code 0 and its JSON line; its figures mean nothing.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'e2e/bench');
const available = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''));
// `npm run bench -- kube -- --approvals`: what follows a `--` goes to the bench itself.
const separator = process.argv.indexOf('--', 2);
const named = separator === -1 ? process.argv.slice(2) : process.argv.slice(2, separator);
const smoke = named.includes('--smoke') || process.env.BENCH_SMOKE === '1';
const wanted = named.filter((name) => name !== '--smoke');
const benchArgs = separator === -1 ? [] : process.argv.slice(separator + 1);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.join(', ')}`);
  process.exit(2);
}

/**
 * The tiny counts of a smoke run: the knobs the benches read from the environment, and
 * BENCH_SMOKE for the counts they keep in the file (benchCount in e2e/bench/benchStats.ts).
 */
const SMOKE_ENV = {
  BENCH_SMOKE: '1',
  BENCH_ROUNDS: '1',
  BENCH_CALLS: '40',
  BENCH_WARM_UP: '10',
  BENCH_BLOCK: '20',
  BENCH_IN_FLIGHT: '2',
  BENCH_TURNS: '3',
  BENCH_CYCLES: '1',
  BENCH_INSPECTOR: '0',
  BENCH_CONCURRENCY: '2',
  // The load runner's shortest run.
  BENCH_ROUND_MS: '1000',
  BENCH_RESULT_SIZES: '1',
  BENCH_APPROVALS: '20',
  STORE_BENCH_ROWS: '5000',
  HISTORY_BENCH_ROWS: '2000',
  HISTORY_BENCH_CALLS: '20',
};
/** What a smoke run passes a bench that measures nothing without it. */
const SMOKE_ARGS = {
  history: ['--postgres'],
};
/** Benches a smoke run leaves out, and why: said in its output, never silently. */
const SMOKE_SKIPS = {
  kube: 'its operator run waits out real lease renewals and a takeover after kill -9 (over a minute whatever the counts); e2e/kube covers its parts',
};
/** A smoke run that takes longer than this is a failure, not a wait. */
const SMOKE_TIMEOUT_MS = 150_000;

const results = [];
for (const name of wanted.length ? wanted : available) {
  console.log(`\n=== bench ${name}${smoke ? ' (smoke: tiny counts, figures mean nothing)' : ''}`);
  if (smoke && SMOKE_SKIPS[name] && !wanted.includes(name)) {
    console.log(`skipped in a smoke run: ${SMOKE_SKIPS[name]}.`);
    results.push({ name, result: 'skipped', seconds: 0 });
    continue;
  }
  // The bare SDK client these two compare against adds an abort listener per HTTP request to one
  // connection-wide signal and prints a MaxListenersExceededWarning for every request past 1,500,
  // thousands of lines that bury the figures. Tooldeck's own transport releases them (proven by
  // main/mcp/listenerRelease.test.ts: 10,000 calls, no warning), so the warning is turned off here.
  const warnings = ['mcp', 'load', 'gateway'].includes(name) ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --disable-warning=MaxListenersExceededWarning`.trim() } : {};
  const env = { ...process.env, ...warnings, ...(smoke ? SMOKE_ENV : {}) };
  const started = Date.now();
  const args = benchArgs.length === 0 && smoke ? (SMOKE_ARGS[name] ?? []) : benchArgs;
  const command = [join(root, 'node_modules/.bin/tsx'), [join(benchDir, `${name}.bench.ts`), ...args]];
  if (!smoke) {
    const run = spawnSync(...command, { cwd: root, stdio: 'inherit', env });
    results.push({ name, result: run.status === 0 ? 'ok' : 'FAILED', seconds: (Date.now() - started) / 1000 });
    continue;
  }
  // Standard output is kept to check its last line; it is printed once the bench ends.
  const run = spawnSync(...command, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env, encoding: 'utf8', timeout: SMOKE_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 });
  process.stdout.write(run.stdout ?? '');
  const problem = smokeProblem(run);
  if (problem) console.error(`bench ${name} FAILED: ${problem}`);
  results.push({ name, result: problem ? 'FAILED' : 'ok', seconds: (Date.now() - started) / 1000 });
}

/** Why a smoke run of one bench failed, or undefined: it must end by itself, with exit code 0 and its JSON line. */
function smokeProblem(run) {
  if (run.error?.code === 'ETIMEDOUT') return `not done in ${SMOKE_TIMEOUT_MS / 1000} s`;
  if (run.error) return run.error.message;
  if (run.status !== 0) return run.signal ? `killed by ${run.signal}` : `exit code ${run.status}`;
  const last = (run.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    const figures = JSON.parse(last);
    if (typeof figures?.bench !== 'string') return `its last line is JSON without "bench": ${last.slice(0, 200)}`;
  } catch {
    return `its last line is not its JSON figures: ${last.slice(0, 200) || '(no output)'}`;
  }
  return undefined;
}

if (results.length > 1 || smoke) {
  console.log('\nbench          result    seconds');
  for (const item of results) console.log(`${item.name.padEnd(14)} ${item.result.padEnd(9)} ${item.seconds.toFixed(1)}`);
}
process.exit(results.some((item) => item.result === 'FAILED') ? 1 : 0);
