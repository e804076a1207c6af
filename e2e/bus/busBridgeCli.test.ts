import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRabbitMq, type PrivateRabbitMq } from './privateRabbitMq';
import { RockBotShapedAgent } from './rockbotShapedAgent';

/**
 * `tooldeck bus bridge` as an operator runs it — the built CLI on a fresh data dir (its example
 * workspace serves server-everything) — on a private RabbitMQ node, two of them as competing
 * consumers of one agent's queue, called by a RockBot-shaped agent on amqplib.
 */
const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const FLEET = 'fleet';
const PASSWORD = 's3cret-bus-pass';

let broker: PrivateRabbitMq;
let url: string;
let agent: RockBotShapedAgent;
const bridges: ChildProcess[] = [];

interface RunningBridge {
  child: ChildProcess;
  dataDir: string;
  output: () => string;
}

function tooldeck(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, [cli, '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** A bridge process on its own data dir; resolves once it says it serves the queue. */
async function startBridge(...extraArgs: string[]): Promise<RunningBridge> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bus-cli-'));
  const child = spawn(process.execPath, [cli, '--data-dir', dataDir, 'bus', 'bridge', '--amqp', url, '--agent', FLEET, ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  bridges.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise<void>((ready, fail) => {
    const check = () => (out.includes(`Bus bridge ${FLEET} on `) ? ready() : undefined);
    child.stdout!.on('data', check);
    child.once('exit', (code) => fail(new Error(`tooldeck bus bridge exited (${code}) before serving: ${out}`)));
  });
  return { child, dataDir, output: () => out };
}

async function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  return new Promise((done) => child.once('exit', (code) => done(code)));
}

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
  broker = await startPrivateRabbitMq();
  broker.ctl('add_user', 'bridge', PASSWORD);
  broker.ctl('set_permissions', '-p', '/', 'bridge', '.*', '.*', '.*');
  url = `amqp://bridge:${PASSWORD}@127.0.0.1:${broker.port}`;
  // The agent connects as its own broker user and sets user_id: the broker vouches for it. It is the
  // example workspace's `assistant`, whose LanguageAgent is granted server-everything's tools.
  agent = await RockBotShapedAgent.connect(broker.addUser('assistant', 'assistant-pass'), 'assistant', FLEET, { userId: 'assistant' });
}, 120_000);

afterAll(async () => {
  for (const child of bridges) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
  }
  await agent?.close();
  await broker?.stop();
}, 60_000);

