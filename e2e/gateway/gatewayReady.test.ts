import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Ready means ready, as an operator runs it: `tooldeck gateway` (the built CLI) on its seeded example
 * workspace, whose server-everything starts in the background. An agent that lists its tools the
 * moment the gateway first answers gets them — the list waits for the sources' first sync — and
 * `/ready` says so, while `/health` only ever said the process is up.
 */
const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-ready-'));
let gateway: ChildProcess | undefined;

afterAll(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((done) => gateway!.once('exit', done));
    gateway.kill('SIGTERM');
    await exited;
  }
});

describe('tooldeck gateway answers an agent’s first tools/list only after its sources’ first sync', { timeout: 90_000 }, () => {
  it('an agent listing right after the gateway’s first answer gets its tools, not []; /ready is then 200', async () => {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
    const created = spawnSync(process.execPath, [cli, '--data-dir', dataDir, 'gateway', 'token', 'create', 'reader'], { encoding: 'utf8', timeout: 60_000 });
    expect(created.status, created.stderr).toBe(0);
    const reader = created.stdout.trim().split('\n').at(-1)!;
    gateway = spawn(process.execPath, [cli, '--data-dir', dataDir, 'gateway', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((done, fail) => {
      let out = '';
      gateway!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /Gateway listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
        if (match) done(match[1]!);
      });
      gateway!.once('exit', (code) => fail(new Error(`tooldeck gateway exited (${code}) before listening: ${out}`)));
    });
    const base = url.replace(/\/mcp$/, '');
    // Its first answer: alive.
    expect((await fetch(`${base}/health`)).status).toBe(200);
    // At once, no waiting of any kind: an agent starting beside the gateway does just this.
    const client = new Client({ name: 'agent-at-start', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${reader}` } } }));
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((tool) => tool.name)).toContain('everything.echo');
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, pending: [] });
  });
});
