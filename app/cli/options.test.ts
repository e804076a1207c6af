import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { ExitCode } from './CliContext';
import { integerIn, parseHttpUrl, parseTimeoutMs } from './options';
import { runCli } from './program';
import { runTooldeck } from './testing/runTooldeck';

async function run(argv: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-options-'));
  return { ...(await runTooldeck(dataDir, argv)), dataDir };
}

/** One readable sentence: no zod issue arrays, no stack, no NaN. */
function expectOneSentence(stderr: string) {
  const [first, ...rest] = stderr.trim().split('\n');
  // commander adds its usage hint on a second line; nothing else may follow.
  expect(rest.filter((line) => line !== '(run with --help for usage)')).toEqual([]);
  expect(first).not.toMatch(/^\s*[[{]|"code":|\n\s+at |NaN/);
  expect(first!.length).toBeLessThan(300);
}

describe('options are checked before anything runs (exit 2, one sentence)', () => {
  // A stdio server that would leave a file behind if it were ever started.
  const marker = join(mkdtempSync(join(tmpdir(), 'tooldeck-marker-')), 'started');
  const spawnsMarker = `touch ${marker}`;

  it.each([
    ['mcp call', ['mcp', 'call', 'echo', '--stdio', spawnsMarker, '--timeout']],
    ['call', ['call', 'mcp:nothing.echo', '--timeout']],
    ['grpc call', ['grpc', 'call', '127.0.0.1:9', 'pkg.Service/Method', '--timeout']],
    ['a2a send', ['a2a', 'send', 'http://127.0.0.1:9', 'hello', '--timeout']],
  ])('%s --timeout must be a positive whole number of milliseconds', async (_name, argv) => {
    // Before: `abc`, `-5` and `0` ran the call and reported "Timeout … within NaN ms".
    for (const bad of ['abc', '-5', '0', '1.5', '1e3', '', '99999999999']) {
      const result = await run([...argv, bad]);
      expect(result.code, `${argv.join(' ')} ${bad}`).toBe(ExitCode.Usage);
      expect(result.stderr).toMatch(/option '--timeout <ms>' argument '.*' is invalid\. It must be (a positive whole number of milliseconds, e\.g\. 30000 for 30 s|at most 86400000 milliseconds \(a day\))\./);
      expectOneSentence(result.stderr);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('--data-dir takes a folder, not the option after it', async () => {
    // Before: `tooldeck --data-dir --help info` made a data folder named "--help" where it ran.
    let stderr = '';
    const code = await runCli(['--data-dir', '--help', 'info'], { stdout: () => undefined, stderr: (t) => void (stderr += t) }, {});
    expect(code).toBe(ExitCode.Usage);
    expect(stderr).toContain("option '--data-dir <dir>' argument '--help' is invalid. It must be a folder path");
    expectOneSentence(stderr);
    expect(existsSync('--help')).toBe(false);
  });

  it('kube reconcile and mcp login take --timeout in whole seconds', async () => {
    for (const argv of [['kube', 'reconcile', '--once', '--timeout', 'soon'], ['mcp', 'login', 'x', '--timeout', '-1']]) {
      const result = await run(argv);
      expect(result.code).toBe(ExitCode.Usage);
      expect(result.stderr).toContain('It must be a positive whole number of seconds, e.g. 300.');
      expectOneSentence(result.stderr);
    }
  });

  it('--url must be an http(s) URL: one sentence, not a zod issue array', async () => {
    // Before: `mcp tools --url "not a url"` printed the raw JSON array of zod issues, exit 1.
    for (const argv of [
      ['mcp', 'tools', '--url', 'not a url'],
      ['mcp', 'call', 'echo', '--url', 'not a url'],
      ['mcp', 'add', 'x', '--url', 'not a url'],
      ['mcp', 'tools', '--url', 'file:///etc/passwd'],
      ['mcp', 'conformance-client', 'ftp://example.test'],
    ]) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(ExitCode.Usage);
      expect(result.stderr).toMatch(/is invalid( for argument 'url')?\. It must be an http:\/\/ or https:\/\/ URL/);
      expectOneSentence(result.stderr);
    }
  });

  it('enumerated values list the choices (metrics --by nope said nothing and exited 2)', async () => {
    const cases: Array<[string[], string]> = [
      [['metrics', '--by', 'nope'], 'Allowed choices are tool, server, replica.'],
      [['history', '--status', 'nope'], 'Allowed choices are ok, error, timeout, canceled, denied.'],
      [['run', 'x.yaml', '--reporter', 'nope'], 'Allowed choices are pretty, json, junit.'],
      [['apply', '-f', 'x.yaml', '--target', 'nope'], 'Allowed choices are local, cluster.'],
      [['compile', '--agent', 'a', '--format', 'nope'], 'Allowed choices are tools.json, config.yaml.'],
    ];
    for (const [argv, choices] of cases) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(ExitCode.Usage);
      expect(result.stderr).toContain(choices);
      expectOneSentence(result.stderr);
    }
  });

  it('numbers with a range say the range', async () => {
    const cases: Array<[string[], string]> = [
      [['history', '--limit', 'abc'], 'It must be a positive whole number, e.g. 10.'],
      [['history', '--limit', '0'], 'It must be a positive whole number, e.g. 10.'],
      [['search', 'x', '--limit', '-3'], 'It must be a positive whole number, e.g. 10.'],
      [['run', 'x.yaml', '--concurrency', '100'], '--concurrency: a whole number from 1 to 64 (up to 1000 with --load)'],
      [['run', 'x.yaml', '--load', '--rps', '5', '--duration', '1s', '--concurrency', '1001'], 'It must be a whole number from 1 to 1000.'],
      [['serve', '--port', '70000'], 'It must be a whole number from 0 to 65535.'],
      [['kube', 'install', '--replicas', '2.5'], 'It must be a whole number from 1 to 10.'],
      [['operator', '--workers', 'many'], 'It must be a whole number from 1 to 64.'],
      [['history', '--since', 'yesterday'], 'Use a positive number and a unit: 30s, 15m, 1h, 7d or 2w.'],
      [['mcp', 'tools', '--url', 'http://127.0.0.1:9', '--header', 'novalue'], 'Use KEY=VALUE'],
    ];
    for (const [argv, why] of cases) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(ExitCode.Usage);
      expect(result.stderr).toContain(why);
      expectOneSentence(result.stderr);
    }
  });

  it('a clamped limit is reported on stderr (history --limit 1000000 silently returned 1,000 rows)', async () => {
    const result = await run(['history', '--limit', '1000000']);
    expect(result.code).toBe(ExitCode.Ok);
    expect(result.stderr).toBe('--limit 1000000: history shows at most 1,000 rows at once; showing 1,000.\n');
    expect((await run(['history', '--limit', '1000'])).stderr).toBe('');
  });
});

describe('the shared parsers', () => {
  it('accept what they say and refuse the rest with InvalidArgumentError', () => {
    expect(parseTimeoutMs(' 30000 ')).toBe(30_000);
    expect(parseTimeoutMs('86400000')).toBe(86_400_000);
    expect(() => parseTimeoutMs('86400001')).toThrow(InvalidArgumentError);
    expect(parseHttpUrl('https://example.test/mcp')).toBe('https://example.test/mcp');
    expect(() => parseHttpUrl('http://')).toThrow(InvalidArgumentError);
    expect(integerIn(1, 64)('64')).toBe(64);
    expect(() => integerIn(1, 64)('065.0')).toThrow(InvalidArgumentError);
  });
});
