import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { startGateway, type RunningGateway } from './GatewayServer';
import { mcpUpstreamFeatures, type SourceFeatureGrants } from './relayedFeatures';

// `reader` is granted everything's resources and prompts (and two tools that change them);
// `outsider` holds a credential and the same tools but no resources or prompts: deny by default.
const pod = `x-claw:
  pod: relay
services:
  reader:
    image: example/reader
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [echo, gzip-file-as-resource, toggle-subscriber-updates]
  outsider:
    image: example/outsider
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [echo]
  both:
    image: example/both
    x-claw:
      cllama: passthrough
`;

const grants: Record<string, SourceFeatureGrants> = {
  reader: new Map([['mcp:everything', { resources: true, prompts: true }]]),
  // Granted prompts of a source that does not exist: grants nothing, names nothing.
  outsider: new Map([['mcp:elsewhere', { resources: true, prompts: true }]]),
  // Two servers that list the very same URIs.
  both: new Map([
    ['mcp:everything', { resources: true, prompts: true }],
    ['mcp:twin', { resources: true, prompts: true }],
  ]),
};

let core: Core;
let gateway: RunningGateway;
let reader: string;
let outsider: string;
let both: string;
/** server-everything straight, as the agent would talk to it without Tooldeck. */
let direct: Client;
const clients: Client[] = [];

beforeAll(async () => {
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-relay-ws-'));
  writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
  core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-relay-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await core.mcp.save({ config: everythingStdio('twin') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.echo')).toBeDefined(), { timeout: 30_000 });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:twin.echo')).toBeDefined(), { timeout: 30_000 });
  reader = await core.agents.credentials.create('reader');
  outsider = await core.agents.credentials.create('outsider');
  both = await core.agents.credentials.create('both');
  gateway = await startGateway({
    credentials: core.agents.admission,
    grants: core.agents.grants,
    traffic: core.agents.traffic,
    invoke: (call) => core.agents.invoke(call),
    logger: silentLogger,
    serverInfo: { name: 'tooldeck-gateway', version: '0' },
    rate: { perSecond: 1000, burst: 1000 },
    upstream: mcpUpstreamFeatures(core.mcp),
    sourceGrants: (agent) => grants[agent] ?? new Map(),
  });
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const config = everythingStdio('direct') as { command: string; args: string[] };
  direct = new Client({ name: 'direct', version: '1' });
  await direct.connect(new StdioClientTransport({ command: config.command, args: config.args, stderr: 'ignore' }));
}, 90_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await direct?.close();
  await gateway?.close();
  await core?.close();
});

