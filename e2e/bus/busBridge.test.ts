import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '../../main/core';
import type { Logger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { PREFETCH } from '../../main/bus/BusBridge';
import { createCaller } from '../../main/rpc/router';
import type { BusOverview } from '../../shared/bus';
import { operatorCaller } from '../../shared/caller';
import { everythingStdio } from '../peers/mcp/everything';
import { startPrivateRabbitMq, type PrivateRabbitMq } from './privateRabbitMq';
import { RockBotShapedAgent } from './rockbotShapedAgent';

/**
 * Tooldeck as a RockBot MCP bridge on a real RabbitMQ broker (a private node), called by a
 * RockBot-shaped agent written on amqplib from RockBot's wire format, with server-everything
 * behind the bridge. Each agent connects as its own broker user and sets the AMQP user_id, which
 * the broker validates and the bridge takes as the calling agent (busIdentity.test.ts covers the
 * refusals and --trust-rb-source).
 */
const BRIDGE = 'tooldeck';
/** Grants (scoped ToolPermissions: the bus serves an agent only its grants): scout every tool of everything, rogue echo and get-sum — which policy then denies it — and builder get-sum under approval. */
const permissions = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: everything-for-scout
spec:
  tool_ref: "mcp:everything.*"
  apply_mode: scoped
  target_agents: [scout]
  operation_rules:
    - {operation_class: "*", verdict: allow}
---
apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: rogue-tools
spec:
  tool_ref: "mcp:everything.*"
  apply_mode: scoped
  target_agents: [rogue]
  operation_rules:
    - {operation_class: "*", verdict: allow}
---
apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: no-sums-for-rogue
spec:
  tool_ref: everything--get-sum
  apply_mode: scoped
  target_agents: [rogue]
  operation_rules:
    - {operation_class: "*", verdict: deny}
---
apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: builder-sums-need-approval
spec:
  tool_ref: everything--get-sum
  apply_mode: scoped
  target_agents: [builder]
  operation_rules:
    - {operation_class: "*", verdict: approval_required}
`;

let broker: PrivateRabbitMq;
let core: Core;
let agent: RockBotShapedAgent;
/** The URL that connects as each agent's own broker user. */
const agentUrls = new Map<string, string>();
const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
const capturingLogger: Logger = {
  debug: () => undefined,
  info: (message, fields) => logged.push({ level: 'info', message, fields }),
  warn: (message, fields) => logged.push({ level: 'warn', message, fields }),
  error: (message, fields) => logged.push({ level: 'error', message, fields }),
};
/** The most calls the pipeline ran at once for the bridge. */
let concurrentCalls = 0;
let mostConcurrentCalls = 0;

beforeAll(async () => {
  broker = await startPrivateRabbitMq();
  for (const name of ['scout', 'rogue', 'builder']) agentUrls.set(name, broker.addUser(name, `${name}-pass`));
  // The bridge (guest) republishes dead letters with their agent's user_id: RabbitMQ allows that to users tagged impersonator.
  broker.ctl('set_user_tags', 'guest', 'administrator', 'impersonator');
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-bus-ws-'));
  writeFileSync(join(workspaceDir, 'permissions.yaml'), permissions);
  core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-bus-')), secretStore: new MemorySecretStore(), logger: capturingLogger });
  const invoke = core.pipeline.invoke.bind(core.pipeline);
  core.pipeline.invoke = async (request) => {
    mostConcurrentCalls = Math.max(mostConcurrentCalls, ++concurrentCalls);
    try {
      return await invoke(request);
    } finally {
      concurrentCalls--;
    }
  };
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
  agent = await connectAgent('scout');
  await core.bus.start({ url: broker.url, agent: BRIDGE });
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await core?.close();
  await broker?.stop();
}, 60_000);

describe('tooldeck bus bridge: RockBot agents call Tooldeck tools over RabbitMQ', { timeout: 60_000 }, () => {
  it("declares RockBot's topology: queues with dead-letter arguments and their dead-letter queues", () => {
    const queues = broker.ctl('list_queues', 'name', 'durable', 'arguments', '--no-table-headers', '--quiet');
    for (const [queue, topic] of [
      [`rockbot.mcp-bridge.${BRIDGE}`, 'tool.invoke.mcp'],
      [`rockbot.mcp-bridge.${BRIDGE}.refresh`, 'tool.meta.mcp.refresh'],
      [`rockbot.mcp-bridge.${BRIDGE}.manage`, 'mcp.manage'],
    ]) {
      const line = queues.split('\n').find((row) => row.startsWith(`${queue}\t`));
      expect(line, queues).toBeDefined();
      expect(line).toContain('true');
      expect(line).toContain('x-dead-letter-exchange');
      expect(line).toContain('rockbot.dlx');
      expect(line).toContain(topic);
      expect(queues).toContain(`${queue}.dlq\t`);
    }
    expect(broker.ctl('list_exchanges', 'name', 'type', 'durable', '--no-table-headers', '--quiet')).toMatch(/rockbot\ttopic\ttrue[\s\S]*|rockbot\.dlx\ttopic\ttrue/);
  });

  it('the console’s bus router shows the broker with its password masked, and the traffic', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    const status = await rpc.bus.status();
    expect(status).toMatchObject({ state: 'connected', agent: BRIDGE, queue: `rockbot.mcp-bridge.${BRIDGE}`, url: `amqp://guest:***@127.0.0.1:${broker.port}` });
    await agent.invoke('echo', { message: 'watched' });
    const watching = (await rpc.bus.watch())[Symbol.asyncIterator]();
    const first = (await watching.next()).value as BusOverview;
    await watching.return?.(undefined);
    expect(first.recent.at(-1)).toMatchObject({ tool: 'echo', agent: 'scout', server: 'everything', outcome: 'ok' });
    expect(first.perAgent).toEqual(expect.arrayContaining([expect.objectContaining({ agent: 'scout' })]));
    expect(JSON.stringify(first)).not.toContain('guest@');
  });

  it('answers a ToolInvokeRequest on its reply_to with a ToolInvokeResponse under its correlation id', async () => {
    const reply = await agent.invoke('echo', { message: 'over the bus' });
    expect(reply.type).toBe('RockBot.Tools.ToolInvokeResponse');
    expect(reply.messageId).toMatch(/^[0-9a-f]{32}$/);
    expect(reply.source).toBe(`mcp-bridge.${BRIDGE}`);
    expect(reply.body).toEqual({
      toolCallId: expect.stringMatching(/^call-/),
      toolName: 'echo',
      content: 'Echo: over the bus',
      isError: false,
      contentBlocks: [{ type: 'text', text: 'Echo: over the bus', data: null, mimeType: null, uri: null }],
    });
  });

  it('routes by the server header in both spellings, and says tool_not_found for a server or tool it does not have', async () => {
    expect((await agent.invoke('get-sum', { a: 2, b: 3 }, { server: 'everything' })).body.content).toMatch(/5/);
    expect((await agent.invoke('get-sum', { a: 2, b: 5 }, { server: 'EVERYTHING', singlePrefixServerHeader: true })).body.content).toMatch(/7/);
    const wrongServer = await agent.invoke('echo', { message: 'x' }, { server: 'nowhere' });
    expect(wrongServer.type).toBe('RockBot.Tools.ToolError');
    expect(wrongServer.body).toMatchObject({ code: 'tool_not_found', isRetryable: false, toolName: 'echo' });
    const noTool = await agent.invoke('no-such-tool', {});
    expect(noTool.body).toMatchObject({ code: 'tool_not_found', message: expect.stringContaining('no-such-tool') });
  });

  it('carries images as content blocks', async () => {
    const reply = await agent.invoke('get-tiny-image', {});
    const blocks = reply.body.contentBlocks as { type: string; data: string | null; mimeType: string | null }[];
    expect(blocks.some((block) => block.type === 'image' && block.mimeType === 'image/png' && (block.data?.length ?? 0) > 0)).toBe(true);
  });

  it('runs every call through the pipeline as the calling agent via bus: history rows name it', async () => {
    await agent.invoke('echo', { message: 'recorded' }, { sessionId: 'session-7' });
    const rows = (await core.history.list({ via: 'bus', agent: 'scout', tool: 'echo' })).items;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ via: 'bus', agent: 'scout', tool: 'echo', status: 'ok' });
  });

  it('continues the agent’s trace (rb-traceparent)', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await agent.invoke('echo', { message: 'traced' }, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect((await core.history.list({ traceId })).items).toEqual([expect.objectContaining({ via: 'bus', tool: 'echo' })]);
  });

  it('a tool the policy denies the agent is not offered to it: refused as not granted, never run (as at the gateway)', async () => {
    const rogue = await connectAgent('rogue');
    try {
      expect((await rogue.invoke('echo', { message: 'rogue may echo' })).body.content).toBe('Echo: rogue may echo');
      const reply = await rogue.invoke('get-sum', { a: 1, b: 1 });
      expect(reply.type).toBe('RockBot.Tools.ToolError');
      expect(reply.body).toMatchObject({ code: 'tool_not_found', isRetryable: false, message: 'mcp:everything.get-sum is not granted to rogue.' });
      expect((await core.history.list({ via: 'bus', agent: 'rogue', tool: 'get-sum' })).items).toEqual([]);
    } finally {
      await rogue.close();
    }
  });

  it('a call that needs approval waits for it within the request’s timeout, then runs; unapproved, it times out', async () => {
    const builder = await connectAgent('builder');
    try {
      const answered = builder.invoke('get-sum', { a: 20, b: 22 }, { timeoutMs: 60_000 });
      await vi.waitFor(async () => expect((await core.approvals.list()).filter((approval) => approval.status.phase === 'Pending')).toHaveLength(1), { timeout: 20_000 });
      const [pending] = (await core.approvals.list()).filter((approval) => approval.status.phase === 'Pending');
      expect(pending!.spec).toMatchObject({ agent: 'builder', input: { a: 20, b: 22 } });
      await core.approvals.decide(pending!.metadata.name, 'approve', 'test-operator');
      expect((await answered).body.content).toMatch(/42/);

      const unapproved = await builder.invoke('get-sum', { a: 1, b: 2 }, { timeoutMs: 300 });
      expect(unapproved.type).toBe('RockBot.Tools.ToolError');
      expect(unapproved.body).toMatchObject({ code: 'timeout', isRetryable: true });
    } finally {
      await builder.close();
    }
  });

  it('announces its servers (McpServersIndexed) on connect and on a refresh request', async () => {
    await vi.waitFor(() => expect(agent.indexes.length).toBeGreaterThan(0), { timeout: 20_000 });
    const index = agent.indexes.at(-1)!;
    expect(index.type).toBe('RockBot.Tools.Mcp.McpServersIndexed');
    const everything = (index.body.servers as { serverName: string; toolNames: string[]; toolCount: number }[]).find((server) => server.serverName === 'everything');
    expect(everything).toMatchObject({ serverName: 'everything', displayName: 'everything', toolCount: everything!.toolNames.length });
    expect(everything!.toolNames).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    const before = agent.indexes.length;
    await agent.publish('tool.meta.mcp.refresh', 'RockBot.Tools.Mcp.McpMetadataRefreshRequest', Buffer.from(JSON.stringify({ serverName: null })));
    await vi.waitFor(() => expect(agent.indexes.length).toBeGreaterThan(before), { timeout: 20_000 });
  });

  it('announces a server that connects, and one that goes as removed', async () => {
    await core.mcp.save({ config: everythingStdio('second') as never });
    const hasSecond = (index: { body: Record<string, unknown> }) => (index.body.servers as { serverName: string }[]).some((server) => server.serverName === 'second');
    await vi.waitFor(() => expect(agent.indexes.some(hasSecond)).toBe(true), { timeout: 30_000 });
    const before = agent.indexes.length;
    await core.mcp.remove('second');
    await vi.waitFor(() => expect(agent.indexes.slice(before).some((index) => (index.body.removedServers as string[]).includes('second'))).toBe(true), { timeout: 30_000 });
    const removal = agent.indexes.slice(before).find((index) => (index.body.removedServers as string[]).includes('second'))!;
    expect(hasSecond(removal)).toBe(false);
  });

  it('answers mcp.manage as RockBot’s management executor expects; agents may not register servers', async () => {
    const details = await agent.manage('McpGetServiceDetailsRequest', { serverName: 'everything' });
    expect(details.type).toBe('RockBot.Tools.Mcp.McpGetServiceDetailsResponse');
    const tools = details.body.tools as { name: string; description: string; parametersSchema: string }[];
    const echo = tools.find((tool) => tool.name === 'echo')!;
    expect(JSON.parse(echo.parametersSchema)).toMatchObject({ type: 'object', properties: { message: expect.any(Object) } });
    expect(details.body.error).toBeNull();
    expect((await agent.manage('McpGetServiceDetailsRequest', { serverName: 'nowhere' })).body.error).toMatch(/nowhere/);
    const register = await agent.manage('McpRegisterServerRequest', { serverName: 'evil', type: 'stdio', command: 'sh', args: ['-c', 'touch /tmp/pwned'], env: {} });
    expect(register.type).toBe('RockBot.Tools.Mcp.McpRegisterServerResponse');
    expect(register.body).toMatchObject({ serverName: 'evil', success: false, error: expect.stringMatching(/does not let agents/) });
    expect(core.catalog.list({ source: 'mcp:evil' })).toEqual([]);
    const unregister = await agent.manage('McpUnregisterServerRequest', { serverName: 'everything' });
    expect(unregister.body).toMatchObject({ serverName: 'everything', success: false });
  });
});

