import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BusBridge } from '../../main/bus/BusBridge';
import { createCore, type Core } from '../../main/core';
import type { Logger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { isAppError } from '../../shared/errors';
import { everythingStdio } from '../peers/mcp/everything';
import { startPrivateRabbitMq, type PrivateRabbitMq } from './privateRabbitMq';
import { RockBotShapedAgent } from './rockbotShapedAgent';

/**
 * Who is calling over RockBot's bus, and what it may call: on a private RabbitMQ node with several
 * broker users (alice and bob are agents; the bridge has its own user), the calling agent is the
 * AMQP `user_id` the broker validated, never the `rb-source` claim (unless the bridge is told to
 * trust it), replies are cached per request — not per message id — and an agent is served only
 * the tools granted to it. Real broker, the core's bridge, pipeline and grants resolver,
 * server-everything behind the bridge; the agents are RockBot-shaped (amqplib) and connect as their
 * own broker users.
 */
const BRIDGE = 'vouching';
/** The workspace grants (Orloj scoped ToolPermissions): alice echo and get-sum; bob and carol echo; dave nothing. */
const grants = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: echo-for-alice-bob-carol
spec:
  tool_ref: everything--echo
  apply_mode: scoped
  target_agents: [alice, bob, carol]
  operation_rules:
    - {operation_class: "*", verdict: allow}
---
apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: sums-for-alice
spec:
  tool_ref: everything--get-sum
  apply_mode: scoped
  target_agents: [alice]
  operation_rules:
    - {operation_class: "*", verdict: allow}
`;

let broker: PrivateRabbitMq;
let core: Core;
let bridge: BusBridge;
let bridgeUrl: string;
let aliceUrl: string;
let alice: RockBotShapedAgent;
let bob: RockBotShapedAgent;
const logger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  broker = await startPrivateRabbitMq();
  bridgeUrl = broker.addUser('bridge', 'bridge-pass');
  aliceUrl = broker.addUser('alice', 'alice-pass');
  const bobUrl = broker.addUser('bob', 'bob-pass');
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-bus-identity-ws-'));
  writeFileSync(join(workspaceDir, 'grants.yaml'), grants);
  core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-bus-identity-')), secretStore: new MemorySecretStore(), logger });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
  bridge = core.bus;
  alice = await RockBotShapedAgent.connect(aliceUrl, 'alice', BRIDGE, { userId: 'alice' });
  bob = await RockBotShapedAgent.connect(bobUrl, 'bob', BRIDGE, { userId: 'bob' });
  await bridge.start({ url: bridgeUrl, agent: BRIDGE, discover: false });
}, 120_000);

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await core?.close();
  await broker?.stop();
}, 60_000);

describe('bus identity: the broker vouches for the calling agent (user_id)', { timeout: 60_000 }, () => {
  it('runs a call as the agent in user_id, and says so in the status', async () => {
    expect(bridge.status()).toMatchObject({ state: 'connected', trustRbSource: false });
    const reply = await alice.invoke('echo', { message: 'from alice' });
    expect(reply.body).toMatchObject({ content: 'Echo: from alice', isError: false });
    expect((await core.history.list({ via: 'bus', agent: 'alice', text: 'from alice' })).items).toEqual([expect.objectContaining({ agent: 'alice', status: 'ok' })]);
    // rb-source may be left out: the broker's word is enough.
    const withoutSource = await alice.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', invokeBody('echo', { message: 'anonymous header' }), { replyTo: 'tool.result.alice', source: null });
    expect(withoutSource.body.content).toBe('Echo: anonymous header');
  });

  it('refuses a publisher authenticated as alice, with user_id alice, that claims rb-source bob', async () => {
    const reply = await alice.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', invokeBody('echo', { message: 'posing as bob' }), { replyTo: 'tool.result.alice', source: 'bob' });
    expect(reply.type).toBe('RockBot.Tools.ToolError');
    expect(reply.body).toMatchObject({ code: 'invalid_arguments', isRetryable: false, message: expect.stringContaining('claims to come from "bob" (rb-source) but the broker vouches for "alice" (user_id)') });
    expect((await core.history.list({ via: 'bus', text: 'posing as bob' })).items).toEqual([]);
    expect(bridge.traffic.recent().at(-1)).toMatchObject({ agent: 'alice', outcome: 'invalid_arguments' });
  });

  it('a publisher connected as alice cannot set user_id bob: the broker itself refuses the message (PRECONDITION_FAILED) and closes the channel', async () => {
    const before = bridge.traffic.recent().length;
    const connection = await amqp.connect(aliceUrl);
    try {
      const channel = await connection.createConfirmChannel();
      const closedWith = new Promise<{ code?: number; message: string }>((resolve) => channel.once('error', resolve));
      const published = new Promise<unknown>((resolve) =>
        channel.publish('rockbot', 'tool.invoke.mcp', invokeBody('echo', { message: 'forged user_id' }), { userId: 'bob', messageId: 'forged', type: 'RockBot.Tools.ToolInvokeRequest', replyTo: 'tool.result.bob', contentType: 'application/json', headers: { 'rb-source': 'bob' } }, (error: unknown) => resolve(error)),
      );
      const error = await closedWith;
      expect(error.code).toBe(406);
      expect(error.message).toMatch(/PRECONDITION_FAILED - user_id property set to 'bob' but authenticated user was 'alice'/);
      expect(await published).toBeTruthy();
    } finally {
      await connection.close().catch(() => undefined);
    }
    // Nothing reached the bridge: a request after it is the next thing it sees.
    await bob.invoke('echo', { message: 'after the forgery' });
    expect(bridge.traffic.recent().slice(before).map((exchange) => exchange.messageId)).not.toContain('forged');
    expect((await core.history.list({ via: 'bus', text: 'forged user_id' })).items).toEqual([]);
  });

  it('refuses a message without user_id with a ToolError that says why and what to do', async () => {
    const reply = await alice.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', invokeBody('echo', { message: 'no user_id' }), { replyTo: 'tool.result.alice', userId: null });
    expect(reply.type).toBe('RockBot.Tools.ToolError');
    expect(reply.body).toMatchObject({ code: 'invalid_arguments', isRetryable: false, message: expect.stringMatching(/^The request has no user_id: .*RabbitMQ checks .*--trust-rb-source/) });
    expect((await core.history.list({ via: 'bus', text: 'no user_id' })).items).toEqual([]);
    // It is counted under no agent: a claim is not an identity.
    expect(bridge.traffic.recent().at(-1)).not.toHaveProperty('agent');
    const details = await alice.request('mcp.manage', 'RockBot.Tools.Mcp.McpGetServiceDetailsRequest', Buffer.from(JSON.stringify({ serverName: 'everything' })), { replyTo: 'mcp.manage.response.alice', userId: null });
    expect(details.body).toMatchObject({ tools: [], error: expect.stringMatching(/has no user_id/) });
  });
});

describe('bus grants: an agent gets only the tools granted to it (deny by default)', { timeout: 60_000 }, () => {
  it('runs a granted tool and refuses an ungranted one as not granted to the agent', async () => {
    expect((await alice.invoke('get-sum', { a: 2, b: 3 })).body.content).toMatch(/5/);
    const refused = await bob.invoke('get-sum', { a: 2, b: 3 });
    expect(refused.type).toBe('RockBot.Tools.ToolError');
    expect(refused.body).toMatchObject({ code: 'tool_not_found', isRetryable: false, toolName: 'get-sum', message: expect.stringContaining('mcp:everything.get-sum is not granted to bob') });
    expect((await core.history.list({ via: 'bus', agent: 'bob', tool: 'get-sum' })).items).toEqual([]);
    // A tool nobody has is still simply not found.
    expect((await bob.invoke('no-such-tool', {})).body).toMatchObject({ code: 'tool_not_found', message: expect.stringContaining("No server in Tooldeck's registry") });
  });

  it('McpGetServiceDetailsRequest lists only the asking agent’s granted tools', async () => {
    const forBob = await bob.manage('McpGetServiceDetailsRequest', { serverName: 'everything' });
    expect((forBob.body.tools as { name: string }[]).map((tool) => tool.name)).toEqual(['echo']);
    const forAlice = await alice.manage('McpGetServiceDetailsRequest', { serverName: 'everything' });
    expect((forAlice.body.tools as { name: string }[]).map((tool) => tool.name).sort()).toEqual(['echo', 'get-sum']);
    const stranger = await RockBotShapedAgent.connect(broker.addUser('dave', 'dave-pass'), 'dave', BRIDGE, { userId: 'dave' });
    try {
      const forDave = await stranger.manage('McpGetServiceDetailsRequest', { serverName: 'everything' });
      expect(forDave.body).toMatchObject({ tools: [], error: 'The tools of everything are not granted to dave.' });
      expect((await stranger.invoke('echo', { message: 'x' })).body).toMatchObject({ code: 'tool_not_found', message: expect.stringContaining('not granted to dave') });
    } finally {
      await stranger.close();
    }
  });

  it('still announces every server (McpServersIndexed is a broadcast, not a grant)', async () => {
    await bridge.announce();
    await vi.waitFor(() => expect(bob.indexes.length).toBeGreaterThan(0), { timeout: 20_000 });
    const everything = (bob.indexes.at(-1)!.body.servers as { serverName: string; toolNames: string[] }[]).find((server) => server.serverName === 'everything');
    expect(everything?.toolNames).toEqual(expect.arrayContaining(['echo', 'get-sum']));
  });
});

describe('bus reply cache: keyed by message id, agent, reply-to and body', { timeout: 60_000 }, () => {
  it('gives another agent reusing a message id, with other arguments and another reply_to, its own result', async () => {
    const messageId = crypto.randomUUID().replaceAll('-', '');
    const first = await alice.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', invokeBody('echo', { message: `alice ${messageId}` }), { replyTo: 'tool.result.alice', messageId });
    expect(first.body.content).toBe(`Echo: alice ${messageId}`);
    const second = await bob.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', invokeBody('echo', { message: `bob ${messageId}` }), { replyTo: 'tool.result.bob', messageId });
    expect(second.body.content).toBe(`Echo: bob ${messageId}`);
    expect((await core.history.list({ via: 'bus', agent: 'bob', text: `bob ${messageId}` })).items).toHaveLength(1);
  });

  it('answers a redelivery of the same request from the cache: it runs once', async () => {
    const messageId = crypto.randomUUID().replaceAll('-', '');
    const correlationId = crypto.randomUUID().replaceAll('-', '');
    const body = invokeBody('echo', { message: `twice ${messageId}` });
    for (let delivery = 0; delivery < 2; delivery++) await alice.publish('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', body, { messageId, correlationId, replyTo: 'tool.result.alice' });
    await vi.waitFor(() => expect(alice.replies.get(correlationId)?.length).toBe(2), { timeout: 20_000 });
    expect(alice.replies.get(correlationId)!.map((reply) => reply.body.content)).toEqual([`Echo: twice ${messageId}`, `Echo: twice ${messageId}`]);
    expect((await core.history.list({ via: 'bus', text: `twice ${messageId}` })).items).toHaveLength(1);
    // One of the two deliveries ran, the other was answered from the cache (which one the traffic lists last depends on timing);
    // The traffic notes the outcome just after the reply goes out: waited for, not assumed.
    await vi.waitFor(() =>
      expect(bridge.traffic.recent().filter((exchange) => exchange.messageId === messageId)).toEqual(expect.arrayContaining([expect.objectContaining({ agent: 'alice', outcome: 'ok' }), expect.objectContaining({ outcome: 'replayed' })])),
    );
  });
});

describe('dead letters keep their user_id when replayed', { timeout: 60_000 }, () => {
  it('a letter from alice goes back only when the bridge’s broker user may publish as alice (tagged impersonator)', async () => {
    const dlq = `rockbot.mcp-bridge.${BRIDGE}.dlq`;
    const correlationId = crypto.randomUUID().replaceAll('-', '');
    const stranded = await alice.publish(dlq, 'RockBot.Tools.ToolInvokeRequest', invokeBody('echo', { message: 'stranded' }), { exchange: '', correlationId, replyTo: 'tool.result.alice' });
    await vi.waitFor(() => expect(queueDepth(dlq)).toBe(1), { timeout: 20_000 });
    const refused = await bridge.replayDeadLetters([stranded]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isAppError(refused) && refused.message).toMatch(/0 dead letters went back; 1 stays .*user_id "alice".*impersonator/);
    expect(queueDepth(dlq)).toBe(1);
    // The bridge still answers: the refused copy closed only the replay's own channel.
    expect((await alice.invoke('echo', { message: 'still serving' })).body.content).toBe('Echo: still serving');

    // RabbitMQ reads a user's tags when it connects: the bridge reconnects once its user may impersonate.
    broker.ctl('set_user_tags', 'bridge', 'impersonator');
    await bridge.stop();
    await bridge.start({ url: bridgeUrl, agent: BRIDGE, discover: false });
    expect(await bridge.replayDeadLetters([stranded])).toBe(1);
    expect((await alice.replyTo(correlationId)).body.content).toBe('Echo: stranded');
    expect((await core.history.list({ via: 'bus', agent: 'alice', text: 'stranded' })).items).toHaveLength(1);
  });
});

describe('--trust-rb-source: for brokers where every publisher is trusted', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    await bridge.stop();
    await bridge.start({ url: bridgeUrl, agent: BRIDGE, discover: false, trustRbSource: true });
  }, 60_000);

  it('takes a request without user_id as the agent rb-source names, as RockBot’s own agents send it', async () => {
    expect(bridge.status()).toMatchObject({ state: 'connected', trustRbSource: true });
    const reply = await alice.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', invokeBody('echo', { message: 'as carol' }), { replyTo: 'tool.result.alice', userId: null, source: 'carol' });
    expect(reply.body.content).toBe('Echo: as carol');
    expect((await core.history.list({ via: 'bus', agent: 'carol', text: 'as carol' })).items).toHaveLength(1);
    // Carol's grants apply to whoever claims to be carol: that is what trusting rb-source means.
    expect((await alice.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', invokeBody('get-sum', { a: 1, b: 2 }), { replyTo: 'tool.result.alice', userId: null, source: 'carol' })).body).toMatchObject({ message: expect.stringContaining('not granted to carol') });
  });

  it('a user_id still wins: a claim that differs from it is refused even when rb-source is trusted', async () => {
    const reply = await alice.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', invokeBody('echo', { message: 'alice as carol' }), { replyTo: 'tool.result.alice', source: 'carol' });
    expect(reply.body).toMatchObject({ code: 'invalid_arguments', message: expect.stringContaining('the broker vouches for "alice"') });
  });
});

function invokeBody(toolName: string, args: Record<string, unknown>): Buffer {
  return Buffer.from(JSON.stringify({ toolCallId: `call-${crypto.randomUUID().slice(0, 8)}`, toolName, arguments: JSON.stringify(args), sessionId: null }));
}

function queueDepth(queue: string): number {
  const line = broker
    .ctl('list_queues', 'name', 'messages', '--no-table-headers', '--quiet')
    .split('\n')
    .find((row) => row.startsWith(`${queue}\t`));
  return Number(line?.split('\t')[1] ?? NaN);
}
