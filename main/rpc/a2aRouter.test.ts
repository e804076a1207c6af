import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleAgent, type RunningPeer } from '../../e2e/peers/a2a/sampleAgent';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createCaller } from './router';
import { operatorCaller } from '../../shared/caller';

let core: Core;
let agent: RunningPeer;

beforeAll(async () => {
  agent = await startSampleAgent({ stepDelayMs: 20 });
  core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-rpc-')), secretStore: new MemorySecretStore(), logger: silentLogger });
});
afterAll(async () => {
  await core.close();
  await agent.close();
});

describe('A2A turns land in history and metrics', () => {
  it('records a blocking send and a streamed turn as a2a:<agent> calls', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    await rpc.a2a.save({ name: 'sample', url: agent.url });
    expect((await rpc.a2a.send({ agent: 'sample', message: '/echo hello' })).text).toContain('hello');
    const states: string[] = [];
    for await (const event of await rpc.a2a.stream({ agent: 'sample', message: '/report numbers' })) if (event.state) states.push(event.state);
    expect(states.at(-1)).toBe('COMPLETED');

    const { items } = await core.history.list({ sourceKind: 'a2a' });
    expect(items.map((r) => [r.sourceName, r.tool, r.status])).toEqual([
      ['sample', 'SendStreamingMessage', 'ok'],
      ['sample', 'SendMessage', 'ok'],
    ]);
    expect(items[0]!.resultPreview).toContain('COMPLETED');
  });

  it('records each turn once, through the pipeline, with its caller: the operator by way of A2A', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    await rpc.a2a.save({ name: 'once', url: agent.url });
    const first = await rpc.a2a.send({ agent: 'once', message: 'first words' });
    await rpc.a2a.send({ agent: 'once', message: 'second words', contextId: first.contextId });
    // A skill call sends a message too: it is recorded once, as the skill, not again as a turn.
    await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'a2a:once.echo', arguments: { text: 'skill words' } });

    const records = (await core.history.list({ sourceKind: 'a2a', sourceName: 'once' })).items.reverse();
    expect(records.map((r) => [r.tool, r.status, r.via, r.agent])).toEqual([
      ['SendMessage', 'ok', 'a2a', undefined],
      ['SendMessage', 'ok', 'a2a', undefined],
      ['echo', 'ok', 'cli', undefined],
    ]);
    // Through the pipeline: the attempt count and trace id only the pipeline writes.
    expect(records[0]).toMatchObject({ attempts: 1, traceId: expect.stringMatching(/^[0-9a-f]{32}$/), argumentsJson: expect.stringContaining('first words') });
    expect(records[1]!.argumentsJson).toContain(first.contextId!);
  });

  it('gives up on a turn at its timeout, cancels the task at the agent, and records the turn as timed out', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    await rpc.a2a.save({ name: 'patient', url: agent.url });
    await expect(rpc.a2a.send({ agent: 'patient', message: '/slow', timeoutMs: 800 })).rejects.toMatchObject({ cause: { code: 'Timeout' } });
    expect((await core.history.list({ sourceKind: 'a2a', sourceName: 'patient' })).items.map((r) => [r.tool, r.status, r.errorCode])).toEqual([['SendMessage', 'timeout', 'Timeout']]);
    // The task is canceled, not left working at the agent (the cancel may land just after the call ends).
    const [thread] = core.a2a.threads('patient');
    const taskId = thread!.tasks[0]!.taskId;
    await expect.poll(async () => (await rpc.a2a.getTask({ agent: 'patient', taskId })).state).toBe('CANCELED');
  });
});

describe('A2A turns obey policy like any registry entry', () => {
  let guarded: Core;
  beforeAll(async () => {
    const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-a2a-policy-'));
    // Orloj's ToolPermissions: turns with one agent are denied, with another they need approval.
    writeFileSync(
      join(workspaceDir, 'permissions.yaml'),
      `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: no-talking-to-closed
spec:
  tool_ref: "a2a:closed.*"
  operation_rules:
    - {operation_class: "*", verdict: deny}
---
apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: ask-before-talking-to-careful
spec:
  tool_ref: "a2a:careful.Send*"
  operation_rules:
    - {operation_class: "*", verdict: approval_required}
`,
    );
    guarded = await createCore({
      exampleWorkspace: false,
      appVersion: '0',
      host: 'cli',
      dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-policy-data-')),
      workspaceDir,
      secretStore: new MemorySecretStore(),
      logger: silentLogger,
    });
  });
  afterAll(() => guarded?.close());

  it('refuses a denied turn before it reaches the agent, with PolicyDenied, and records the denial as the pipeline does', async () => {
    const rpc = createCaller({ core: guarded, caller: operatorCaller('ui') });
    await rpc.a2a.save({ name: 'closed', url: agent.url });
    await expect(rpc.a2a.send({ agent: 'closed', message: 'let me in' })).rejects.toMatchObject({ code: 'FORBIDDEN', cause: { code: 'PolicyDenied', message: expect.stringContaining('no-talking-to-closed') } });
    const streamed = (async () => {
      for await (const event of await rpc.a2a.stream({ agent: 'closed', message: 'let me in' })) void event;
    })();
    await expect(streamed).rejects.toMatchObject({ cause: { code: 'PolicyDenied' } });

    const records = (await guarded.history.list({ sourceKind: 'a2a', sourceName: 'closed' })).items;
    expect(records.map((r) => [r.tool, r.status, r.errorCode, r.attempts, r.via])).toEqual([
      ['SendStreamingMessage', 'denied', 'PolicyDenied', 0, 'a2a'],
      ['SendMessage', 'denied', 'PolicyDenied', 0, 'a2a'],
    ]);
    // Nothing went to the agent but its card.
    expect(guarded.a2a.transcriptOf('closed').filter((entry) => entry.direction === 'request' && entry.body?.includes('let me in'))).toEqual([]);
    // A skill of the same agent is refused the same way: one rule for every entry of the agent.
    expect((await guarded.pipeline.invoke({ caller: operatorCaller('cli'), name: 'a2a:closed.echo', arguments: { text: 'x' } })).error).toMatchObject({ code: 'PolicyDenied' });
  });

  it('asks for approval where policy says so, and sends the turn once it is confirmed', async () => {
    const rpc = createCaller({ core: guarded, caller: operatorCaller('ui') });
    await rpc.a2a.save({ name: 'careful', url: agent.url });
    await expect(rpc.a2a.send({ agent: 'careful', message: 'hello' })).rejects.toMatchObject({ code: 'FORBIDDEN', cause: { code: 'PolicyDenied', message: expect.stringContaining('needs approval') } });
    expect((await rpc.a2a.send({ agent: 'careful', message: 'hello', confirmed: true })).text).toContain('hello');
    expect((await guarded.history.list({ sourceKind: 'a2a', sourceName: 'careful' })).items.map((r) => r.status)).toEqual(['ok', 'denied']);
  });
});
