import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { escapeTerminalControls, jsonForTerminal, safeForTerminal, safeLines, terminalMessage, terminalName } from './terminalText';
import { renderCard } from './commands/a2a';
import { formatDiff as formatKubeDiff, formatInventory } from './commands/kube';
import { formatGatewayReplicas } from './commands/kubeGateway';
import { describeAuthorization } from './commands/mcpAuth';
import { taskEventLine, taskLine } from './commands/mcpTasks';
import { prettyLoadSummary } from './commands/runLoad';
import { formatDiff as formatLockDiff, reviewLine } from './commands/lockOutput';
import { runTooldeck } from './testing/runTooldeck';

const hostileServer = `"${process.execPath}" "${join(import.meta.dirname, '../../e2e/peers/mcp/hostileTextServer.mjs')}"`;

/** What the hostile server puts in its names, descriptions, results and errors. */
const ESCAPES = '\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202e';
/** Anything a terminal would act on: C0 controls but tab and line feed, DEL, C1 controls, bidi overrides. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTS_ON_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Characters that hide or fake what a name says: zero-width, joiners, the byte order mark. */
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff]/;

/**
 * Pieces of hostile text, as a lock file, a workspace or a server can carry them: the OSC title
 * change and hyperlink, CSI line erase and colour, bare CR, BEL, NUL, DEL, C1 controls (0x80–0x9f,
 * CSI among them), bidi overrides and isolates, zero-width characters, and a line break followed by
 * a line of its own (FORGED) to pass for the command's output.
 */
