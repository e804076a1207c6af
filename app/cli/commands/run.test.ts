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
