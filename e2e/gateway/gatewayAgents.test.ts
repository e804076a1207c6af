import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensurePythonPeers } from '../peers/python/pythonPeers';

/**
 * The gateway as an operator runs it — the built CLI, `tooldeck gateway` on its seeded example
 * workspace (server-everything, and a Clawdapus pod granting `reader` the echo tool) — with real
 * MCP clients as agents: the official TypeScript SDK, the official Python SDK and the MCP
 * Inspector's CLI.
 */
const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const inspector = join(root, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-cli-'));

function tooldeck(...args: string[]) {
  return spawnSync(process.execPath, [cli, '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 60_000 });
}

let gateway: ChildProcess;
let url: string;
let reader: string;

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
  const created = tooldeck('gateway', 'token', 'create', 'reader');
  expect(created.status).toBe(0);
  reader = created.stdout.trim().split('\n').at(-1)!;
  gateway = spawn(process.execPath, [cli, '--data-dir', dataDir, 'gateway', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((done, fail) => {
    let out = '';
    gateway.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Gateway listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (match) done(match[1]!);
    });
    gateway.once('exit', (code) => fail(new Error(`tooldeck gateway exited (${code}) before listening: ${out}`)));
  });
  // The example workspace's server starts in the background: the gateway offers echo once it is listed.
  await vi.waitFor(
    async () => {
      const client = await connect(reader);
      const { tools } = await client.listTools();
      await client.close();
      expect(tools.map((tool) => tool.name)).toContain('everything.echo');
    },
    { timeout: 45_000, interval: 250 },
  );
}, 90_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((done) => gateway.once('exit', done));
    gateway.kill('SIGTERM');
    await exited;
  }
});

async function connect(credential: string) {
  const client = new Client({ name: 'ts-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
  return client;
}

describe('tooldeck gateway with real MCP clients as agents', { timeout: 60_000 }, () => {
  it('token create prints NAME:SECRET as its last line, and the data dir never holds the secret', () => {
    expect(reader).toMatch(/^reader:[A-Za-z0-9_-]{43}$/);
    const secret = reader.split(':')[1]!;
    for (const file of readdirSync(dataDir)) {
      const path = join(dataDir, file);
      if (file.endsWith('.json')) expect(readFileSync(path, 'utf8')).not.toContain(secret);
    }
    const listed = JSON.parse(tooldeck('gateway', 'token', 'list', '--json').stdout);
    expect(listed).toEqual([{ name: 'reader', createdAt: expect.any(String) }]);
  });

  it('the official TypeScript SDK calls its granted tool, recorded in history under its name', async () => {
    const client = await connect(reader);
    const result = await client.callTool({ name: 'everything.echo', arguments: { message: 'from TypeScript' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: from TypeScript' }]);
    await client.close();
    const history = tooldeck('history', '--agent', 'reader', '--json');
    expect(history.status).toBe(0);
    expect(JSON.parse(history.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ agent: 'reader', via: 'gateway', tool: 'echo' })]));
  });

  it('the official Python SDK lists and calls through it', () => {
    const python = join(ensurePythonPeers(), 'python');
    const run = spawnSync(python, [join(import.meta.dirname, 'pythonAgent.py'), url, reader, 'everything.echo', '{"message": "from Python"}'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(out.tools).toEqual(['everything.echo']);
    expect(out.result.content).toEqual([{ type: 'text', text: 'Echo: from Python' }]);
  });

  it('the MCP Inspector’s CLI lists and calls through it', () => {
    const header = `Authorization: Bearer ${reader}`;
    const listed = spawnSync(process.execPath, [inspector, '--cli', url, '--transport', 'http', '--header', header, '--method', 'tools/list'], { encoding: 'utf8', timeout: 60_000 });
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toEqual(['everything.echo']);
    const called = spawnSync(process.execPath, [inspector, '--cli', url, '--transport', 'http', '--header', header, '--method', 'tools/call', '--tool-name', 'everything.echo', '--tool-arg', 'message=from the Inspector'], { encoding: 'utf8', timeout: 60_000 });
    expect(called.status, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout).content).toEqual([{ type: 'text', text: 'Echo: from the Inspector' }]);
  });

  it('serves one agent over stdio to an MCP host that launches it', async () => {
    const client = new Client({ name: 'stdio-host', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, '--data-dir', dataDir, 'gateway', '--stdio', '--agent', 'reader'], stderr: 'pipe' }));
    await vi.waitFor(async () => expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['everything.echo']), { timeout: 45_000, interval: 250 });
    const result = await client.callTool({ name: 'everything.echo', arguments: { message: 'over stdio' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: over stdio' }]);
    await client.close();
  });

  it('a credential revoked from another process ends the running gateway’s sessions at once', async () => {
    const temp = tooldeck('gateway', 'token', 'create', 'temp').stdout.trim().split('\n').at(-1)!;
    const client = await connect(temp);
    let closed = false;
    client.onclose = () => (closed = true);
    expect(tooldeck('gateway', 'token', 'revoke', 'temp').status).toBe(0);
    // The session is gone: its next request is refused (the credential) or finds no session.
    await vi.waitFor(async () => {
      const refused = await client.listTools().then(() => false, () => true);
      expect(refused || closed).toBe(true);
    });
    expect(tooldeck('gateway', 'token', 'revoke', 'nobody').status).toBe(1);
    expect(tooldeck('gateway', 'token', 'create', 'bad:name').status).toBe(2);
    await client.close().catch(() => undefined);
  });
});