describe('tooldeck bus bridge (the CLI)', { timeout: 180_000 }, () => {
  it('refuses a bad broker URL and an unreachable broker in one sentence each, never printing the password', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bus-cli-bad-'));
    const notAmqp = tooldeck(dataDir, 'bus', 'bridge', '--amqp', 'http://user:hunter2-secret@example.com', '--agent', 'a');
    expect(notAmqp.status).toBe(2);
    expect(notAmqp.stderr).toMatch(/not an AMQP URL/);
    const unreachable = tooldeck(dataDir, 'bus', 'bridge', '--amqp', `amqp://user:hunter2-secret@127.0.0.1:1`, '--agent', 'a', '--connect-timeout', '1');
    expect(unreachable.status).toBe(3);
    expect(unreachable.stderr).toContain('amqp://user:***@127.0.0.1:1');
    for (const run of [notAmqp, unreachable]) expect(run.stdout + run.stderr).not.toContain('hunter2-secret');
    const noBroker = spawnSync(process.execPath, [cli, '--data-dir', dataDir, 'bus', 'bridge', '--agent', 'a'], { encoding: 'utf8', env: { ...process.env, TOOLDECK_AMQP_URL: '' } });
    expect(noBroker.status).toBe(2);
    expect(noBroker.stderr).toMatch(/--amqp URL or \$TOOLDECK_AMQP_URL/);
  });

  it('two bridges share one queue as competing consumers, and a kill -9 of one loses no request', async () => {
    const first = await startBridge();
    const second = await startBridge();
    for (const bridge of [first, second]) expect(bridge.output()).toContain(`amqp://bridge:***@127.0.0.1:${broker.port}`);
    await vi.waitFor(() => expect(consumersOf(`rockbot.mcp-bridge.${FLEET}`)).toBe(2), { timeout: 30_000 });

    // Both take part: each bridge's history records calls of the agent.
    const shared = await Promise.all(Array.from({ length: 100 }, (_, i) => agent.invoke('echo', { message: `shared ${i}` })));
    expect(shared.filter((reply, i) => reply.body.content !== `Echo: shared ${i}`)).toEqual([]);
    for (const bridge of [first, second]) {
      await vi.waitFor(() => expect(busCalls(bridge.dataDir).length).toBeGreaterThan(0), { timeout: 30_000, interval: 500 });
    }

    // Kill one mid-stream, while it holds requests it has not answered (up to its prefetch): the broker redelivers them to the other.
    const burst = Array.from({ length: 2000 }, (_, i) => `killed ${i}`);
    const correlationIds = await Promise.all(burst.map((message) => publishInvoke('echo', { message })));
    await vi.waitFor(() => expect(answered(correlationIds)).toBeGreaterThan(200), { timeout: 60_000, interval: 20 });
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(answered(correlationIds)).toBeLessThan(burst.length);
    const replies = await Promise.all(correlationIds.map((id) => agent.replyTo(id)));
    expect(replies.filter((reply, i) => reply.body.content !== `Echo: ${burst[i]}`)).toEqual([]);
    expect(consumersOf(`rockbot.mcp-bridge.${FLEET}`)).toBe(1);
    expect(queueColumn(`rockbot.mcp-bridge.${FLEET}`, 'messages')).toBe(0);

    // SIGTERM: the survivor stops cleanly, consuming nothing afterwards.
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
    expect(second.output()).toContain('Bus bridge stopped (Interrupted by SIGTERM).');
    expect(consumersOf(`rockbot.mcp-bridge.${FLEET}`)).toBe(0);
    expect(first.output() + second.output()).not.toContain(PASSWORD);
  });

  it('refuses a request without user_id by default, and takes rb-source with --trust-rb-source, saying what that means', async () => {
    const vouching = await startBridge();
    const unvouched = await agent.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c1', toolName: 'echo', arguments: '{"message":"claimed"}', sessionId: null })), { replyTo: 'tool.result.assistant', userId: null });
    expect(unvouched.body).toMatchObject({ code: 'invalid_arguments', message: expect.stringMatching(/has no user_id/) });
    vouching.child.kill('SIGTERM');
    expect(await exited(vouching.child)).toBe(0);

    const trusting = await startBridge('--trust-rb-source');
    await vi.waitFor(() => expect(trusting.output()).toMatch(/Trusting rb-source: .*anyone who may publish on the exchange can act as any agent/), { timeout: 20_000 });
    const trusted = await agent.request('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: 'c2', toolName: 'echo', arguments: '{"message":"claimed"}', sessionId: null })), { replyTo: 'tool.result.assistant', userId: null });
    expect(trusted.body.content).toBe('Echo: claimed');
    trusting.child.kill('SIGTERM');
    expect(await exited(trusting.child)).toBe(0);
  });
});

async function publishInvoke(toolName: string, args: Record<string, unknown>): Promise<string> {
  const correlationId = crypto.randomUUID().replaceAll('-', '');
  await agent.publish('tool.invoke.mcp', 'RockBot.Tools.ToolInvokeRequest', Buffer.from(JSON.stringify({ toolCallId: `call-${correlationId}`, toolName, arguments: JSON.stringify(args), sessionId: null })), { correlationId, replyTo: 'tool.result.assistant' });
  return correlationId;
}

function answered(correlationIds: readonly string[]): number {
  return correlationIds.filter((id) => agent.replies.has(id)).length;
}

function queueColumn(queue: string, column: string): number {
  const line = broker
    .ctl('list_queues', 'name', column, '--no-table-headers', '--quiet')
    .split('\n')
    .find((row) => row.startsWith(`${queue}\t`));
  return Number(line?.split('\t')[1] ?? NaN);
}

function consumersOf(queue: string): number {
  return queueColumn(queue, 'consumers');
}

function busCalls(dataDir: string): { via: string; agent: string }[] {
  const run = tooldeck(dataDir, 'history', '--agent', 'assistant', '--json');
  if (run.status !== 0) return [];
  return (JSON.parse(run.stdout) as { via: string; agent: string }[]).filter((row) => row.via === 'bus');
}
