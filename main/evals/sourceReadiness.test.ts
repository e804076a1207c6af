import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LLMock } from '@copilotkit/aimock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { McpServerConfig } from '../../shared/mcp';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import type { PlaygroundEvent } from './Playground';
import { notConnectedSentence, sourceReadiness } from './sourceReadiness';
import { startScriptedModels } from './testing/scriptedModels';

/**
 * The console (autoConnect) on a fresh data folder with the seeded example: an eval run and a
 * Playground turn started the moment the core is up wait for the workspace's server everything
 * (server-everything over stdio) instead of calling its tools missing; sources that do not connect
 * are named, each with why, after a bounded wait.
 */
let core: Core;
let mock: LLMock;
/** Takes HTTP requests and never answers: a source that stays connecting. */
let silent: Server;

beforeAll(async () => {
  const models = await startScriptedModels();
  mock = models.mock;
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-readiness-'));
  core = await createCore({ appVersion: '0', host: 'web', autoConnect: true, dataDir, secretStore: new MemorySecretStore(), logger: silentLogger });
  await core.providers.add({ name: 'mock', format: 'openai', baseUrl: `${models.url}/v1`, apiKey: 'sk-test' });
}, 60_000);

afterAll(async () => {
  await mock?.stop();
  await core?.close();
  silent?.closeAllConnections();
  await new Promise((resolve) => silent?.close(resolve));
});

const statusOf = (name: string) => core.resources.reconciler.statuses().mcpServers.find((server) => server.name === name)?.status;

describe('sources connected before an eval or a Playground turn reads its tools (the console)', { timeout: 120_000 }, () => {
  it('an eval run and a turn started right after start-up use the workspace’s own server once it is connected', async () => {
    const events: PlaygroundEvent[] = [];
    const [run] = await Promise.all([
      core.evals.start({ file: 'evals/assistant.yml', models: ['mock/right'] }),
      core.playground.turn({ model: 'mock/right', agent: 'assistant', messages: [{ role: 'user', content: 'Please add 2 and 40' }], conversationId: 'first-turn' }, (event) => events.push(event)),
    ]);
    expect(run.notConnected).toBeUndefined();
    const answer = events.find((event) => event.type === 'answer');
    expect(answer).toMatchObject({ answer: 'The sum is 42.' });
    expect(events.filter((event) => event.type === 'progress' && event.line.startsWith('Not connected'))).toEqual([]);
    await vi.waitFor(() => expect(core.evals.get(run.id).state).toBe('done'), { timeout: 60_000 });
    expect(core.evals.get(run.id).report).toMatchObject({ suite: 'assistant', accuracy: 1 });
  });

  it('names each source that did not connect and why: refused, silent past the bound, disconnected by the user, launch not confirmed, an agent whose card cannot be read', async () => {
    await core.mcp.save({ config: McpServerConfig.parse({ name: 'refused', transport: 'http', url: 'http://127.0.0.1:1/mcp' }) });
    // Its save waits for a connection that never comes: not awaited.
    void core.mcp.save({ config: McpServerConfig.parse({ name: 'silent', transport: 'http', url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp` }) }).catch(() => undefined);
    await vi.waitFor(() => expect(core.mcp.connection('silent')?.state.status).toBe('connecting'), { timeout: 30_000 });
    await core.mcp.save({ config: everythingStdio('paused') as never });
    await core.mcp.whenConnected('paused');
    await core.mcp.disconnect('paused');
    // Written behind the console's back: its line was never confirmed for this folder.
    writeFileSync(join(core.resources.workspace.dir, 'unconfirmed.yaml'), `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata:\n  name: unconfirmed\nspec:\n  transport: stdio\n  command: \${node}\n  args: [-e, "setInterval(() => {}, 1000)"]\n`);
    await vi.waitFor(() => expect(core.resources.reconciler.statuses().mcpServers.find((server) => server.name === 'unconfirmed')?.status.unconfirmedLaunch).toBeDefined(), { timeout: 30_000 });

    // Another kind of source: an A2A agent whose card cannot be read.
    await core.a2a.save({ name: 'unreachable', url: 'http://127.0.0.1:1/' });

    const connect = sourceReadiness({ servers: core.servers, mcp: core.mcp, reconciler: core.resources.reconciler, sourceKinds: core.sourceKinds, console: true });
    const missing = await connect({ timeoutMs: 2_000 });
    const byId = Object.fromEntries(missing.map((source) => [source.id, source.reason]));
    expect(Object.keys(byId).sort()).toEqual(['a2a:unreachable', 'mcp:paused', 'mcp:refused', 'mcp:silent', 'mcp:unconfirmed']);
    expect(byId['a2a:unreachable']).not.toBe('');
    expect(byId['mcp:silent']).toBe('still connecting after 2 s');
    expect(byId['mcp:paused']).toBe('disconnected (connect it in Servers)');
    expect(byId['mcp:unconfirmed']).toMatch(/^launch not confirmed: /);
    // The line itself, for a host that offers to confirm it.
    expect(missing.find((source) => source.id === 'mcp:unconfirmed')?.launchLines).toEqual([statusOf('unconfirmed')!.unconfirmedLaunch]);
    expect(byId['mcp:refused']).not.toBe('');
    // A disconnected server stays so: waiting does not reconnect what the user stopped.
    expect(core.mcp.connection('paused')?.state.status).toBe('closed');
    expect(notConnectedSentence(missing)).toMatch(/^Not connected: ((a2a|mcp):\w+ \(.+\)(; |\.$)){5}/);
    // Only the sources a suite's hand-picked tools name are waited for.
    expect(await connect({ only: (id) => id === 'mcp:everything', timeoutMs: 2_000 })).toEqual([]);
  });
});