describe('tooldeck bus bridge: bad input', { timeout: 60_000 }, () => {
  it('a body that is not JSON, or lacks fields, gets ToolError invalid_arguments (and is not requeued)', async () => {
    const notJson = await agent.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from('{not json'), { replyTo: 'tool.result.scout' });
    expect(notJson.type).toBe('RockBot.Tools.ToolError');
    expect(notJson.body).toMatchObject({ code: 'invalid_arguments', isRetryable: false, message: expect.stringMatching(/not JSON/) });
    const lacking = await agent.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c1' })), { replyTo: 'tool.result.scout' });
    expect(lacking.body).toMatchObject({ code: 'invalid_arguments', toolCallId: 'c1', message: expect.stringContaining('toolName') });
    const badArguments = await agent.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c2', toolName: 'echo', arguments: '[1,2]' })), { replyTo: 'tool.result.scout' });
    expect(badArguments.body).toMatchObject({ code: 'invalid_arguments', message: 'The arguments must be a JSON object.' });
    const schemaViolation = await agent.invoke('get-sum', { a: 'one' });
    expect(schemaViolation.body).toMatchObject({ code: 'invalid_arguments' });
    await vi.waitFor(() => expect(queueDepth(`rockbot.mcp-bridge.${BRIDGE}`)).toBe(0));
  });

  it('a request without reply_to is dead-lettered with the reason logged', async () => {
    const messageId = await agent.publish('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c3', toolName: 'echo', arguments: '{"message":"lost"}' })));
    const dead = await waitForDeadLetter(`rockbot.mcp-bridge.${BRIDGE}.dlq`);
    expect(dead.properties.messageId).toBe(messageId);
    expect(logged).toEqual(expect.arrayContaining([expect.objectContaining({ message: 'bus: request dead-lettered', fields: expect.objectContaining({ messageId, reason: expect.stringMatching(/no reply_to/) }) })]));
  });

  it('the dead-letter queue can be inspected (without taking its messages), replayed and purged', async () => {
    const dlq = `rockbot.mcp-bridge.${BRIDGE}.dlq`;
    const refused = await agent.publish('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c5', toolName: 'echo', arguments: '{"message":"no reply_to"}' })));
    await vi.waitFor(() => expect(queueDepth(dlq)).toBe(1), { timeout: 20_000 });
    // A valid request that ended in the dead-letter queue some other way (put there directly here).
    const correlationId = crypto.randomUUID().replaceAll('-', '');
    const stranded = await agent.publish(dlq, 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c6', toolName: 'echo', arguments: '{"message":"replayed"}' })), { exchange: '', correlationId, replyTo: 'tool.result.scout' });
    await vi.waitFor(() => expect(queueDepth(dlq)).toBe(2), { timeout: 20_000 });

    const letters = await core.bus.deadLetters();
    expect(letters).toEqual([
      expect.objectContaining({ queue: dlq, messageId: refused, type: 'RockBot.Tools.ToolInvokeRequest', source: 'scout', reason: 'rejected', bridgeReason: 'it has no reply_to, so no answer could reach its sender', bodyPreview: expect.stringContaining('no reply_to') }),
      expect.objectContaining({ queue: dlq, messageId: stranded, replyTo: 'tool.result.scout' }),
    ]);
    // The bridge's own reason only for what it refused itself.
    expect(letters[1]).not.toHaveProperty('bridgeReason');
    expect(queueDepth(dlq)).toBe(2);

    expect(await core.bus.replayDeadLetters([stranded])).toBe(1);
    expect((await agent.replyTo(correlationId)).body.content).toBe('Echo: replayed');
    expect(await core.bus.purgeDeadLetters()).toBe(1);
    expect(queueDepth(dlq)).toBe(0);
  });

  it('a message of an unknown type is acknowledged and logged once', async () => {
    await agent.publish('tool.invoke.mcp', 'RockBot.Something.Else', Buffer.from('{}'), { replyTo: 'tool.result.scout' });
    await agent.publish('tool.invoke.mcp', 'RockBot.Something.Else', Buffer.from('{}'), { replyTo: 'tool.result.scout' });
    // A request after them is answered: they were taken off the queue, not stuck in it.
    await agent.invoke('echo', { message: 'after' });
    await vi.waitFor(() => expect(queueDepth(`rockbot.mcp-bridge.${BRIDGE}`)).toBe(0));
    expect(logged.filter((line) => line.fields?.type === 'RockBot.Something.Else')).toHaveLength(1);
    expect(queueDepth(`rockbot.mcp-bridge.${BRIDGE}.dlq`)).toBe(0);
  });

  it('a request delivered twice (the same message_id, as after a lost ack) runs once; both deliveries get its reply', async () => {
    const correlationId = crypto.randomUUID().replaceAll('-', '');
    const messageId = crypto.randomUUID().replaceAll('-', '');
    const marker = `dedupe-${correlationId.slice(0, 8)}`;
    const body = Buffer.from(JSON.stringify({ toolCallId: 'c4', toolName: 'echo', arguments: JSON.stringify({ message: marker }), sessionId: null }));
    for (let delivery = 0; delivery < 2; delivery++) await agent.publish('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', body, { correlationId, messageId, replyTo: 'tool.result.scout' });
    await vi.waitFor(() => expect(agent.replies.get(correlationId)?.length).toBe(2), { timeout: 20_000 });
    expect(agent.replies.get(correlationId)!.map((reply) => reply.body.content)).toEqual([`Echo: ${marker}`, `Echo: ${marker}`]);
    expect((await core.history.list({ via: 'bus', text: marker })).items).toHaveLength(1);
  });

  it('a burst of requests waits in the broker: the bridge runs at most its prefetch at once, and answers all', async () => {
    const burst = 10_000;
    mostConcurrentCalls = 0;
    const replies = await Promise.all(Array.from({ length: burst }, (_, i) => agent.invoke('echo', { message: `burst ${i}` })));
    expect(replies.every((reply, i) => reply.body.content === `Echo: burst ${i}`)).toBe(true);
    expect(mostConcurrentCalls).toBeLessThanOrEqual(PREFETCH);
    expect(mostConcurrentCalls).toBeGreaterThan(1);
  });

  it('the broker restarting loses no request: what waited in the queue is answered, and the bridge reconnects by itself', async () => {
    // Requests published while no bridge runs wait in the durable queue, through a broker restart.
    await core.bus.stop();
    const waiting = await Promise.all(Array.from({ length: 20 }, async (_, i) => ({ i, correlationId: await publishInvoke(`while away ${i}`) })));
    await agent.drop();
    await broker.restart();
    await agent.open();
    await core.bus.start({ url: broker.url, agent: BRIDGE });
    for (const { i, correlationId } of waiting) expect((await agent.replyTo(correlationId)).body.content).toBe(`Echo: while away ${i}`);

    // The broker restarts under a running bridge: it reconnects (with backoff) and serves the queue again.
    await agent.drop();
    await broker.restart();
    await agent.open();
    const after = await Promise.all(Array.from({ length: 20 }, async (_, i) => ({ i, correlationId: await publishInvoke(`after the restart ${i}`) })));
    for (const { i, correlationId } of after) expect((await agent.replyTo(correlationId)).body.content).toBe(`Echo: after the restart ${i}`);
    expect(core.bus.status().state).toBe('connected');
  });
});

