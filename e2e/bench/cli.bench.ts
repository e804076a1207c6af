// npm run bench -- cli
// The CLI as a whole process: `tooldeck mcp call echo everything` (server-everything saved as a
// stdio server) versus the official MCP Inspector's CLI making the same call, alternating, N rounds
// each (BENCH_ROUNDS, default 10; the first of each pair alternates by round). Prints both medians
// and their ratio against its target (≤ 0.90, issue #29), the same for a one-off `--stdio` target,
// and the wall times of `tooldeck --version` and `tooldeck mcp list`. Needs the built CLI
// (`npm run build`). The last line is JSON.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { everythingScript } from '../peers/mcp/everything';
import { fmt, round, summarize } from './benchStats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
/** Issue #29: a whole `tooldeck mcp call` at most 90% of the inspector's. */
const TARGET = 0.9;
const root = resolve(import.meta.dirname, '../..');
const tooldeckBin = join(root, 'bin/tooldeck.js');
const inspectorBin = join(root, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
// The inspector's launcher starts its client with `node` from PATH: the same Node as Tooldeck's.
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };

function timeProcess(args: string[], expect: string): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env });
  const elapsed = performance.now() - start;
  if (run.status !== 0 || !run.stdout.includes(expect)) throw new Error(`node ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return elapsed;
}

/** Runs `a` and `b` alternately, ROUNDS times each, the first of each pair alternating by round. */
function alternate(a: () => number, b: () => number) {
  const aTimes: number[] = [];
  const bTimes: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      aTimes.push(a());
      bTimes.push(b());
    } else {
      bTimes.push(b());
      aTimes.push(a());
    }
  }
  return { a: summarize(aTimes), b: summarize(bTimes) };
}

const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bench-cli-'));
try {
  const tooldeck = (...args: string[]) => [tooldeckBin, '--data-dir', dataDir, ...args];
  const inspectorCall = () =>
    timeProcess([inspectorBin, '--cli', process.execPath, everythingScript, 'stdio', '--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=hi'], 'Echo: hi');
  timeProcess(tooldeck('mcp', 'add', 'everything', '--stdio', `${process.execPath} ${everythingScript} stdio`), '');
  // Warm-up (file cache, Node's compile cache), not counted.
  timeProcess(tooldeck('mcp', 'call', 'echo', 'everything', '--args', '{"message":"hi"}'), 'Echo: hi');
  inspectorCall();

  const saved = alternate(() => timeProcess(tooldeck('mcp', 'call', 'echo', 'everything', '--args', '{"message":"hi"}'), 'Echo: hi'), inspectorCall);
  const savedRatio = saved.a.median / saved.b.median;
  console.log(
    `mcp call (saved stdio server)  tooldeck ${fmt(saved.a.median)} | inspector --cli ${fmt(saved.b.median)} | ratio ${savedRatio.toFixed(3)} (target ≤ ${TARGET.toFixed(2)}, ${savedRatio <= TARGET ? 'met' : 'NOT met'}; median of ${ROUNDS} processes each)`,
  );
  const oneOff = alternate(() => timeProcess(tooldeck('mcp', 'call', 'echo', '--args', '{"message":"hi"}', '--stdio', `${process.execPath} ${everythingScript} stdio`), 'Echo: hi'), inspectorCall);
  const oneOffRatio = oneOff.a.median / oneOff.b.median;
  console.log(`mcp call (--stdio one-off)     tooldeck ${fmt(oneOff.a.median)} | inspector --cli ${fmt(oneOff.b.median)} | ratio ${oneOffRatio.toFixed(3)}`);

  const version = summarize(Array.from({ length: ROUNDS }, () => timeProcess([tooldeckBin, '--version'], '.')));
  const list = summarize(Array.from({ length: ROUNDS }, () => timeProcess(tooldeck('mcp', 'list'), 'everything')));
  console.log(`tooldeck --version ${fmt(version.median)} | tooldeck mcp list ${fmt(list.median)} (medians of ${ROUNDS})`);
  console.log(
    JSON.stringify({
      bench: 'cli',
      rounds: ROUNDS,
      call_ratio: round(savedRatio),
      call_ms: round(saved.a.median, 1),
      inspector_call_ms: round(saved.b.median, 1),
      one_off_call_ratio: round(oneOffRatio),
      one_off_call_ms: round(oneOff.a.median, 1),
      one_off_inspector_call_ms: round(oneOff.b.median, 1),
      version_ms: round(version.median, 1),
      mcp_list_ms: round(list.median, 1),
    }),
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
