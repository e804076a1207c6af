import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operatorCaller } from '../../shared/caller';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createCaller } from './router';

const pod = `x-claw:
  pod: routertest
  tools-defaults:
    - service: everything
      allow: [echo]
services:
  reader:
    image: example/reader
    x-claw:
      cllama: passthrough
  builder:
    image: example/builder
    x-claw:
      cllama: passthrough
      tools:
        - ...
        - service: everything
          allow: [get-sum]
`;

const permission = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: planner-may-echo
spec:
  tool_ref: everything--echo
  apply_mode: scoped
  target_agents: [planner]
  operation_rules:
    - {operation_class: "*", verdict: allow}
`;

let core: Core;
const rpc = () => createCaller({ core, caller: operatorCaller('ui') });

beforeAll(async () => {
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-rpc-ws-'));
  writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
  writeFileSync(join(workspaceDir, 'planner.yaml'), permission);
  core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-gateway-rpc-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
}, 60_000);
afterAll(async () => {
  await core?.close();
});

/** The next value of a subscription that satisfies `matching`. */
async function nextMatching<T>(iterator: AsyncIterator<T>, matching: (value: T) => boolean): Promise<T> {
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) throw new Error('the subscription ended');
    if (matching(value)) return value;
  }
}

function agentClient(url: string, credential: string) {
  const client = new Client({ name: 'router-test-agent', version: '1' });
  return { client, transport: new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }) };
}

describe('gateway router (the console’s Gateway section)', { timeout: 60_000 }, () => {
  it('creates a credential shown once, refuses a bad name in one sentence, and lists each agent with the tools it is granted now', async () => {
    const overview = (await rpc().gateway.watch())[Symbol.asyncIterator]();
    expect((await overview.next()).value).toMatchObject({ status: { running: false }, agents: [] });

    const { credential } = await rpc().gateway.createCredential({ name: 'reader' });
    expect(credential).toMatch(/^reader:[A-Za-z0-9_-]{43}$/);
    // A credential created from the console reaches the live view without a reload.
    const next = await nextMatching(overview, (value) => value.agents.length === 1);
    await overview.return?.();
    expect(next.agents[0]).toMatchObject({ name: 'reader', granted: [{ name: 'everything.echo', entry: 'mcp:everything.echo' }], sessions: 0 });

    await rpc().gateway.createCredential({ name: 'builder' });
    const agents = await rpc().gateway.agents();
    expect(agents.find((agent) => agent.name === 'builder')?.granted.map((tool) => tool.name).sort()).toEqual(['everything.echo', 'everything.get-sum']);
    // The secret is returned once: nothing listed afterwards carries it.
    expect(JSON.stringify(agents)).not.toContain(credential.split(':')[1]);

    expect(await rpc().gateway.declaredAgents()).toEqual(['builder', 'planner', 'reader']);
    await expect(rpc().gateway.createCredential({ name: 'bad name:x' })).rejects.toThrow(/an agent name is 1–64 letters, digits, dots, dashes or underscores/);
  });

  it('starts on loopback only, shows an agent’s session and calls live, and revoking ends its session at once', async () => {
    await expect(rpc().gateway.start({ port: 0, host: '0.0.0.0' })).rejects.toThrow(/loopback address only, not 0\.0\.0\.0.*--dangerously-bind-all/);
    // A port already taken: one sentence saying so, and the section's status says it too.
    const squatter = createServer();
    await new Promise<void>((listening) => squatter.listen(0, '127.0.0.1', listening));
    const taken = (squatter.address() as { port: number }).port;
    await expect(rpc().gateway.start({ port: taken })).rejects.toThrow(`Port ${taken} is in use; pick another.`);
    expect(await rpc().gateway.status()).toEqual({ running: false, error: `Port ${taken} is in use; pick another.` });
    await new Promise((closed) => squatter.close(closed));
    const status = await rpc().gateway.start({ port: 0 });
    expect(status).toMatchObject({ running: true, host: '127.0.0.1', url: `http://127.0.0.1:${status.port}/mcp` });
    expect(await rpc().gateway.status()).toEqual(status);

    const { credential } = await rpc().gateway.createCredential({ name: 'reader' });
    const traffic = (await rpc().gateway.watchTraffic())[Symbol.asyncIterator]();
    const overview = (await rpc().gateway.watch())[Symbol.asyncIterator]();
    const { client, transport } = agentClient(status.url!, credential);
    await client.connect(transport);
    // The agents' view follows a session opening, without a call or a reload.
    await nextMatching(overview, (value) => value.agents.find((agent) => agent.name === 'reader')?.sessions === 1);
    await overview.return?.();
    const result = await client.callTool({ name: 'everything.echo', arguments: { message: 'seen live' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: seen live' }]);

    const seen = await nextMatching(traffic, (snapshot) => snapshot.calls.some((call) => call.agent === 'reader' && call.state === 'done'));
    expect(seen.calls.find((call) => call.agent === 'reader')).toMatchObject({ tool: 'mcp:everything.echo', state: 'done', status: 'ok', sessionId: transport.sessionId, recordId: expect.any(String) });
    expect(seen.sessions.find((session) => session.agent === 'reader')).toMatchObject({ id: transport.sessionId, era: '2025-11-25', clientName: 'router-test-agent', calls: 1 });
    expect((await rpc().gateway.agents()).find((agent) => agent.name === 'reader')).toMatchObject({ sessions: 1 });

    await rpc().gateway.revoke({ name: 'reader' });
    expect((await rpc().gateway.traffic()).sessions.filter((session) => session.agent === 'reader')).toEqual([]);
    expect((await rpc().gateway.agents()).find((agent) => agent.name === 'reader')).toMatchObject({ sessions: 0, revokedAt: expect.any(String) });
    await traffic.return?.();
    await client.close().catch(() => undefined);
    const again = agentClient(status.url!, credential);
    await expect(again.client.connect(again.transport)).rejects.toThrow(/403|not valid/);

    await expect(rpc().gateway.revoke({ name: 'reader' })).rejects.toThrow(/No agent named "reader" has a live credential/);
    expect(await rpc().gateway.stop()).toEqual({ running: false });
  });
});
