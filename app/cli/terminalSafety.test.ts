import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonForTerminal, safeForTerminal, safeLines } from './terminalText';
import { runTooldeck } from './testing/runTooldeck';

const hostileServer = `"${process.execPath}" "${join(import.meta.dirname, '../../e2e/peers/mcp/hostileTextServer.mjs')}"`;

/** What the hostile server puts in its names, descriptions, results and errors. */
const ESCAPES = '\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202e';
/** Anything a terminal would act on: C0 controls but tab and line feed, DEL, C1 controls, bidi overrides. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTS_ON_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

async function run(dataDir: string, argv: string[]) {
  const result = await runTooldeck(dataDir, argv);
  return { ...result, all: result.stdout + result.stderr };
}

describe('text from servers reaches the terminal made safe', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-terminal-'));

  it('tool names and descriptions, results, isError text, thrown errors, --json and history', { timeout: 60_000 }, async () => {
    const tools = await run(dataDir, ['mcp', 'tools', '--stdio', hostileServer]);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('shout\\e[2J\\e]0;pwned\\u{7}\\u{9b}31m\\u{202e}');

    const failed = await run(dataDir, ['mcp', 'call', 'fail', '--stdio', hostileServer]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('failure\\e[2J\\e]0;pwned\\u{7}\\u{9b}31m\\u{202e}\n');

    const thrown = await run(dataDir, ['mcp', 'call', 'throw', '--stdio', hostileServer]);
    expect(thrown.all).toContain('thrown\\e[2J');

    const json = await run(dataDir, ['mcp', 'call', 'throw', '--json', '--stdio', hostileServer]);
    // Still JSON, with the same text once parsed; every character a terminal would act on is a \u escape.
    expect(JSON.parse(json.stdout).content[0].text).toBe(`thrown${ESCAPES}`);

    const missing = await run(dataDir, ['mcp', 'call', 'nope', '--stdio', hostileServer]);
    expect(missing.stderr).toContain('Tools: shout\\e[2J');

    const history = await run(dataDir, ['history']);
    expect(history.stdout).toContain('mcp:adhoc');

    for (const result of [tools, failed, thrown, json, missing, history]) expect(result.all).not.toMatch(ACTS_ON_TERMINAL);
  });

  it('what a server prints on stderr when it cannot be connected to', { timeout: 30_000 }, async () => {
    const crashing = `"${process.execPath}" -e "process.stderr.write('boom\\u001b[2J\\u001b]0;pwned\\u0007'); process.exit(1)"`;
    const result = await run(dataDir, ['mcp', 'tools', '--stdio', crashing]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('boom\\e[2J\\e]0;pwned\\u{7}');
    expect(result.all).not.toMatch(ACTS_ON_TERMINAL);
  });
});

describe('text from files reaches the terminal made safe and short', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-terminal-files-'));

  it('a binary file is refused in one sentence (it echoed ~600 KB of raw bytes, escape sequences included)', async () => {
    const binary = join(dir, 'binary.yaml');
    const bytes = Buffer.alloc(600 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + 13) % 256;
    writeFileSync(binary, bytes);
    const result = await run(dir, ['validate', '-f', binary]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${binary} is not UTF-8 text (a binary file?); a resource file must be UTF-8.\n`);
  });

  it('diagnostics quoting a file with control characters are escaped, cut to a few hundred characters, and at most 50 are printed', async () => {
    const noisy = join(dir, 'noisy.yaml');
    // Valid UTF-8, full of escape sequences and long lines, broken on every line.
    const line = `key: "unterminated ${'\u001b[31m'.repeat(200)}${'x'.repeat(5_000)}\n`;
    writeFileSync(noisy, line.repeat(120));
    const result = await run(dir, ['validate', '-f', noisy]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(ACTS_ON_TERMINAL);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(52);
    for (const printed of lines) expect(printed.length).toBeLessThan(700);
    expect(result.stderr.length).toBeLessThan(40_000);
  });

  it('a collection file whose YAML errors quote control characters is reported safely', async () => {
    const collection = join(dir, 'bad.collection.yaml');
    // The YAML error quotes the broken line, escape sequences and all.
    writeFileSync(collection, `name: c\nrequests: [ "\u001b]0;pwned\u0007\u001b[2J\n`);
    const result = await run(dir, ['run', collection]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('\\e]0;pwned');
    expect(result.stderr).not.toMatch(ACTS_ON_TERMINAL);
  });
});

describe('terminalText', () => {
  it('safeLines keeps line feeds and escapes the rest; jsonForTerminal stays JSON', () => {
    expect(safeLines('a\nb\u001b[2J\tc\r')).toBe('a\nb\\e[2J\tc\\r');
    expect(safeLines('windows\r\nlines\r\n')).toBe('windows\nlines\n');
    expect(safeForTerminal('a\nb')).toBe('a\\nb');
    const value = { text: `x${ESCAPES}\u0085` };
    const json = jsonForTerminal(value);
    expect(json).not.toMatch(ACTS_ON_TERMINAL);
    expect(JSON.parse(json)).toEqual(value);
    expect(jsonForTerminal(undefined)).toBe('null');
  });
});
