import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from './program';

// Generated command lines against the real CLI, in process, with a data dir of its own. Nothing
// is stubbed: commands that would reach out are given targets that fail at once (127.0.0.1:1, a
// kubeconfig that does not exist), never a --stdio command; `serve` and `mcp login` (which wait
// for a signal or a browser) are left out.

const root = mkdtempSync(join(tmpdir(), 'tooldeck-argv-'));
const dataDir = join(root, 'data');
const files = {
  tool: join(root, 'tool.yaml'),
  invalid: join(root, 'invalid.yaml'),
  binary: join(root, 'binary.yaml'),
  collection: join(root, 'collection.yaml'),
  env: join(root, 'env.yaml'),
  missing: join(root, 'missing.yaml'),
};

// Generated lines may name a relative --data-dir or --output: run inside the test's own folder so
// whatever they create lands there, never in the repository.
const startDir = process.cwd();

beforeAll(() => {
  process.chdir(root);
  // An empty workspace: no example server to start, so every command stays fast. Its lock names
  // sources and tools as a hostile repository would: terminal escapes, C1 controls, bidi overrides,
  // a bare CR and a line break before a forged line.
  mkdirSync(join(dataDir, 'workspace'), { recursive: true });
  const hash = `sha256:${'c'.repeat(64)}`;
  const hostileTools = { [`t\u001b]0;pwned\u0007\u001b[2K\rok\u009b31m\u202e\u2066\nFORGED`]: { hash }, plain: { hash } };
  writeFileSync(join(dataDir, 'workspace', 'tooldeck.lock'), stringify({ version: 1, sources: { 'mcp:everything\u001b]8;;https://evil.example/\u001b\\\u0085\u202e': { tools: hostileTools }, 'mcp:m': { tools: hostileTools } } }));
  writeFileSync(files.tool, 'apiVersion: orloj.dev/v1\nkind: Tool\nmetadata:\n  name: small\nspec:\n  type: http\n  endpoint: http://127.0.0.1:1/x\n');
  writeFileSync(files.invalid, 'apiVersion: orloj.dev/v1\nkind: Tool\nmetadata: {name: "Bad Name"}\nspec: {type: nope}\n');
  writeFileSync(files.binary, Buffer.from([0xff, 0xfe, 0x00, 0x1b, 0x5b, 0x32, 0x4a]));
  writeFileSync(files.collection, 'name: c\nrequests:\n  - name: a\n    target: mcp:nowhere\n    tool: echo\n');
  writeFileSync(files.env, 'greeting: hi\n');
});
afterAll(() => {
  process.chdir(startDir);
  console.log(`exit codes of 10,000 generated command lines: ${[...exitCodes].sort().map(([code, count]) => `${code}: ${count}`).join(', ')}`);
  // Each kind of ending is reached: success, failure, usage error, cannot connect.
  for (const code of [0, 1, 2, 3]) expect(exitCodes.get(code) ?? 0, `exit code ${code}`).toBeGreaterThan(50);
});

