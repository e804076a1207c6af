import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';

/**
 * The seeded example workspace through the console's own gateway, as a newcomer meets it: the
 * resolver's answer for `assistant` is what the gateway offers, and the pod file's
 * `resources: true` / `prompts: true` grant it the everything server's resources and prompts,
 * while `reader` (tools only) gets none of them. The official MCP SDK client is the agent.
 */
let core: Core;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  core = await createCore({ appVersion: '0', host: 'web', autoConnect: true, dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-example-agents-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.echo')).toBeDefined(), { timeout: 60_000 });
  url = (await core.gateway.start({ port: 0 })).url!;
}, 90_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await core?.close();
});

async function agent(name: string): Promise<Client> {
  const credential = await core.agents.credentials.create(name);
  const client = new Client({ name: `${name}-under-test`, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
  clients.push(client);
  return client;
}

describe('the example workspace’s agents through the gateway', { timeout: 60_000 }, () => {
  it('offers assistant exactly the tools the resolver grants it, each with where it is granted', async () => {
    const assistant = await agent('assistant');
    const offered = (await assistant.listTools()).tools.map((tool) => tool.name).sort();
    const view = await core.agents.show('assistant');
    const expected = view.tools.filter((tool) => !tool.withheld).map((tool) => tool.name.replace(/^mcp:/, '')).sort();
    expect(offered).toEqual(expected);
    expect(offered).toContain('everything.get-tiny-image');
    for (const tool of view.tools) expect(tool.grantedBy.length).toBeGreaterThan(0);
  });

  it('relays the everything server’s resources and prompts to assistant, whose pod grant says so, and to no one else', async () => {
    const assistant = await agent('assistant');
    expect((await assistant.listResources()).resources.length).toBeGreaterThan(0);
    expect((await assistant.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('everything.simple-prompt');
    const reader = await agent('reader');
    const readerResources = await reader.listResources().then((answer) => answer.resources, () => []);
    const readerPrompts = await reader.listPrompts().then((answer) => answer.prompts, () => []);
    expect([readerResources, readerPrompts]).toEqual([[], []]);
  });
});
