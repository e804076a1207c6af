import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '../../main/core';
import { MAX_TOOLS_PER_BRIDGE } from '../../main/bus/peerIndex';
import type { Logger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { createCaller } from '../../main/rpc/router';
import type { BusOverview } from '../../shared/bus';
import { operatorCaller } from '../../shared/caller';
import { everythingStdio } from '../peers/mcp/everything';
import { startPrivateRabbitMq, type PrivateRabbitMq } from './privateRabbitMq';
import { RockBotShapedAgent } from './rockbotShapedAgent';
import { RockBotShapedBridge, type ShapedServer } from './rockbotShapedBridge';

/**
 * The other direction of RockBot's bus, on a real RabbitMQ broker (a private node): tools served by
 * other RockBot MCP bridges (RockBot-shaped bridges written on amqplib from RockBot's wire format)
 * become `bus:<agent>.<tool>` entries of Tooldeck's registry, called through its one pipeline while
 * Tooldeck's own bridge (serving server-everything) runs beside them on the same broker.
 */
const OWN_BRIDGE = 'tooldeck';
const permissions = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: no-deleting-cities
spec:
  tool_ref: "bus:weather.delete_city"
  operation_rules:
    - {operation_class: "*", verdict: deny}
---
apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: echo-for-scout
spec:
  tool_ref: "mcp:everything.echo"
  apply_mode: scoped
  target_agents: [scout]
  operation_rules:
    - {operation_class: "*", verdict: allow}
`;

let broker: PrivateRabbitMq;
let core: Core;
let weather: RockBotShapedBridge;
let archive: RockBotShapedBridge;
let scout: RockBotShapedAgent;
const warnings: string[] = [];
const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (message) => warnings.push(message), error: (message) => warnings.push(message) };

function weatherServers(): ShapedServer[] {
  return [
    {
      serverName: 'forecasts',
      tools: {
        forecast: {
          description: 'The forecast for a city',
          parametersSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          // Answers only once the archive bridge has said tool_not_found: the real answer comes second.
          run: async (args) => {
            await vi.waitFor(() => expect(archive.notFoundReplies).toBeGreaterThan(0), { timeout: 20_000 });
            return `sunny in ${String(args.city)}`;
          },
        },
        delete_city: { description: 'Deletes a city', parametersSchema: { type: 'object' }, run: () => 'deleted' },
        vanishing: { description: 'Listed, but gone by the time it is called', parametersSchema: { type: 'object' }, run: () => 'still here' },
      },
    },
    // The same server name and tool name as Tooldeck's own registry has: only the weather bridge may answer a call for it.
    { serverName: 'everything', tools: { echo: { description: 'The weather bridge’s echo', parametersSchema: { type: 'object', properties: { message: { type: 'string' } } }, run: (args) => `weather echo: ${String(args.message)}` } } },
  ];
}

async function call(name: string, args: Record<string, unknown>) {
  const outcome = await core.pipeline.invoke({ caller: operatorCaller('ui'), name, arguments: args });
  await core.history.flush();
  return outcome;
}

/** Waits until a queue of the broker holds no message, delivered or not: everything sent to it was handled. */
async function drained(queue: string) {
  await vi.waitFor(
    () => {
      const line = broker
        .ctl('list_queues', 'name', 'messages', '--no-table-headers', '--quiet')
        .split('\n')
        .find((row) => row.startsWith(`${queue}\t`));
      expect(line).toBe(`${queue}\t0`);
    },
    { timeout: 20_000, interval: 100 },
  );
}

beforeAll(async () => {
  broker = await startPrivateRabbitMq();
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-bus-peers-ws-'));
  writeFileSync(join(workspaceDir, 'permissions.yaml'), permissions);
  core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-bus-peers-')), secretStore: new MemorySecretStore(), logger });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.echo')).toBeDefined(), { timeout: 30_000 });
  // Bridges that were on the bus before Tooldeck: they announce again when Tooldeck's refresh request comes.
  weather = await RockBotShapedBridge.start(broker.url, 'weather', weatherServers());
  archive = await RockBotShapedBridge.start(broker.url, 'archive', [{ serverName: 'files', tools: { read_file: { description: 'Reads a file', parametersSchema: { type: 'object' }, run: () => 'contents' } } }]);
  // A RockBot agent as Tooldeck's bridge wants it: its own broker user, named in user_id (granted echo above).
  scout = await RockBotShapedAgent.connect(broker.addUser('scout', 'scout-pass'), 'scout', OWN_BRIDGE, { userId: 'scout' });
  await core.bus.start({ url: broker.url, agent: OWN_BRIDGE });
}, 120_000);

afterAll(async () => {
  await scout?.close();
  await weather?.close();
  await archive?.close();
  await core?.close();
  await broker?.stop();
}, 60_000);

describe('other RockBot bridges on the bus become bus:<agent>.<tool> entries', { timeout: 60_000 }, () => {
  it('lists the tools every other bridge announced, with descriptions and schemas from McpGetServiceDetailsRequest', async () => {
    await vi.waitFor(() => expect(core.catalog.get('bus:weather.forecast')?.description).toBe('The forecast for a city'), { timeout: 20_000 });
    expect(core.catalog.get('bus:weather.forecast')?.inputSchema).toMatchObject({ required: ['city'] });
    expect(core.catalog.get('bus:weather.forecast')?.source).toEqual({ kind: 'bus', name: 'weather' });
    await vi.waitFor(() => expect(core.catalog.get('bus:archive.read_file')).toBeDefined(), { timeout: 20_000 });
    expect(core.catalog.get('bus:weather.echo')).toBeDefined();
    // Tooldeck's own bridge announces too: never an entry of its own registry.
    expect(core.catalog.list().filter((entry) => entry.source.kind === 'bus' && entry.source.name === OWN_BRIDGE)).toEqual([]);
    expect(core.bus.status().discovery).toBe(true);
  });

  it('the console’s Bus section shows the other bridges and their tools', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    const watching = (await rpc.bus.watch())[Symbol.asyncIterator]();
    const first = (await watching.next()).value as BusOverview;
    await watching.return?.(undefined);
    expect(first.peers.map((peer) => peer.agent).sort()).toEqual(['archive', 'weather']);
    expect(first.peers.find((peer) => peer.agent === 'weather')?.servers).toEqual(
      expect.arrayContaining([expect.objectContaining({ serverName: 'forecasts', tools: ['forecast', 'delete_city', 'vanishing'] })]),
    );
  });

  it('calls through the pipeline over tool.invoke.mcp: the real answer wins over another bridge’s tool_not_found, and History records it', async () => {
    const outcome = await call('bus:weather.forecast', { city: 'Oslo' });
    expect(outcome.error).toBeUndefined();
    expect(outcome.result?.content).toEqual([{ type: 'text', text: 'sunny in Oslo' }]);
    expect(archive.notFoundReplies).toBeGreaterThan(0);
    const request = weather.requests.find((item) => item.toolName === 'forecast')!;
    // RockBot's envelope: the server header doubled, the destination named, the reply on Tooldeck's own topic.
    expect(request).toMatchObject({ server: 'forecasts', destination: 'mcp-bridge.weather', arguments: JSON.stringify({ city: 'Oslo' }), replyTo: expect.stringMatching(/^tool\.result\.tooldeck-[0-9a-f]{8}$/) });
    expect(Number(request.timeoutMs)).toBeGreaterThan(0);
    const record = await core.history.get(outcome.record.id);
    expect(record).toMatchObject({ sourceKind: 'bus', sourceName: 'weather', tool: 'forecast', status: 'ok', via: 'ui' });
    // The call's trace continues on the other bridge: the request carries its traceparent.
    expect(record?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(request.traceparent).toMatch(new RegExp(`^00-${record!.traceId}-[0-9a-f]{16}-0[01]$`));
  });

  it('a call the policy denies never reaches the bus', async () => {
    const denied = await call('bus:weather.delete_city', {});
    expect(denied.error).toMatchObject({ code: 'PolicyDenied', message: expect.stringContaining('no-deleting-cities') });
    expect(await core.history.get(denied.record.id)).toMatchObject({ status: 'denied', sourceKind: 'bus' });
    // A later call from the same publisher reaches the bridge after anything published before it.
    await call('bus:weather.echo', { message: 'after the denial' });
    expect(weather.requests.map((item) => item.toolName)).toContain('echo');
    expect(weather.requests.map((item) => item.toolName)).not.toContain('delete_city');
  });

  it('arguments the schema refuses never reach the bus either', async () => {
    const refused = await call('bus:weather.forecast', { town: 'Oslo' });
    expect(refused.error?.code).toBe('InvalidArguments');
    expect(weather.requests.filter((item) => item.toolName === 'forecast')).toHaveLength(1);
  });

  it('Tooldeck’s own bridge does not run Tooldeck’s own outgoing call, though its registry has the same server and tool', async () => {
    const before = core.bus.traffic.recent().length;
    const outcome = await call('bus:weather.echo', { message: 'loop?' });
    expect(outcome.result?.content).toEqual([{ type: 'text', text: 'weather echo: loop?' }]);
    await drained(`rockbot.mcp-bridge.${OWN_BRIDGE}`);
    expect(core.bus.traffic.recent()).toHaveLength(before);
    await core.history.flush();
    expect((await core.history.list({ via: 'bus' })).items).toEqual([]);
  });

  it('Tooldeck’s own bridge leaves a RockBot agent’s request addressed to another bridge (rb-destination) to that bridge', async () => {
    const before = core.bus.traffic.recent().length;
    const first = await scout.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c1', toolName: 'echo', arguments: JSON.stringify({ message: 'for weather' }), sessionId: null })), {
      replyTo: 'tool.result.scout',
      headers: { 'rb-destination': 'mcp-bridge.weather', 'rb-rb-mcp-server': 'everything' },
    });
    // RockBot's bridges ignore the destination (archive says tool_not_found); weather answers.
    await vi.waitFor(() => expect(scout.replies.get(first.correlationId!)?.find((item) => item.source === 'mcp-bridge.weather')?.body.content).toBe('weather echo: for weather'), { timeout: 20_000 });
    await drained(`rockbot.mcp-bridge.${OWN_BRIDGE}`);
    expect(core.bus.traffic.recent()).toHaveLength(before);
    expect(scout.replies.get(first.correlationId!)?.some((item) => item.source === `mcp-bridge.${OWN_BRIDGE}`)).toBe(false);
    // Addressed to Tooldeck's own bridge, the same request is served by it.
    const served = await scout.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c2', toolName: 'echo', arguments: JSON.stringify({ message: 'for tooldeck' }), sessionId: null })), {
      replyTo: 'tool.result.scout',
      headers: { 'rb-destination': `mcp-bridge.${OWN_BRIDGE}`, 'rb-rb-mcp-server': 'everything' },
    });
    await vi.waitFor(() => expect(scout.replies.get(served.correlationId!)?.some((item) => item.source === `mcp-bridge.${OWN_BRIDGE}` && item.body.content === 'Echo: for tooldeck')).toBe(true), { timeout: 20_000 });
  });

  it('Tooldeck’s own bridge never offers other bridges’ tools as its own', async () => {
    const count = scout.indexes.length;
    await core.bus.announce();
    await vi.waitFor(() => expect(scout.indexes.length).toBeGreaterThan(count), { timeout: 20_000 });
    const servers = (scout.indexes.at(-1)!.body.servers as { serverName: string }[]).map((server) => server.serverName);
    expect(servers).toEqual(['everything']);
  });

  it('fails with one sentence when every bridge known to be alive answers tool_not_found', async () => {
    weather.forgetTool('forecasts', 'vanishing');
    const outcome = await call('bus:weather.vanishing', {});
    expect(outcome.error).toMatchObject({ code: 'ToolNotFound', message: expect.stringMatching(/every bridge known to be alive \(.*mcp-bridge\.weather.*\) answered tool_not_found/) });
    expect(outcome.error?.message).toContain('mcp-bridge.archive');
  });

  it('removedServers removes a server’s entries, and the rest stay', async () => {
    await weather.removeServer('forecasts');
    await vi.waitFor(() => expect(core.catalog.get('bus:weather.forecast')).toBeUndefined(), { timeout: 20_000 });
    expect(core.catalog.get('bus:weather.delete_city')).toBeUndefined();
    expect(core.catalog.get('bus:weather.echo')).toBeDefined();
  });
});

describe('what a hostile peer announces is bounded and checked (hand-written hostile peer)', { timeout: 60_000 }, () => {
  it('ignores an agent named like a known one (case aside), a name with control characters, and an announcement claiming another bridge’s topic', async () => {
    const hostile = await RockBotShapedBridge.start(broker.url, 'hostile', []);
    try {
      await hostile.publishRaw('tool.meta.mcp.Weather', 'RockBot.Tools.Mcp.McpServersIndexed', { servers: [{ serverName: 'evil', toolNames: ['steal'] }], removedServers: [] }, { source: 'mcp-bridge.Weather' });
      await hostile.publishRaw('tool.meta.mcp.archive', 'RockBot.Tools.Mcp.McpServersIndexed', { servers: [{ serverName: 'files', toolNames: ['overwrite'] }], removedServers: [] }, { source: 'mcp-bridge.hostile' });
      await hostile.publishRaw('tool.meta.mcp.hostile', 'RockBot.Tools.Mcp.McpServersIndexed', { servers: [{ serverName: 'ok', toolNames: ['fine', 'bad\u0007bell', 'fine', 'FINE', 'x'.repeat(500)] }, { serverName: 'line\nbreak', toolNames: ['hidden'] }], removedServers: [] }, {});
      await vi.waitFor(() => expect(core.catalog.get('bus:hostile.fine')).toBeDefined(), { timeout: 20_000 });
      expect(core.catalog.list({ source: 'bus:hostile' }).map((entry) => entry.toolName)).toEqual(['fine']);
      expect(core.catalog.list().some((entry) => entry.name.startsWith('bus:Weather.'))).toBe(false);
      expect(core.catalog.get('bus:archive.overwrite')).toBeUndefined();
      expect(warnings.some((message) => message.includes('the same name but for case'))).toBe(true);
    } finally {
      await hostile.close();
    }
  });

  it('a peer that floods announcements ends with its last one, within the per-bridge bounds', async () => {
    const flooder = await RockBotShapedBridge.start(broker.url, 'flooder', []);
    try {
      for (let i = 0; i < 300; i++) {
        await flooder.publishRaw('tool.meta.mcp.flooder', 'RockBot.Tools.Mcp.McpServersIndexed', { servers: [{ serverName: 'churn', toolNames: [`tool_${i}`] }], removedServers: [] }, {});
      }
      const many = Array.from({ length: 100 }, (_, s) => ({ serverName: `s${s}`, toolNames: Array.from({ length: 20 }, (_, t) => `t${s}_${t}`) }));
      await flooder.publishRaw('tool.meta.mcp.flooder', 'RockBot.Tools.Mcp.McpServersIndexed', { servers: many, removedServers: ['churn'] }, {});
      await vi.waitFor(() => expect(core.catalog.list({ source: 'bus:flooder' })).toHaveLength(MAX_TOOLS_PER_BRIDGE), { timeout: 30_000 });
      expect(core.catalog.list({ source: 'bus:flooder' }).some((entry) => entry.toolName.startsWith('tool_'))).toBe(false);
    } finally {
      await flooder.close();
    }
  });
});

describe('the broker restarting', { timeout: 120_000 }, () => {
  it('Tooldeck reconnects, declares its discovery queue again and asks every bridge to announce again', async () => {
    // The refresh request Tooldeck sent when it joined has been handled.
    await vi.waitFor(() => expect(weather.refreshRequests).toBeGreaterThan(0), { timeout: 20_000 });
    const asked = weather.refreshRequests;
    await broker.restart();
    // RockBot's bridge reconnects by itself; its durable refresh queue kept what was published while it was away.
    await weather.reconnect();
    await vi.waitFor(() => expect(weather.refreshRequests).toBeGreaterThan(asked), { timeout: 60_000, interval: 200 });
    await vi.waitFor(() => expect(core.bus.status().state).toBe('connected'), { timeout: 60_000 });
    const outcome = await call('bus:weather.echo', { message: 'after the restart' });
    expect(outcome.error).toBeUndefined();
    expect(outcome.result?.content).toEqual([{ type: 'text', text: 'weather echo: after the restart' }]);
  });
});

describe('stopping the bus bridge', { timeout: 60_000 }, () => {
  it('takes the bus: entries out of the registry, and a bus: call then says how to reach the bus', async () => {
    await core.bus.stop();
    expect(core.catalog.list().filter((entry) => entry.source.kind === 'bus')).toEqual([]);
    await expect(core.sourceKinds.bus.prepare('weather')).rejects.toThrow(/start Tooldeck's bus bridge .* or name the broker in \$TOOLDECK_AMQP_URL/);
  });
});