async function agent(credential: string) {
  const client = new Client({ name: 'agent-under-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
  clients.push(client);
  return client;
}

describe('resources, prompts and completion through the gateway', { timeout: 60_000 }, () => {
  it('declares them, and lists what the granted source lists, each item naming its source', async () => {
    const client = await agent(reader);
    expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} });
    const upstream = await direct.listResources();
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(upstream.resources.map((resource) => resource.uri));
    expect(resources.every((resource) => resource._meta?.['dev.tooldeck/source'] === 'mcp:everything')).toBe(true);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual((await direct.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual((await direct.listPrompts()).prompts.map((prompt) => `everything.${prompt.name}`));
  });

  it('reads a listed resource and a template expansion as the server answers them', async () => {
    const client = await agent(reader);
    const listed = (await direct.listResources()).resources[0]!.uri;
    expect(await client.readResource({ uri: listed })).toEqual(await direct.readResource({ uri: listed }));
    const dynamic = 'demo://resource/dynamic/text/7';
    // Made on the fly (its text carries the time it was made): the same shape and resource, not the same second.
    const [read] = (await client.readResource({ uri: dynamic })).contents;
    const [expected] = (await direct.readResource({ uri: dynamic })).contents;
    expect(read).toEqual({ ...expected, text: expect.stringMatching(/^Resource 7: /) });
  });

  it('gets a prompt by its gateway name, with arguments, and completes its arguments', async () => {
    const client = await agent(reader);
    const got = await client.getPrompt({ name: 'everything.args-prompt', arguments: { city: 'Lisbon' } });
    expect(got).toEqual(await direct.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon' } }));
    const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'everything.completable-prompt' }, argument: { name: 'department', value: 'S' } });
    expect(completed.completion.values).toEqual(['Sales', 'Support']);
    await expect(client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon' } })).rejects.toThrow(/Unknown prompt/);
  });

  it('relays a subscribed resource’s updates, and the list_changed of a source whose resources changed', async () => {
    const client = await agent(reader);
    const uri = 'demo://resource/dynamic/text/1';
    const updated: string[] = [];
    const { ResourceUpdatedNotificationSchema, ResourceListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
    let listChanged = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++);
    await client.subscribeResource({ uri });
    // server-everything sends updates for its session's subscriptions once asked (every 5 s); the gateway's connection is that session.
    await client.callTool({ name: 'everything.toggle-subscriber-updates', arguments: {} });
    await vi.waitFor(() => expect(updated).toContain(uri), { timeout: 30_000, interval: 100 });
    await client.callTool({ name: 'everything.toggle-subscriber-updates', arguments: {} });
    await client.unsubscribeResource({ uri });

    // A session resource registered by a tool: the server's list changes, the agent is told and sees it.
    const data = `data:text/plain;base64,${Buffer.from('relayed').toString('base64')}`;
    await client.callTool({ name: 'everything.gzip-file-as-resource', arguments: { name: 'relayed.gz', data } });
    await vi.waitFor(() => expect(listChanged).toBeGreaterThan(0), { timeout: 30_000, interval: 100 });
    await vi.waitFor(async () => expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain('demo://resource/session/relayed.gz'), { timeout: 30_000, interval: 100 });
  });

  it('a 2026-07-28 agent’s subscriptions/listen gets a granted resource’s updates; a resource it may not read is left out of what is honored', async () => {
    const uri = 'demo://resource/dynamic/text/2';
    const listenAs = async (credential: string) => {
      const client = new ModernClient({ name: 'agent-2026', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
      await client.connect(new ModernTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (notification) => void updated.push(notification.params.uri));
      return { client, updated, subscription: await client.listen({ resourceSubscriptions: [uri] }) };
    };
    const outsiders = await listenAs(outsider);
    expect(outsiders.subscription.honoredFilter.resourceSubscriptions ?? []).toEqual([]);
    const readers = await listenAs(reader);
    expect(readers.subscription.honoredFilter.resourceSubscriptions).toEqual([uri]);
    const tools = await agent(reader);
    await tools.callTool({ name: 'everything.toggle-subscriber-updates', arguments: {} });
    try {
      await vi.waitFor(() => expect(readers.updated).toContain(uri), { timeout: 30_000, interval: 100 });
    } finally {
      await tools.callTool({ name: 'everything.toggle-subscriber-updates', arguments: {} });
    }
    expect(outsiders.updated).toEqual([]);
    for (const { client, subscription } of [readers, outsiders]) {
      await subscription.close();
      await client.close();
    }
  });

  it('a change that may change grants tells every session its resource and prompt lists changed, as its tool list', async () => {
    const client = await agent(reader);
    const { ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const told: string[] = [];
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void told.push('resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void told.push('prompts'));
    // Told again at each look: a notification sent before the client's event stream is open has nowhere to go.
    await vi.waitFor(
      () => {
        gateway.toolsChanged();
        expect(told).toEqual(expect.arrayContaining(['resources', 'prompts']));
      },
      { timeout: 30_000, interval: 200 },
    );
  });

  it('two granted sources serving the same URI: a read names both instead of guessing; their prompts stay apart by source', async () => {
    const client = await agent(both);
    const listed = (await direct.listResources()).resources[0]!.uri;
    const sources = (await client.listResources()).resources.filter((resource) => resource.uri === listed).map((resource) => resource._meta?.['dev.tooldeck/source']);
    expect(sources).toEqual(['mcp:everything', 'mcp:twin']);
    await expect(client.readResource({ uri: listed })).rejects.toThrow(/more than one source granted to you \(mcp:everything, mcp:twin\)/);
    const names = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(names).toEqual(expect.arrayContaining(['everything.simple-prompt', 'twin.simple-prompt']));
    expect(await client.getPrompt({ name: 'twin.simple-prompt' })).toEqual(await direct.getPrompt({ name: 'simple-prompt' }));
  });

  it('an agent not granted a source’s resources and prompts sees none, reads none and completes none (deny by default)', async () => {
    const client = await agent(outsider);
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    const listed = (await direct.listResources()).resources[0]!.uri;
    await expect(client.readResource({ uri: listed })).rejects.toThrow(/not found/i);
    await expect(client.subscribeResource({ uri: listed })).rejects.toThrow(/not found/i);
    await expect(client.getPrompt({ name: 'everything.simple-prompt' })).rejects.toThrow(/Unknown prompt/);
    await expect(client.complete({ ref: { type: 'ref/prompt', name: 'everything.completable-prompt' }, argument: { name: 'department', value: 'S' } })).rejects.toThrow(/Unknown prompt/);
    // Its tools are as before.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['everything.echo']);
  });
});
