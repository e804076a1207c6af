import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { elements, validateJunit } from '../../../e2e/peers/junit/validateJunit';
import { everythingStdio } from '../../../e2e/peers/mcp/everything';
import { collectionSecretKey } from '../../../shared/collections';
import { CollectionStore } from '../../../main/collections/CollectionStore';
import { createCore } from '../../../main/core';
import { FileSecretStore } from '../../../main/platform/FileSecretStore';
import { silentLogger } from '../../../main/platform/Logger';
import { CliContext, CliExit, ExitCode } from '../CliContext';
import { registerRun } from './run';

const SECRET = 'ci-secret-5f2a9c';
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-run-cli-'));
const work = mkdtempSync(join(tmpdir(), 'tooldeck-run-files-'));
const example = join(import.meta.dirname, '../../../examples/collections/everything.yaml');

beforeAll(async () => {
  const secretStore = new FileSecretStore(join(dataDir, 'secrets'));
  const core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore, logger: silentLogger, shutdownGraceMs: 200 });
  try {
    await core.mcp.save({ config: { ...everythingStdio('everything'), enabled: false } as never });
    await core.mcp.save({ config: { name: 'dead', transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'], enabled: false } as never });
    await secretStore.set(collectionSecretKey('CI_TOKEN'), SECRET);
    await new CollectionStore(dataDir, secretStore).import(readFileSync(example, 'utf8'));
  } finally {
    await core.close();
  }
});

/** Runs `tooldeck run …` on a fresh program wired the way program.ts wires commands. */
async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const ctx = new CliContext(io, () => dataDir);
  registerRun(program, ctx);
  let code: number = ExitCode.Ok;
  try {
    await program.parseAsync(['run', ...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CliExit) {
      stderr += `${error.message}\n`;
      code = error.exitCode;
    } else if (error instanceof CommanderError) code = error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    else throw error;
  } finally {
    await ctx.close();
  }
  return { code, stdout, stderr };
}

function writeYaml(name: string, value: unknown): string {
  const path = join(work, name);
  writeFileSync(path, stringify(value));
  return path;
}

const mixed = writeYaml('mixed.yaml', {
  name: 'mixed',
  variables: { who: 'world', token: '{{secret:CI_TOKEN}}' },
  requests: [
    { name: 'greets', target: 'mcp:everything', tool: 'echo', arguments: { message: 'hello {{who}}' }, assertions: [{ path: 'text', equals: 'Echo: hello ci' }] },
    { name: 'wrong sum', target: 'mcp:everything', tool: 'get-sum', arguments: { a: 2, b: 2 }, assertions: [{ path: 'text', contains: 'is 5.' }] },
    { name: 'echoes the token', target: 'mcp:everything', tool: 'echo', arguments: { message: '{{token}}' }, assertions: [{ path: 'text', equals: 'not the token' }] },
    { name: 'last', target: 'mcp:everything', tool: 'echo', arguments: { message: 'end' } },
  ],
});
const env = writeYaml('ci.env.yaml', { who: 'ci' });

describe('tooldeck run', () => {
  it('writes a valid JUnit report with each failure and its actual value, never the secret, and exits 1', async () => {
    const output = join(work, 'reports', 'mixed.xml');
    const result = await run([mixed, '--env', env, '--reporter', 'junit', '--output', output]);
    expect(result.code).toBe(ExitCode.Failed);
    expect(result.stdout).toContain('  ✓ greets');
    expect(result.stdout).toMatch(/ {2}✗ wrong sum .*\n {6}✗ text contains "is 5\." — "The sum of 2 and 2 is 4\." does not contain "is 5\."\n {8}actual: "The sum of 2 and 2 is 4\."/);
    expect(result.stderr).toContain('2 of 4 requests did not pass');

    const xml = readFileSync(output, 'utf8');
    const root = validateJunit(xml);
    expect(root.attributes).toMatchObject({ tests: '4', failures: '2', errors: '0' });
    const failures = elements(root, 'failure');
    expect(failures.map((f) => f.attributes.message)).toEqual([
      'text contains "is 5.": "The sum of 2 and 2 is 4." does not contain "is 5."',
      'text equals "not the token": expected "not the token", got "Echo: ***"',
    ]);
    expect(failures[1]!.text).toContain('actual: "Echo: ***"');
    expect(xml + result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('runs a saved collection by name, N at a time, with a JSON report on stdout and exits 0', async () => {
    const result = await run(['everything', '--concurrency', '3', '--reporter', 'json']);
    expect(result.code).toBe(ExitCode.Ok);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ collection: 'everything', ok: true, requests: { total: 6, passed: 6 } });
    expect(result.stderr).toContain('Requests: 6 passed, 0 failed, 0 errored, 0 skipped of 6');
  });

  it('stops at the first failure with --bail', async () => {
    const result = await run([mixed, '--env', env, '--bail']);
    expect(result.code).toBe(ExitCode.Failed);
    expect(result.stdout).toContain('  - echoes the token — skipped: not run: an earlier request did not pass (bail)');
    expect(result.stdout).toContain('Requests: 1 passed, 1 failed, 0 errored, 2 skipped of 4');
  });

  it('exits 3 when a target cannot be connected', async () => {
    const path = writeYaml('dead.yaml', { name: 'dead', requests: [{ name: 'ping', target: 'mcp:dead', tool: 'echo' }] });
    const result = await run([path]);
    expect(result.code).toBe(ExitCode.CannotConnect);
    expect(result.stdout).toMatch(/Cannot connect mcp:dead: ConnectionFailed/);
  });

  it('exits 2 on usage errors', async () => {
    expect((await run([join(work, 'missing.yaml')])).code).toBe(ExitCode.Usage);
    expect((await run(['no-such-saved-collection'])).code).toBe(ExitCode.Usage);
    expect((await run([mixed, '--reporter', 'xml'])).code).toBe(ExitCode.Usage);
    expect((await run([mixed, '--concurrency', '0'])).code).toBe(ExitCode.Usage);
    expect((await run([mixed, '--env', writeYaml('bad.env.yaml', ['a', 'list'])])).code).toBe(ExitCode.Usage);
    const invalid = await run([writeYaml('invalid.yaml', { name: 'invalid', requests: [{ name: 'x', target: 'nowhere', tool: 'echo' }] })]);
    expect(invalid).toMatchObject({ code: ExitCode.Usage, stderr: expect.stringContaining('line 4: requests[0].target: mcp:<saved server>, a2a:<saved agent> or grpc:<source>') });
  });
});

describe('tooldeck run --load', () => {
  const echoes = writeYaml('echoes.yaml', {
    name: 'echoes',
    requests: [
      { name: 'short', target: 'mcp:everything', tool: 'echo', arguments: { message: 'hi' } },
      { name: 'long', target: 'mcp:everything', tool: 'echo', arguments: { message: 'x'.repeat(500) } },
    ],
  });

  it('sends at the rate asked and prints the JSON report with the headline figures at its top level', async () => {
    const result = await run([echoes, '--load', '--rps', '20', '--duration', '1s', '--concurrency', '8', '--threshold', 'p99<60s', '--threshold', 'error_rate<1%', '--reporter', 'json']);
    expect(result.stderr).not.toMatch(/thresholds failed/);
    expect(result.code).toBe(ExitCode.Ok);
    const report = JSON.parse(result.stdout);
    for (const key of ['achieved_rps', 'requests', 'errors', 'p50_ms', 'p95_ms', 'p99_ms', 'p999_ms', 'thresholds']) expect(report).toHaveProperty(key);
    expect(report).toMatchObject({ collection: 'echoes', asked_rps: 20, scheduled: 20, errors: 0, errors_by_code: {}, settings: { concurrency: 8 }, ok: true });
    expect(report.requests + report.dropped).toBe(20);
    expect(report.thresholds).toEqual([
      { threshold: 'p99<60s', passed: true, actual: expect.any(Number), message: expect.stringMatching(/^p99 .* meets < 60 s$/) },
      { threshold: 'error_rate<1%', passed: true, actual: 0, message: 'error_rate 0% meets < 1%' },
    ]);
    expect(report.per_request.map((r: { name: string }) => r.name)).toEqual(['short', 'long']);
    expect(result.stderr).toContain('/s achieved of 20/s asked');
  });

  it('exits 1 when a threshold fails, saying which, with a valid JUnit report', async () => {
    const output = join(work, 'reports', 'load.xml');
    const result = await run([echoes, '--load', '--rps', '10', '--duration', '1', '--threshold', 'p50<1us', '--threshold', 'rps>=1', '--reporter', 'junit', '--output', output]);
    expect(result.code).toBe(ExitCode.Failed);
    expect(result.stderr).toContain('1 of 2 thresholds failed: p50<1us');
    expect(result.stdout).toMatch(/✗ p50<1us +p50 .* fails < 0\.001 ms/);
    expect(result.stdout).toMatch(/Latency +p50 .* \(from the intended send time\)/);
    const root = validateJunit(readFileSync(output, 'utf8'));
    expect(root.attributes).toMatchObject({ tests: '3', failures: '1', errors: '0' });
    expect(elements(root, 'failure').map((f) => f.attributes.type)).toEqual(['ThresholdFailed']);
  });

  it('exits 3 when a target cannot be connected, and sends nothing', async () => {
    const path = writeYaml('dead-load.yaml', { name: 'dead-load', requests: [{ name: 'ping', target: 'mcp:dead', tool: 'echo' }] });
    const result = await run([path, '--load', '--rps', '5', '--duration', '1s']);
    expect(result.code).toBe(ExitCode.CannotConnect);
    expect(result.stderr).toMatch(/Cannot connect: mcp:dead/);
  });

  it('exits 2 on load settings that cannot work, in the flags’ terms', async () => {
    const usage = async (...argv: string[]) => {
      const result = await run([echoes, ...argv]);
      expect(result.code).toBe(ExitCode.Usage);
      return result.stderr;
    };
    expect(await usage('--rps', '5')).toContain('--rps goes with --load');
    expect(await usage('--concurrency', '100')).toContain('--concurrency: a whole number from 1 to 64');
    expect(await usage('--load', '--rps', '5')).toContain('--load needs --rps and --duration');
    expect(await usage('--load', '--rps', '5', '--duration', '2s', '--bail')).toContain('--bail does not go with --load');
    expect(await usage('--load', '--rps', '5', '--duration', '2s', '--threshold', 'p95 < soon')).toContain('--threshold: "p95 < soon" is not a threshold');
    expect(await usage('--load', '--rps', '5', '--duration', '2s', '--ramp-up', '2s')).toContain('--ramp-up: the ramp-up must be shorter than the duration');
    expect(await usage('--load', '--rps', '50000', '--duration', '2s')).toContain('--rps: at most 10000');
    expect(await usage('--load', '--rps', '5', '--duration', '2h')).toContain('--duration: from 1s to 1h');
    await usage('--load', '--rps', '-1', '--duration', '2s');
    await usage('--load', '--rps', '5', '--duration', 'soon');
    expect(await usage('--load', '--rps', '5', '--duration', '2s', '--namespace', 'x')).toContain('go with --per-replica');
  });
});