/** Random words: any text but `-` (standard input, which would wait on the test runner's) and no `:` (no host names to resolve). */
const junk = fc.oneof(fc.string({ maxLength: 16 }), fc.string({ unit: 'binary', maxLength: 12 })).filter((word) => word !== '-' && !word.includes(':'));
const number = fc.oneof(fc.constantFrom('1', '10', '50', '500', '30000'), fc.constantFrom('0', '-1', '1', '5', '64', '65', '1000', '1000000', 'abc', '1e3', '1.5', ' 7 ', 'NaN', '', '99999999999999999999'), fc.integer().map(String));
const file = fc.constantFrom(...Object.values(files), '/dev/null', '/dev/zero', root);
const url = fc.constantFrom('http://127.0.0.1:1/mcp', 'https://127.0.0.1:1/', 'not a url', 'file:///etc/passwd', 'ftp://127.0.0.1/', '', 'http://');
const address = fc.constantFrom('127.0.0.1:1', '[::1]:1', 'nohost', '127.0.0.1:99999', '');
const name = fc.oneof(fc.constantFrom('everything', 'x', 'bad name!', 'a'.repeat(100), 'm'), junk);
const keyValue = fc.oneof(fc.constantFrom('K=V', 'Authorization=Bearer x', '=v', 'novalue', 'A='), junk);
const json = fc.oneof(fc.constantFrom('{}', '{"message":"hi"}', '[]', 'null', '{', '"x"'), fc.jsonValue().map((value) => JSON.stringify(value)));
const since = fc.oneof(fc.constantFrom('1h', '15m', '7d', '2w', '0s', '-1h', 'yesterday', ''), junk);
const tool = fc.oneof(fc.constantFrom('mcp:everything.echo', 'mcp:x.y', 'a2a:a.b', 'http:svc.t', 'grpc:s.t', 'nonsense', 'echo'), junk);
const outFile = fc.constantFrom(join(root, 'out.txt'), join(root, 'nested', 'report.xml'));
const missingKubeconfig = ['--kubeconfig', join(root, 'no-kubeconfig')];

type Flag = [string, fc.Arbitrary<string> | null];

/** A command: its words, its positionals (in order), its options; `always` is appended to every line. */
interface Spec {
  words: string[];
  positionals?: Array<fc.Arbitrary<string>>;
  flags?: Flag[];
  always?: string[];
}

const target: Flag[] = [['--url', url], ['--sse', null], ['--header', keyValue]];
const grpcTarget: Flag[] = [['--tls', null], ['--ca', file], ['--cert', file], ['--key', file], ['--server-name', name], ['--metadata', keyValue], ['--metadata-env', keyValue]];
const kubeTarget: Flag[] = [['--context', name], ['-n', name]];