const hostilePiece = fc.oneof(
  fc.constantFrom(
    '\u001b]0;pwned\u0007',
    '\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\',
    '\u001b[2K',
    '\u001b[1A',
    '\u001b[31m',
    '\u001bc',
    '\u009b2J',
    '\u009d0;pwned\u009c',
    '\u0085',
    '\u0090',
    '\u0080',
    '\u009f',
    '\r',
    '\u0007',
    '\u0008',
    '\u0000',
    '\u007f',
    '\u202e',
    '\u202d',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\u061c',
    '\u200f',
    '\u200b',
    '\u200d',
    '\u2060',
    '\ufeff',
  ),
  fc.constantFrom('\nFORGED every tool matches', '\rFORGED every tool matches', '\r\nFORGED every tool matches'),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: 0x80, max: 0x9f }).map((code) => String.fromCharCode(code)),
);
const hostileText = fc.array(hostilePiece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(''));
/** A line the output did not write itself: hostile text that broke out onto a line of its own. */
const FORGED_LINE = /(^|\n)FORGED/;

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
    const crashing = `"${process.execPath}" -e "process.stderr.write('boom\\u001b[2J\\u001b]0;pwned\\u0007\\nFORGED every tool matches'); process.exit(1)"`;
    const result = await run(dataDir, ['mcp', 'tools', '--stdio', crashing]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('boom\\e[2J\\e]0;pwned\\u{7}');
    expect(result.all).not.toMatch(ACTS_ON_TERMINAL);
    // What the server wrote on another line stays on the error's.
    expect(result.all).not.toMatch(FORGED_LINE);
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

describe('text from tooldeck.lock reaches the terminal made safe (fast-check)', () => {
  const hash = `sha256:${'a'.repeat(64)}`;

  it('lock status and lock verify, as text and as JSON, with generated hostile source and tool keys', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, hostileText, hostileText, async (sourceText, toolText, otherToolText) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-terminal-lock-'));
        mkdirSync(join(dataDir, 'workspace'));
        // A source key holds no whitespace (the lock's own rule); a tool key may hold anything.
        const source = `mcp:s${sourceText.replace(/\s/g, '')}`;
        const lock = { version: 1, sources: { [source]: { tools: { [`t${toolText}`]: { hash }, plain: { hash } } }, 'mcp:other': { tools: { [`u${otherToolText}`]: { hash } } } } };
        writeFileSync(join(dataDir, 'workspace', 'tooldeck.lock'), stringify(lock));
        for (const argv of [['lock', 'status'], ['lock', 'verify']]) {
          const text = await run(dataDir, argv);
          const context = `tooldeck ${argv.join(' ')} → ${text.code}\n${JSON.stringify(text.all)}`;
          expect(text.code, context).toBe(argv[1] === 'status' ? 0 : 1);
          expect(text.all, context).not.toMatch(ACTS_ON_TERMINAL);
          expect(text.all, context).not.toMatch(INVISIBLE);
          expect(text.all, context).not.toMatch(FORGED_LINE);
          // Nothing is lost: the hostile source is named, made safe.
          expect(text.stdout, context).toContain('mcp:s');

          const json = await run(dataDir, [...argv, '--json']);
          expect(json.all, context).not.toMatch(ACTS_ON_TERMINAL);
          expect(json.all, context).not.toMatch(INVISIBLE);
          // Still JSON, and parsed it gives the keys back exactly.
          const parsed = JSON.parse(json.stdout) as { sources?: Array<{ source: string; removed: Array<{ tool: string }> }>; drift?: Array<{ source: string }> };
          if (parsed.sources) expect(parsed.sources.find((entry) => entry.source === source)?.removed.map((tool) => tool.tool).sort()).toEqual([`t${toolText}`, 'plain'].sort());
          else expect(parsed.drift?.map((item) => item.source)).toContain(source);
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('text from a workspace reaches the terminal made safe (fast-check)', () => {
  it('file names, McpServer names and values in mcp list, reconcile and validate', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, async (hostile) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-terminal-workspace-'));
        const workspace = join(dataDir, 'workspace');
        mkdirSync(workspace);
        // A file name holds anything but "/" and NUL.
        const fileName = `servers${hostile.replaceAll('/', '').replaceAll('\u0000', '')}.yaml`;
        const server = { apiVersion: 'orloj.dev/v1', kind: 'McpServer', metadata: { name: 'hostile' }, spec: { transport: 'stdio', command: `/nonexistent/${hostile}`, args: [hostile, `--flag=${hostile}`] } };
        const misnamed = { ...server, metadata: { name: `bad${hostile}` } };
        writeFileSync(join(workspace, fileName), `${stringify(server)}---\n${stringify(misnamed)}`);
        for (const argv of [['mcp', 'list'], ['mcp', 'list', '--json'], ['reconcile', '--once'], ['validate', '-f', join(workspace, fileName)]]) {
          const result = await run(dataDir, argv);
          const context = `tooldeck ${argv.join(' ')} → ${result.code}\n${JSON.stringify(result.all)}`;
          expect([0, 1, 2, 3], context).toContain(result.code);
          expect(result.all, context).not.toMatch(ACTS_ON_TERMINAL);
          expect(result.all, context).not.toMatch(FORGED_LINE);
        }
      }),
      { numRuns: 8 },
    );
  });
});

describe('text from a hostile server reaches the terminal made safe (fast-check)', () => {
  const namesServer = `"${process.execPath}" "${join(import.meta.dirname, '../../e2e/peers/mcp/hostileNamesServerForTests.mjs')}"`;
  const hash = `sha256:${'b'.repeat(64)}`;

  it('tool names in mcp tools, lint findings, an elicitation, and lock status/verify of a saved server', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, async (hostile) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-terminal-server-'));
        mkdirSync(join(dataDir, 'workspace'));
        const env = ['--env', `HOSTILE_TEXT=${JSON.stringify(hostile)}`];
        const check = (result: { code: number; all: string }, argv: string[], names: boolean) => {
          const context = `tooldeck ${argv.join(' ')} → ${result.code}\n${JSON.stringify(result.all)}`;
          expect([0, 1], context).toContain(result.code);
          expect(result.all, context).not.toMatch(ACTS_ON_TERMINAL);
          expect(result.all, context).not.toMatch(FORGED_LINE);
          // Names (of tools and sources) and lint findings spell hidden characters out.
          if (names) expect(result.all, context).not.toMatch(INVISIBLE);
        };
        for (const argv of [
          ['mcp', 'tools', '--stdio', namesServer, ...env],
          ['lint', '--stdio', namesServer, ...env],
          ['mcp', 'call', 'ask', '--stdio', namesServer, ...env],
        ]) {
          const result = await run(dataDir, argv);
          check(result, argv, argv[0] === 'lint');
          expect(result.all).toContain(argv[2] === 'ask' ? 'Confirm ' : 't');
        }
        // A saved server the lock names: its tools are new and held, one locked tool is gone.
        const add = await run(dataDir, ['mcp', 'add', 'hostile', '--stdio', namesServer, ...env, '--no-connect']);
        expect(add.code, add.all).toBe(0);
        writeFileSync(join(dataDir, 'workspace', 'tooldeck.lock'), stringify({ version: 1, sources: { 'mcp:hostile': { tools: { [`gone${hostile}`]: { hash } } } } }));
        for (const argv of [['lock', 'status'], ['lock', 'verify']]) {
          const result = await run(dataDir, argv);
          check(result, argv, true);
          expect(result.stdout, result.all).toMatch(/new\b.* t/);
        }
      }),
      { numRuns: 8 },
    );
  });
});

