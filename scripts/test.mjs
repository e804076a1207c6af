// `npm test`: typecheck → lint → build → unit (Vitest) → e2e (Playwright in Chromium) → bench
// (each `npm run bench` target once with tiny counts: it ran and printed its figures, none judged).
// Every stage runs even after a failure, so one run shows everything that is broken; the last
// line sums the tests of both runners.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules/.bin', name);
const results = join(root, '.reports');
mkdirSync(results, { recursive: true });

const only = process.argv.slice(2);
const stages = [
  { name: 'typecheck', cmd: [bin('tsc'), '-b'] },
  { name: 'lint', cmd: [bin('eslint'), '--max-warnings=0', '.'] },
  { name: 'build', cmd: [bin('electron-vite'), 'build'] },
  { name: 'unit', cmd: [bin('vitest'), 'run', '--reporter=default', '--reporter=json', `--outputFile=${join(results, 'vitest.json')}`] },
  {
    name: 'e2e',
    cmd: [bin('playwright'), 'test', '-c', 'e2e/playwright.config.ts'],
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: join(results, 'playwright.json'), TOOLDECK_PLAYWRIGHT_JSON: '1' },
  },
  // After the build (the ui, cli and bus benches run the built app), so no bench stops working unseen.
  { name: 'bench', cmd: [process.execPath, join(root, 'scripts/bench.mjs'), '--smoke'] },
].filter((stage) => only.length === 0 || only.includes(stage.name));

const summary = [];
for (const stage of stages) {
  const started = Date.now();
  console.log(`\n▶ ${stage.name}`);
  const run = spawnSync(stage.cmd[0], stage.cmd.slice(1), { cwd: root, stdio: 'inherit', env: { ...process.env, ...stage.env } });
  summary.push({ name: stage.name, ok: run.status === 0, seconds: (Date.now() - started) / 1000 });
}

function readJson(file) {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}
let passed = 0;
let failed = 0;
let skipped = 0;
const vitest = stages.some((s) => s.name === 'unit') ? readJson(join(results, 'vitest.json')) : undefined;
if (vitest) {
  passed += vitest.numPassedTests;
  failed += vitest.numFailedTests;
  skipped += vitest.numPendingTests + vitest.numTodoTests;
}
const playwright = stages.some((s) => s.name === 'e2e') ? readJson(join(results, 'playwright.json')) : undefined;
if (playwright) {
  passed += playwright.stats.expected + playwright.stats.flaky;
  failed += playwright.stats.unexpected;
  skipped += playwright.stats.skipped;
}

console.log('\nStage        result   seconds');
for (const s of summary) console.log(`${s.name.padEnd(12)} ${(s.ok ? 'ok' : 'FAILED').padEnd(8)} ${s.seconds.toFixed(1)}`);
const stageFailures = summary.filter((s) => !s.ok).length;
// A failing typecheck/lint/build counts as a failed test, so the closing line can never read green.
console.log(`tests: ${passed} passed, ${failed + (failed === 0 ? stageFailures : 0)} failed, ${skipped} skipped`);
process.exit(stageFailures > 0 ? 1 : 0);
