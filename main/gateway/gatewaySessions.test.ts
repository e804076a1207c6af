import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { operatorCaller } from '../../shared/caller';
import { createCore, type Core } from '../core';
import { createCaller } from '../rpc/router';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { SESSION_GONE_GRACE_MS } from './GatewayServer';

/** Resolves once `check` holds, polling; fails with `what` after `timeoutMs`. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The Gateway section's "Connected sessions" reads the traffic record: an agent that exited must leave it. */
describe('gateway sessions end when their agent has gone', () => {
  let core: Core | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await core?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an agent (the official client SDK) that exits without a DELETE leaves Connected sessions; one that stays is kept', { timeout: 60_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-sessions-'));
    core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'web', dataDir: dir, secretStore: new MemorySecretStore(), logger: silentLogger });
    // As the Gateway section does it: switched on, a credential created, the sessions read back.
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    const { url } = await rpc.gateway.start({ port: 0 });
    const { credential } = await rpc.gateway.createCredential({ name: 'assistant' });
    const connect = async (name: string) => {
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
      return client;
    };
    let sessions: Array<{ clientName?: string }> = [];
    const read = async () => (sessions = (await rpc.gateway.traffic()).sessions);

    const leaving = await connect('leaving-agent');
    const staying = await connect('staying-agent');
    await until(async () => (await read()).length === 2, 'both sessions are open', 10_000);

    // What an exiting process leaves: its streams closed, no DELETE sent (close() does not terminate the session).
    await leaving.close();
    await until(async () => (await read()).length === 1, 'the exited agent has left', SESSION_GONE_GRACE_MS + 20_000);
    expect(sessions.map((session) => session.clientName)).toEqual(['staying-agent']);
    // The one that stayed still works in its session.
    expect(Array.isArray((await staying.listTools()).tools)).toBe(true);
    await staying.close();
  });
});
