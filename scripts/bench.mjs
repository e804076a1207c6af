// `npm run bench -- <name>…`: runs e2e/bench/<name>.bench.ts (all of them without a name).
// Benchmarks print ratios against a baseline measured in the same run; the last line is JSON.
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
const wanted = separator === -1 ? process.argv.slice(2) : process.argv.slice(2, separator);
const benchArgs = separator === -1 ? [] : process.argv.slice(separator + 1);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length ? wanted : available) {
  console.log(`\n=== bench ${name}`);
  // The bare SDK client these two compare against adds an abort listener per HTTP request to one
  // connection-wide signal and prints a MaxListenersExceededWarning for every request past 1,500,
  // thousands of lines that bury the figures. Tooldeck's own transport releases them (proven by
  // main/mcp/listenerRelease.test.ts: 10,000 calls, no warning), so the warning is turned off here.
  const env = ['mcp', 'load', 'gateway'].includes(name) ? { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --disable-warning=MaxListenersExceededWarning`.trim() } : process.env;
  const run = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(benchDir, `${name}.bench.ts`), ...benchArgs], { cwd: root, stdio: 'inherit', env });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