const commands: Spec[] = [
  { words: ['info'], flags: [['--json', null]] },
  { words: ['mcp', 'list'], flags: [['--json', null]] },
  { words: ['mcp', 'export'], positionals: [name], flags: [['--include-secrets', null]] },
  { words: ['mcp', 'remove'], positionals: [name] },
  { words: ['mcp', 'add'], positionals: [name], flags: [...target, ['--env', keyValue], ['--bearer-token-env', name], ['--no-connect', null]] },
  { words: ['mcp', 'tools'], positionals: [name], flags: [...target, ['--json', null]] },
  { words: ['mcp', 'call'], positionals: [name, name], flags: [...target, ['--args', json], ['--timeout', number], ['--yes', null], ['--json', null]] },
  { words: ['mcp', 'logout'], positionals: [name] },
  { words: ['mcp', 'conformance-client'], positionals: [url] },
  { words: ['search'], positionals: [junk], flags: [['--limit', number], ['--refresh', null], ['--json', null]] },
  { words: ['compile'], flags: [['--agent', name], ['--format', fc.constantFrom('tools.json', 'config.yaml', 'nope')], ['--out', outFile]] },
  { words: ['a2a', 'card'], positionals: [fc.oneof(url, name)], flags: [['--json', null]] },
  { words: ['a2a', 'send'], positionals: [fc.oneof(url, name), junk], flags: [['--stream', null], ['--json', null], ['--context', name], ['--task', name], ['--timeout', number]] },
  { words: ['grpc', 'add'], positionals: [name, address], flags: [...grpcTarget, ['--reflection', null], ['--no-check', null]] },
  { words: ['grpc', 'remove'], positionals: [name] },
  { words: ['grpc', 'list-sources'], flags: [['--refresh', null], ['--json', null]] },
  { words: ['grpc', 'pin'], positionals: [name, name, number] },
  { words: ['grpc', 'list'], positionals: [address], flags: [...grpcTarget, ['--json', null]] },
  { words: ['grpc', 'call'], positionals: [address, fc.oneof(fc.constantFrom('pkg.Service/Method', 'a.B.C', 'x'), junk)], flags: [...grpcTarget, ['--data', json], ['--timeout', number], ['--yes', null], ['--json', null]] },
  { words: ['call'], positionals: [tool], flags: [['--args', json], ['--timeout', number], ['--yes', null], ['--json', null]] },
  { words: ['history'], flags: [['--tool', name], ['--status', fc.constantFrom('ok', 'error', 'timeout', 'nope')], ['--since', since], ['--limit', number], ['--json', null]] },
  { words: ['metrics'], flags: [['--since', since], ['--by', fc.constantFrom('tool', 'server', 'nope')], ['--json', null]] },
  { words: ['kube', 'reconcile'], flags: [...kubeTarget, ['--once', null], ['--timeout', number]], always: missingKubeconfig },
  { words: ['kube', 'inventory'], flags: [...kubeTarget, ['--json', null]], always: missingKubeconfig },
  {
    words: ['kube', 'install'],
    flags: [...kubeTarget, ['--image', name], ['--replicas', number], ['--watch-namespaces', fc.oneof(name, fc.constant('a,b'), fc.constant(','))], ['--cluster-wide', null], ['--dry-run', null], ['--force', null]],
    always: missingKubeconfig,
  },
  {
    words: ['operator'],
    flags: [['--lease-duration', since], ['--renew-deadline', since], ['--retry-period', since], ['--listen', fc.constantFrom('127.0.0.1:0', 'everywhere', ':99999')], ['--workers', number], ['--lease-name', name], ['--watch-namespaces', name], ['--tool-secrets', fc.oneof(fc.constantFrom('labelled', 'any'), junk)]],
    always: missingKubeconfig,
  },
  { words: ['validate'], flags: [['-f', file], ['--defaults', null]] },
  { words: ['apply'], flags: [['-f', file], ['--target', fc.constantFrom('local', 'cluster', 'nope')], ['--dry-run', null], ['--workspace', fc.constantFrom(join(root, 'ws'), root)]], always: missingKubeconfig },
  { words: ['reconcile'], flags: [['--once', null], ['--workspace', fc.constantFrom(join(root, 'ws'), join(root, 'missing'))]] },
  { words: ['lock', 'status'], flags: [['--json', null]] },
  { words: ['lock', 'diff'], positionals: [name], flags: [['--from', fc.constantFrom('approved', 'current', '1', '0', 'nope')], ['--to', fc.constantFrom('approved', 'current', '2', '-1')], ['--json', null]] },
  { words: ['lock', 'history'], positionals: [name], flags: [['--json', null]] },
  { words: ['lock', 'approve'], positionals: [name, name] },
  { words: ['lock', 'reject'], positionals: [name, name] },
  { words: ['lock', 'verify'], flags: [['--json', null]] },
  { words: ['lock', 'new-sources'], positionals: [fc.constantFrom('trust-on-first-use', 'hold', 'nope')] },
  { words: ['lint'], positionals: [name], flags: [...target, ['--json', null]] },
  { words: ['kube', 'approve'], positionals: [fc.oneof(name, fc.constant('ns/tool'))], flags: [['--hash', fc.constantFrom('sha256:00', 'nope')]], always: missingKubeconfig },
  { words: ['run'], positionals: [fc.oneof(file, name)], flags: [['--env', file], ['--reporter', fc.constantFrom('pretty', 'json', 'junit', 'nope')], ['--bail', null], ['--concurrency', number], ['--output', outFile]] },
];