describe('the line builders keep hostile text on its line (fast-check)', () => {
  /**
   * Builds the same output twice, once with hostile text in every field a peer or a file sets and
   * once with a plain word: the hostile text must add no line, act on nothing, hide nothing.
   */
  function checkBuilder(label: string, build: (text: string) => string, options: { names?: boolean } = {}) {
    fc.assert(
      fc.property(hostileText, (hostile) => {
        const output = build(hostile);
        const context = `${label}: ${JSON.stringify(output)}`;
        expect(output, context).not.toMatch(ACTS_ON_TERMINAL);
        expect(output, context).not.toMatch(FORGED_LINE);
        expect(output.split('\n').length, context).toBe(build('plain').split('\n').length);
        if (options.names) expect(output, context).not.toMatch(INVISIBLE);
      }),
      { numRuns: 300 },
    );
  }

  it('lock status and lock diff lines (names from tooldeck.lock and servers)', () => {
    checkBuilder('reviewLine', (text) => reviewLine({ tool: `t${text}`, state: 'renamed', previousName: `p${text}`, changes: [] } as never), { names: true });
    checkBuilder('reviewLine', (text) => reviewLine({ tool: `t${text}`, state: 'changed', changes: ['version', 'description'], version: `2${text}`, lockedVersion: `1${text}` } as never), { names: true });
    const part = (text: string) => [{ op: '=', text: `same${text}` }, { op: '-', text: `old${text}` }, { op: '+', text: `new${text}` }];
    checkBuilder(
      'lock diff',
      (text) =>
        formatLockDiff({
          source: `mcp:s${text}`,
          from: 'approved',
          to: 'current',
          counts: { changed: 1, renamed: 1, added: 1, removed: 0, unchanged: 0 },
          tools: [
            { change: 'changed', name: `t${text}`, fields: ['title', 'description', 'inputSchema'], title: part(text), description: part(text), version: { before: `1${text}`, after: `2${text}` }, inputSchema: [{ kind: 'changed', path: `/properties/p${text}`, before: text, after: `x${text}` }], outputSchema: [] },
            { change: 'renamed', name: `r${text}`, previousName: `q${text}`, fields: [], inputSchema: [], outputSchema: [] },
            { change: 'added', name: `a${text}`, fields: [], inputSchema: [], outputSchema: [], after: { description: `d${text}` } },
          ],
        } as never),
      { names: true },
    );
  });

  it('MCP task lines, OAuth status, a load run summary, kube inventory and diff, and an A2A card', () => {
    checkBuilder('taskLine', (text) => taskLine({ taskId: `id${text}`, status: `working${text}`, subject: `tool${text}`, createdAt: 0, statusMessage: `m${text}`, onServer: true, known: true } as never, 1_000));
    checkBuilder('taskEventLine', (text) => taskEventLine({ taskId: `id${text}`, at: 0, status: `working${text}`, statusMessage: `m${text}`, via: 'poll' } as never));
    checkBuilder('describeAuthorization', (text) =>
      describeAuthorization({ server: `s${text}`, state: 'signed-in', issuer: `https://issuer${text}`, scope: `read${text}`, tokenType: `Bearer${text}`, hasRefreshToken: true, steps: [], settings: { grant: 'authorization_code' } } as never),
    );
    checkBuilder('formatInventory', (text) =>
      formatInventory({ context: `c${text}`, server: `https://k${text}`, namespaces: [{ namespace: `ns${text}`, agents: [`a${text}`], tools: [{ name: `t${text}`, phase: `Ready${text}`, deploymentMode: `service${text}`, toolCount: 1, endpoint: `http://e${text}`, agents: [`a${text}`] }] }] } as never),
    );
    const figures = { p50: 1, p95: 2, p99: 3, p999: 4, max: 5 };
    checkBuilder('prettyLoadSummary', (text) =>
      prettyLoadSummary({
        connectFailures: [{ target: `mcp:t${text}`, error: { code: 'ConnectionFailed', message: `m${text}` } }],
        sent: 1,
        achievedRps: 1,
        askedRps: 1,
        requests: 1,
        dropped: 0,
        settings: { concurrency: 1 },
        latency: figures,
        serviceTime: figures,
        errors: 0,
        errorsByCode: {},
        perRequest: [{ name: `a${text}`, requests: 1, errors: 0, latency: figures }, { name: `b${text}`, requests: 1, errors: 0, latency: figures }],
        replicas: [{ replica: `pod${text}`, achievedRps: 1, errors: 0, latency: figures }],
        replicaDifferences: [{ request: `r${text}`, arguments: { text }, answers: [{ replicas: [`pod${text}`], answer: `x${text}` }] }],
        thresholds: [{ passed: false, expression: `p95<${text}`, message: `m${text}` }],
        runId: 'run',
        durationMs: 1,
        canceled: false,
      } as never).join('\n'),
    );
    checkBuilder(
      'formatGatewayReplicas',
      (text) =>
        formatGatewayReplicas({
          deployments: [{ namespace: `ns${text}`, name: `gw${text}`, replicas: 1, readyReplicas: 1, image: `img${text}` }],
          replicas: [
            { namespace: `ns${text}`, pod: `pod${text}`, ready: false, phase: `Phase${text}`, agents: [], problem: `p${text}` },
            { namespace: 'ns', pod: 'pod', ready: true, phase: 'Running', traffic: { calls: 1, errors: 0, held: 0, rateLimited: 0 }, agents: [{ agent: `agent${text}`, calls: 1, errors: 0, held: 0, approved: 0, refused: 0, rateLimited: 0 }] },
          ],
          problems: [],
        }),
      { names: true },
    );
    checkBuilder('kube formatDiff', (text) => formatKubeDiff([{ op: ' ', text: `a${text}` }, { op: '-', text: `b${text}` }, { op: '+', text: `c${text}` }]));
    checkBuilder('renderCard', (text) =>
      renderCard({
        cardUrl: `https://agent${text}/card`,
        card: {
          name: `n${text}`,
          version: `1${text}`,
          protocolVersion: `0.3${text}`,
          interfaces: [{ binding: `JSONRPC${text}`, url: `https://agent${text}`, protocolVersion: `0.3${text}` }],
          capabilities: { streaming: true },
          skills: [{ id: `s${text}`, name: `skill${text}`, description: `does${text}` }],
          securitySchemes: [{ name: `k${text}`, type: 'apiKey', detail: `header${text}` }],
        },
        rows: [{ id: 'card', status: 'pass', title: `t${text}`, detail: `d${text}` }],
      } as never),
    );
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

  it('terminalMessage keeps the lines of a message but indents every line after the first, so quoted text cannot start a line of its own', () => {
    expect(terminalMessage('Cannot connect: boom\nFORGED ok\r\n')).toBe('Cannot connect: boom\n  FORGED ok');
    expect(terminalMessage('one line')).toBe('one line');
  });

  it('terminalName spells out hidden characters and escapes controls, on one line', () => {
    expect(terminalName('pay\u200bpal\u001b]0;x\u0007\nnext')).toBe('pay⟦U+200B ZERO WIDTH SPACE⟧pal⟦U+001B ESCAPE (terminal control sequence)⟧]0;x⟦U+0007 BELL⟧\\nnext');
  });

  it('escapeTerminalControls, the last line of defence on every stream: lines and tabs kept, JSON and YAML read back the same', () => {
    expect(escapeTerminalControls('a\tb\nc\r\nd\re\u001b[2K\u009b\u202e')).toBe('a\tb\nc\r\nd\\re\\u001b[2K\\u009b\\u202e');
    const value = { text: `x${ESCAPES}\u0085\u2066` };
    // JSON.stringify and YAML leave C1 controls and bidi overrides raw; escaped, they parse back to the same value.
    const json = escapeTerminalControls(JSON.stringify(value));
    expect(json).not.toMatch(ACTS_ON_TERMINAL);
    expect(JSON.parse(json)).toEqual(value);
    const yaml = escapeTerminalControls(stringify(value));
    expect(yaml).not.toMatch(ACTS_ON_TERMINAL);
    expect(parseYaml(yaml)).toEqual(value);
  });
});
