// npm run bench -- results
// One call whose result is 5, 20 and 50 MB (the official SDK's server over stdio, run by
// e2e/peers/mcp/largeResultServer.mjs), through Tooldeck's pipeline, each size in a fresh process
// so its peak memory is its own. Prints seconds per MB at each size, the ratio of the largest to
// the smallest (1.0 = linear), and peak resident memory above the baseline as a multiple of the
// result size. The last line is JSON.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const SIZES_MB = (process.env.BENCH_RESULT_SIZES ?? '5,20,50').split(',').map(Number);
const worker = resolve(import.meta.dirname, 'resultsWorker.ts');
const tsx = resolve(import.meta.dirname, '../../node_modules/.bin/tsx');

interface Measured {
  mb: number;
  seconds: number;
  peakMb: number;
  status: string;
}

const rows: Measured[] = [];
for (const mb of SIZES_MB) {
  const run = spawnSync(tsx, [worker, String(mb)], { encoding: 'utf8' });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !line.startsWith('{')) {
    console.error(`size ${mb} MB failed: ${run.stderr || run.stdout}`);
    process.exit(1);
  }
  rows.push(JSON.parse(line) as Measured);
}
console.log('size MB   seconds   s/MB     peak MB above baseline   × result size   status');
for (const row of rows) {
  console.log(
    `${String(row.mb).padStart(7)}   ${row.seconds.toFixed(2).padStart(7)}   ${(row.seconds / row.mb).toFixed(3).padStart(6)}   ${row.peakMb.toFixed(0).padStart(22)}   ${(row.peakMb / row.mb).toFixed(2).padStart(13)}   ${row.status}`,
  );
}
const perMb = rows.map((row) => row.seconds / row.mb);
const ratio = perMb[perMb.length - 1]! / perMb[0]!;
console.log(`seconds per MB, largest / smallest: ${ratio.toFixed(2)} (1.00 = linear)`);
console.log(
  JSON.stringify({
    bench: 'results',
    sizes_mb: rows.map((row) => row.mb),
    seconds_per_mb: perMb.map((value) => Number(value.toFixed(4))),
    ratio_largest_to_smallest: Number(ratio.toFixed(3)),
    peak_memory_x_result: rows.map((row) => Number((row.peakMb / row.mb).toFixed(2))),
  }),
);