/** A command line of one command: some of its positionals and options in any order, now and then a stray word. */
function commandLine(spec: Spec): fc.Arbitrary<string[]> {
  const positionals = fc.tuple(...(spec.positionals ?? []).map((arb) => arb)).chain((values) => fc.integer({ min: 0, max: values.length }).map((count) => values.slice(0, count)));
  const options = fc.subarray(spec.flags ?? [], { maxLength: Math.min(4, spec.flags?.length ?? 0) }).chain((flags) =>
    flags.length === 0 ? fc.constant([] as string[][]) : fc.tuple(...flags.map(([flag, value]) => (value ? value.map((v) => [flag, v]) : fc.constant([flag])))),
  );
  return fc.tuple(positionals, options, fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: junk, weight: 1 }), fc.boolean()).map(([args, opts, stray, optionsFirst]) => {
    const pieces = optionsFirst ? [...opts.flat(), ...args] : [...args, ...opts.flat()];
    if (stray !== null) pieces.splice(pieces.length >> 1, 0, stray);
    return [...spec.words, ...pieces, ...(spec.always ?? [])];
  });
}

const anyCommandLine = fc.oneof(
  { arbitrary: fc.constantFrom(...commands).chain(commandLine), weight: 9 },
  // Anything at all, the words of commands included, in any order.
  { arbitrary: fc.array(fc.oneof(junk, fc.constantFrom('mcp', 'grpc', 'kube', 'a2a', '--help', '-v', '--json', '--timeout', '--data-dir', 'list', 'call')), { maxLength: 6 }), weight: 1 },
);

/** Anything a terminal would act on: C0 controls but tab and line feed, DEL, C1 controls, bidi overrides. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTS_ON_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** A line the output did not write itself: a lock key that broke onto a line of its own. */
const FORGED_LINE = /(^|\n)FORGED/;

/** A stack frame, e.g. "    at run (file.js:12:5)". */
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;
/** zod's JSON dump of issues, as `--url "not a url"` once printed it. */
const ZOD_DUMP = /"code":\s*"(invalid_\w+|too_\w+|unrecognized_keys|custom|not_multiple_of)"/;

async function runOnce(argv: string[]) {
  let stdout = '';
  let stderr = '';
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`tooldeck ${JSON.stringify(argv)} did not end within 30 s`)), 30_000)));
  try {
    const code = await Promise.race([runCli(['--data-dir', dataDir, ...argv], { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) }, {}), hung]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** How many command lines ended with each exit code: the mix shows commands ran, not only usage errors. */
const exitCodes = new Map<number, number>();

async function check(argv: string[]) {
  const { code, stdout, stderr } = await runOnce(argv);
  exitCodes.set(code, (exitCodes.get(code) ?? 0) + 1);
  const context = `tooldeck ${JSON.stringify(argv)} → ${code}\n${stderr}`;
  expect([0, 1, 2, 3], context).toContain(code);
  expect(stdout + stderr, context).not.toMatch(STACK_FRAME);
  expect(stderr, context).not.toMatch(ZOD_DUMP);
  // A number that did not parse ("within NaN ms"), unless the command line itself said NaN.
  if (!argv.some((word) => word.includes('NaN'))) expect(stdout + stderr, context).not.toMatch(/\bNaN\b/);
  expect(stderr, context).not.toMatch(/\[object Object\]/);
  // Whatever the command line, the lock and the workspace hold, nothing reaches the terminal raw.
  expect(stdout + stderr, context).not.toMatch(ACTS_ON_TERMINAL);
  expect(stdout + stderr, context).not.toMatch(FORGED_LINE);
  // A command that fails says why.
  if (code !== 0) expect((stdout + stderr).trim(), context).not.toBe('');
}

// 10,000 command lines in all, in four runs of 2,500.
describe('the CLI argument parser against generated command lines (fast-check)', () => {
  for (const part of [1, 2, 3, 4]) {
    it(`ends every command line with 0, 1, 2 or 3, no stack trace, no zod dump and nothing a terminal acts on (part ${part} of 4)`, { timeout: 300_000 }, async () => {
      await fc.assert(fc.asyncProperty(anyCommandLine, check), { numRuns: 2_500 });
    });
  }
});