/** A RockBot-shaped agent connected as its own broker user, setting user_id as the broker requires. */
function connectAgent(name: string): Promise<RockBotShapedAgent> {
  return RockBotShapedAgent.connect(agentUrls.get(name)!, name, BRIDGE, { userId: name });
}

/** Publishes a request without waiting for its reply; returns its correlation id. */
async function publishInvoke(message: string): Promise<string> {
  const correlationId = crypto.randomUUID().replaceAll('-', '');
  await agent.publish('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c', toolName: 'echo', arguments: JSON.stringify({ message }) })), { correlationId, replyTo: 'tool.result.scout' });
  return correlationId;
}

function queueDepth(queue: string): number {
  const line = broker
    .ctl('list_queues', 'name', 'messages', '--no-table-headers', '--quiet')
    .split('\n')
    .find((row) => row.startsWith(`${queue}\t`));
  return Number(line?.split('\t')[1] ?? NaN);
}

async function waitForDeadLetter(queue: string) {
  const connection = await amqp.connect(broker.url);
  try {
    const channel = await connection.createChannel();
    let message: amqp.GetMessage | false = false;
    await vi.waitFor(
      async () => {
        message = await channel.get(queue, { noAck: true });
        expect(message).not.toBe(false);
      },
      { timeout: 20_000 },
    );
    return message as unknown as amqp.GetMessage;
  } finally {
    await connection.close();
  }
}
