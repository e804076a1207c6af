import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../support/tooldeckServer';

/**
 * The built `tooldeck` CLI, run as a user runs it (a process of its own, so "exits" means the process
 * ended), against a stdio server that breaks the protocol's rules on purpose: it lists a tool name
 * twice, gives tools schemas that are not object schemas, or writes a traceback where a reply should
 * be. One-shot commands still end, say what was wrong on stderr, and keep the rest usable; text from
 * the server never reaches the terminal raw. (The same servers through the console's services:
 * main/mcp/connectionFailures.test.ts.)
 */
const misbehaving = resolve(import.meta.dirname, '../peers/mcp/MisbehavingServerForTests.mjs');
const server = (flag: string) => `"${process.execPath}" "${misbehaving}" ${flag}`;

/** Anything a terminal would act on: C0 controls but tab and line feed, DEL, C1 controls, bidi overrides. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTS_ON_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const running = new Set<ChildProcess>();
afterEach(() => {
  // A command that hung fails its test by the test's timeout; it must not outlive the test.
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** `tooldeck --data-dir <dataDir> …argv`, to its end (a command that never exits fails by the test's timeout). */
function tooldeck(dataDir: string, argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Run from an empty folder, so nothing of the repository (a workspace, a config) is picked up.
  const child = spawn(process.execPath, [cliPath, '--data-dir', dataDir, ...argv], { cwd: mkdtempSync(join(tmpdir(), 'tooldeck-cwd-')), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) =>
    child.on('close', (code) => {
      running.delete(child);
      done({ code, stdout, stderr });
    }),
  );
}

const toolNames = (stdout: string) => stdout.trimEnd().split('\n').map((line) => line.split(/\s+/)[0]);

describe('a server that lists one tool name twice', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-duplicates-'));
  const duplicates = server('--duplicate-tools');
  const warning = 'warning: adhoc: Tool "echo" is listed more than once; the first definition is used.\n';

  it('`mcp tools --stdio` lists each tool once, warns on stderr naming the duplicate, and exits 0', async () => {
    // It used to print `AlreadyExists …` and never exit.
    const tools = await tooldeck(dataDir, ['mcp', 'tools', '--stdio', duplicates]);
    expect(tools.code, tools.stderr).toBe(0);
    expect(toolNames(tools.stdout)).toEqual(['echo', 'add']);
    expect(tools.stderr).toBe(warning);
  });

  it('`mcp call --stdio` calls the unique tool, and the duplicated one by its first definition', async () => {
    const add = await tooldeck(dataDir, ['mcp', 'call', 'add', '--args', '{"a":2,"b":3}', '--stdio', duplicates]);
    expect(add).toEqual({ code: 0, stdout: '5\n', stderr: warning });
    const echo = await tooldeck(dataDir, ['mcp', 'call', 'echo', '--args', '{"message":"hi"}', '--stdio', duplicates]);
    expect(echo).toMatchObject({ code: 0, stdout: 'Echo: hi\n' });
  });

  it('saved, the server keeps every tool callable and reports the duplicate as its own problem', async () => {
    const saved = await tooldeck(dataDir, ['mcp', 'add', 'twice', '--stdio', duplicates]);
    expect(saved).toMatchObject({ code: 0, stdout: 'Saved twice — connected, 2 tools\n' });
    // It used to fail every tool with ToolNotFound, the unique ones too.
    const add = await tooldeck(dataDir, ['mcp', 'call', 'add', 'twice', '--args', '{"a":20,"b":22}']);
    expect(add).toEqual({ code: 0, stdout: '42\n', stderr: 'warning: twice: Tool "echo" is listed more than once; the first definition is used.\n' });
    const echo = await tooldeck(dataDir, ['mcp', 'call', 'echo', 'twice', '--args', '{"message":"saved"}']);
    expect(echo).toMatchObject({ code: 0, stdout: 'Echo: saved\n' });
  });
});

describe('a server with malformed tool schemas', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bad-schema-'));
  const malformed = server('--bad-schema');
  const warnings = [
    'warning: adhoc: Tool "broken" is unusable (inputSchema: Invalid input: expected object, received string); the other tools work.',
    'warning: adhoc: Tool "scalar" is unusable (inputSchema.type: Invalid input: expected "object"); the other tools work.',
  ];

  it('connects: the other tools are listed and callable, each broken one is named on stderr with its reason', async () => {
    // It used to fail to connect at all: `Cannot connect (listing)` and a zod dump.
    const tools = await tooldeck(dataDir, ['mcp', 'tools', '--stdio', malformed]);
    expect(tools.code, tools.stderr).toBe(0);
    expect(toolNames(tools.stdout)).toEqual(['echo', 'add']);
    expect(tools.stderr.trimEnd().split('\n')).toEqual(warnings);
    const add = await tooldeck(dataDir, ['mcp', 'call', 'add', '--args', '{"a":1,"b":2}', '--stdio', malformed]);
    expect(add).toMatchObject({ code: 0, stdout: '3\n' });
  });

  it('a call to a broken tool fails (exit 1), its reason already given', async () => {
    const scalar = await tooldeck(dataDir, ['mcp', 'call', 'scalar', '--stdio', malformed]);
    expect(scalar.code).toBe(1);
    expect(scalar.stderr).toContain(warnings[1]);
    expect(scalar.stderr).toContain('No tool "scalar" on adhoc. Tools: echo, add');
  });
});

describe('a server that writes garbage instead of a reply', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-garbage-'));
  const garbage = server('--garbage-reply');
  /** What the server wrote instead of its reply, as the error quotes it: its escape sequences spelled out. */
  const quoted = '«"Traceback (most recent call last): \\u001b[31mKeyError\\u001b[0m: something broke"»';

  it('the timeout names the garbage in a short excerpt, and no escape sequence of it reaches the terminal', async () => {
    // No reply ever comes: the call ends by its timeout, which now says what came instead. The
    // server writes its garbage as soon as the call arrives; 6 s leaves a loaded machine room to read it.
    const call = await tooldeck(dataDir, ['mcp', 'call', 'echo', '--args', '{"message":"hi"}', '--timeout', '6000', '--stdio', garbage]);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain(`Timeout: mcp:adhoc.echo did not answer within 6 s; the server wrote output that is not JSON-RPC meanwhile: ${quoted}.`);
    expect(call.stdout + call.stderr).not.toMatch(ACTS_ON_TERMINAL);

    const json = await tooldeck(dataDir, ['mcp', 'call', 'echo', '--args', '{"message":"hi"}', '--timeout', '6000', '--json', '--stdio', garbage]);
    expect(json.code).toBe(1);
    const { error } = JSON.parse(json.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('Timeout');
    expect(error.message).toContain(`meanwhile: ${quoted}`);
    expect(json.stdout + json.stderr).not.toMatch(ACTS_ON_TERMINAL);
  });
});
