import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, startEverythingHttp, type RunningPeer } from '../../e2e/peers/mcp/everything';
import { createCore, type Core } from '../core';
import { silentLogger, type Logger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { gatewayReadiness, mcpSourceSync, type SourceSync } from './gatewayReadiness';
import { startGateway, type RunningGateway } from './GatewayServer';

const pod = `x-claw:
  pod: readiness
services:
  reader:
    image: example/reader
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [echo]
`;

const mcpServer = (name: string, url: string) => `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata:\n  name: ${name}\nspec:\n  transport: http\n  endpoint: ${JSON.stringify(url)}\n`;

let everything: RunningPeer;
const cores: Core[] = [];
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  everything = await startEverythingHttp('streamableHttp');
}, 60_000);

afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
  for (const core of cores.splice(0)) await core.close();
});

afterAll(async () => {
  await everything?.close();
});

/** A console process as `tooldeck gateway` makes it: its workspace's servers connect in the background from the start. */
async function coreWith(workspaceFiles: Record<string, string>) {
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-readiness-ws-'));
  for (const [file, text] of Object.entries(workspaceFiles)) writeFileSync(join(workspaceDir, file), text);
  const core = await createCore({ exampleWorkspace: false, workspaceDir, autoConnect: true, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-readiness-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  cores.push(core);
  return core;
}

async function listAs(url: string, credential: string) {
  const client = new Client({ name: 'agent-at-start', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('the gateway is ready when its sources are', { timeout: 90_000 }, () => {
  it("an agent listing its tools right after the gateway's first answer gets them, not []", async () => {
    const core = await coreWith({ 'everything.yaml': mcpServer('everything', everything.url), 'agents.claw-pod.yml': pod });
    const reader = await core.agents.credentials.create('reader');
    // Started at once, as `tooldeck gateway` does: the workspace's server is still connecting.
    const status = await core.gateway.start({ port: 0 });
    try {
      const base = status.url!.replace(/\/mcp$/, '');
      // The gateway's first answer is liveness: it is up, not necessarily synced.
      expect((await fetch(`${base}/health`)).status).toBe(200);
      // Straight after it, with no waiting of any kind: the list waits for the first sync instead.
      expect(await listAs(status.url!, reader)).toEqual(['everything.echo']);
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ ready: true, connected: ['mcp:everything'], pending: [] });
    } finally {
      await core.gateway.stop();
    }
  });

  it('/ready is 503 naming the sources still connecting while /health is 200; /ready rejects other methods', async () => {
    // Nothing listens on this port: the server stays in its reconnect loop, so the first sync cannot end.
    const offline = `http://127.0.0.1:${await freePort()}/mcp`;
    const core = await coreWith({ 'everything.yaml': mcpServer('everything', everything.url), 'offline.yaml': mcpServer('offline', offline), 'agents.claw-pod.yml': pod });
    const gateway = await startGateway({
      credentials: core.agents.admission,
      grants: core.agents.grants,
      traffic: core.agents.traffic,
      invoke: (call) => core.agents.invoke(call),
      logger: silentLogger,
      serverInfo: { name: 'tooldeck-gateway', version: '0' },
      sourceSync: mcpSourceSync(core.mcp, () => ['everything', 'offline']),
      firstSyncBoundMs: 10 * 60_000,
    });
    gateways.push(gateway);
    const base = gateway.url.replace(/\/mcp$/, '');
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { ready: boolean; connecting: string[] };
    expect(body.ready).toBe(false);
    expect(body.connecting).toContain('mcp:offline');
    expect((await fetch(`${base}/ready`, { method: 'POST' })).status).toBe(405);
    // Once everything is connected (the offline one aside), the report says so.
    await vi.waitFor(async () => expect(((await (await fetch(`${base}/ready`)).json()) as { connected: string[] }).connected).toEqual(['mcp:everything']), { timeout: 30_000, interval: 100 });
  });

  it('after its bound the gateway is ready with what is connected, and names the rest in the log', async () => {
    const warnings: Array<{ message: string; fields: unknown }> = [];
    const logger: Logger = { ...silentLogger, warn: (message, fields) => void warnings.push({ message, fields }) };
    // A hand-written source sync that never completes (a source that never comes up): only the bound ends the wait.
    const neverSyncingSourcesFake: SourceSync = {
      firstSync: (signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true })),
      progress: () => ({ connected: ['mcp:everything'], pending: ['mcp:offline'] }),
    };
    const readiness = gatewayReadiness(neverSyncingSourcesFake, { logger, boundMs: 50 });
    expect(readiness.status()).toEqual({ ready: false, connected: ['mcp:everything'], pending: ['mcp:offline'] });
    await readiness.whenReady();
    expect(readiness.ready).toBe(true);
    expect(warnings).toEqual([{ message: expect.stringContaining('did not all sync'), fields: { connected: ['mcp:everything'], pending: ['mcp:offline'] } }]);
  });

  it('a process that connects nothing at start is ready at once', async () => {
    const readiness = gatewayReadiness(undefined, { logger: silentLogger });
    expect(readiness.ready).toBe(true);
    await readiness.whenReady();
  });
});
