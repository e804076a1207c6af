import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2aEvent } from '../../shared/a2a';
import { AppError } from '../../shared/errors';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { A2aAgentService } from './A2aAgentService';
import { closedPort } from '../../e2e/peers/a2a/fakeCardHost';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';

let peers: PeerSet;
let url: Record<string, string>;

beforeAll(async () => {
  peers = await startPeers({
    sample: { kind: 'sample', options: { stepDelayMs: 30 } },
    slowSteps: { kind: 'sample', options: { stepDelayMs: 400 } },
    restOnly: { kind: 'sample', options: { bindings: ['HTTP+JSON'] } },
    blocking: { kind: 'sample', options: { streaming: false } },
    legacy: { kind: 'legacy', options: { stepDelayMs: 30 } },
    aimock: { kind: 'aimock' },
  });
  url = peers.urls;
});
afterAll(() => peers?.stop());

function newService() {
  return new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-')), secretStore: new MemorySecretStore(), logger: silentLogger });
}

async function collect(events: AsyncIterable<A2aEvent>): Promise<A2aEvent[]> {
  const out: A2aEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
}

describe('A2aAgentService messaging', () => {
  it('sends a blocking message and gets the echo back from 1.0 and 0.3 agents', async () => {
    const service = newService();
    for (const agent of [url.sample!, url.legacy!]) {
      const result = await service.send(agent, 'hello there');
      expect(result).toMatchObject({ kind: 'message', text: 'hello there' });
    }
  });

  it('returns a finished task with its artifacts from a blocking send', async () => {
    const result = await newService().send(url.sample!, '/report sales');
    expect(result).toMatchObject({ kind: 'task', state: 'COMPLETED' });
    expect(result.text).toContain('# Report on sales');
    expect(result.artifacts.map((a) => a.parts[0]!.kind)).toEqual(['text', 'data']);
  });

  it('streams SUBMITTED, WORKING…, then COMPLETED, with a text and a data artifact', async () => {
    for (const agent of [url.sample!, url.legacy!]) {
      const events = await collect(newService().stream(agent, '/report q3'));
      const states = events.filter((e) => e.state).map((e) => e.state);
      expect(states[0]).toBe('SUBMITTED');
      expect(states.at(-1)).toBe('COMPLETED');
      expect(states.slice(1, -1).every((s) => s === 'WORKING')).toBe(true);
      expect(states.filter((s) => s === 'WORKING').length).toBeGreaterThanOrEqual(3);
      const artifacts = events.filter((e) => e.kind === 'artifact').map((e) => e.artifact!);
      expect(artifacts.find((a) => a.parts[0]!.kind === 'text')).toMatchObject({ name: 'report.md' });
      expect(artifacts.find((a) => a.parts[0]!.kind === 'data')?.parts[0]).toMatchObject({ kind: 'data', data: { topic: 'q3', total: 42 } });
      expect(events.at(-1)).toMatchObject({ final: true, state: 'COMPLETED' });
      expect(new Set(events.map((e) => e.taskId)).size).toBe(1);
    }
  });

  it('continues an INPUT_REQUIRED task with the answer (same task and context)', async () => {
    for (const agent of [url.sample!, url.legacy!]) {
      const service = newService();
      const question = await service.send(agent, '/ask');
      expect(question).toMatchObject({ kind: 'task', state: 'INPUT_REQUIRED', text: 'What is your name?' });
      const answer = await service.send(agent, 'Ada', { contextId: question.contextId });
      expect(answer).toMatchObject({ taskId: question.taskId, contextId: question.contextId, state: 'COMPLETED' });
      expect(answer.text).toBe('Hello, Ada!');
      const thread = service.thread(question.contextId!)!;
      expect(thread.messages.map((m) => [m.role, m.text])).toEqual([
        ['user', '/ask'],
        ['agent', 'What is your name?'],
        ['user', 'Ada'],
        ['agent', 'Greeted Ada.'],
      ]);
      expect(thread.tasks[0]!.timeline.map((t) => t.state)).toEqual(['INPUT_REQUIRED', 'COMPLETED']);
    }
  });

  it('continues an INPUT_REQUIRED task over a stream too', async () => {
    const service = newService();
    const first = await collect(service.stream(url.sample!, '/ask'));
    expect(first.at(-1)).toMatchObject({ state: 'INPUT_REQUIRED', text: 'What is your name?', final: true });
    const second = await collect(service.stream(url.sample!, 'Grace', { taskId: first[0]!.taskId }));
    expect(second.at(-1)).toMatchObject({ state: 'COMPLETED', taskId: first[0]!.taskId });
    expect(second.find((e) => e.kind === 'artifact')?.artifact?.parts[0]).toEqual({ kind: 'text', text: 'Hello, Grace!', mediaType: 'text/plain' });
  });

  it('cancels a task that runs until canceled', async () => {
    for (const agent of [url.sample!, url.legacy!]) {
      const service = newService();
      const stream = service.stream(agent, '/slow', { cancelOnAbort: false });
      let taskId: string | undefined;
      for await (const event of stream) {
        taskId ??= event.taskId;
        if (event.state === 'WORKING') break;
      }
      const canceled = await service.cancelTask(agent, taskId!);
      expect(canceled.state).toBe('CANCELED');
      expect((await service.getTask(agent, taskId!)).state).toBe('CANCELED');
    }
  });

  it('aborting a stream cancels the task at the agent', async () => {
    const service = newService();
    const controller = new AbortController();
    let taskId: string | undefined;
    const error = await failure(
      (async () => {
        for await (const event of service.stream(url.sample!, '/slow', {}, controller.signal)) {
          taskId ??= event.taskId;
          if (event.state === 'WORKING') controller.abort();
        }
      })(),
    );
    expect(error.code).toBe('Canceled');
    expect((await service.getTask(url.sample!, taskId!)).state).toBe('CANCELED');
  });

  it('recovers the final state by resubscribing after a stream dropped mid-way', async () => {
    for (const agent of [url.slowSteps!, url.legacy!]) {
      const service = newService();
      const controller = new AbortController();
      let taskId: string | undefined;
      await failure(
        (async () => {
          for await (const event of service.stream(agent, '/report dropped', { cancelOnAbort: false }, controller.signal)) {
            taskId ??= event.taskId;
            if (event.state === 'WORKING') controller.abort();
          }
        })(),
      );
      const resumed = await collect(service.resubscribe(agent, taskId!));
      expect(resumed.at(-1)).toMatchObject({ state: 'COMPLETED', final: true, taskId });
      const task = await service.getTask(agent, taskId!);
      expect(task.artifacts.map((a) => a.name)).toEqual(['report.md', 'report.json']);
    }
  });

  it('gets a task by id, with history', async () => {
    const service = newService();
    const done = await service.send(url.sample!, '/report history');
    const task = await service.getTask(url.sample!, done.taskId!, { historyLength: 10 });
    expect(task).toMatchObject({ id: done.taskId, contextId: done.contextId, state: 'COMPLETED' });
    expect(task.history[0]).toMatchObject({ role: 'user', text: '/report history' });
  });

  it('lists tasks where the agent supports it and says so clearly where it does not', async () => {
    const service = newService();
    const done = await service.send(url.sample!, '/report listing');
    expect(await service.supportsListTasks(url.sample!)).toBe(true);
    const listed = await service.listTasks(url.sample!, { contextId: done.contextId });
    expect(listed.tasks.map((t) => t.id)).toEqual([done.taskId]);

    expect(await service.supportsListTasks(url.legacy!)).toBe(false);
    const error = await failure(service.listTasks(url.legacy!));
    expect(error.message).toMatch(/ListTasks is not supported by this agent/);
  });

  it('picks JSON-RPC from the card, and HTTP+JSON when that is the only interface offered', async () => {
    const service = newService();
    expect(await service.connectionInfo(url.sample!)).toMatchObject({ protocolVersion: '1.0', binding: 'JSONRPC' });
    expect(await service.connectionInfo(url.legacy!)).toMatchObject({ protocolVersion: '0.3', binding: 'JSONRPC' });
    expect(await service.connectionInfo(url.restOnly!)).toEqual({ protocolVersion: '1.0', binding: 'HTTP+JSON', endpoint: `${url.restOnly}/a2a/rest` });
    const result = await service.send(url.restOnly!, '/report rest');
    expect(result.state).toBe('COMPLETED');
    expect(service.transcriptOf(url.restOnly!).some((e) => e.direction === 'request' && e.url.includes('/a2a/rest/'))).toBe(true);
  });

  it('falls back to a blocking send when the agent does not stream', async () => {
    const events = await collect(newService().stream(url.blocking!, '/report nostream'));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'task', state: 'COMPLETED', final: true });
  });

  it('gives up on an agent that never finishes: times out, then cancels the task', async () => {
    const service = newService();
    const error = await failure(service.send(url.sample!, '/slow', { timeoutMs: 800 }));
    expect(error.code).toBe('Timeout');
    expect(error.message).toMatch(/the task was canceled/);
    const [thread] = service.threads(url.sample!);
    expect(thread!.tasks[0]!.timeline.at(-1)!.state).toBe('CANCELED');
  });

  it('reports a FAILED task as such', async () => {
    const result = await newService().send(url.sample!, '/fail disk full');
    expect(result).toMatchObject({ state: 'FAILED', text: 'Could not finish: disk full.' });
  });
});

describe('A2aAgentService errors', () => {
  it('fails clearly on an unreachable agent', async () => {
    const error = await failure(newService().send(`http://127.0.0.1:${await closedPort()}`, 'hi'));
    expect(error).toMatchObject({ code: 'ConnectionFailed', step: 'fetch' });
    expect(error.message).toMatch(/connection refused/);
  });

  it('turns unknown task ids into NotFound', async () => {
    const error = await failure(newService().getTask(url.sample!, '00000000-0000-4000-8000-000000000000'));
    expect(error.code).toBe('NotFound');
  });

  it("reports aimock's non-conformant answers as protocol errors without crashing", async () => {
    const service = newService();
    const hello = await service.send(url.aimock!, 'hello');
    expect(hello).toMatchObject({ kind: 'message', text: 'hi from aimock' });

    const unmatched = await failure(service.send(url.aimock!, 'nothing matches this'));
    expect(unmatched).toMatchObject({ code: 'ExecutionFailed', step: 'agent' });
    expect(unmatched.message).toMatch(/No matching pattern/);

    // Its stream events put a task and an artifact side by side and stop before a final state.
    const streamed = await failure(collect(service.stream(url.aimock!, 'stream please')));
    expect(streamed).toMatchObject({ code: 'ExecutionFailed', step: 'protocol' });
    expect(streamed.message).toMatch(/ended the stream before the task reached a final state/);

    // Its GetTask wraps the task in another object.
    const task = await service.send(url.aimock!, 'a task please');
    expect(task).toMatchObject({ kind: 'task', state: 'COMPLETED', text: 'task result' });
    const got = await failure(service.getTask(url.aimock!, task.taskId!));
    expect(got).toMatchObject({ code: 'ExecutionFailed', step: 'protocol' });
    expect(got.message).toMatch(/does not follow the A2A protocol/);

    // Still usable afterwards.
    expect((await service.send(url.aimock!, 'hello again')).text).toBe('hi from aimock');
  });
});

describe('A2aAgentService saved agents', () => {
  it('persists agents without their secrets and keeps secrets in the store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-a2a-saved-'));
    const secrets = new MemorySecretStore();
    const service = new A2aAgentService({ dataDir, secretStore: secrets, logger: silentLogger });
    await service.save({
      name: 'sample',
      url: url.sample!,
      auth: { kind: 'bearer', token: 'sekrit-token-1' },
      headers: [
        { name: 'X-Tenant', value: 'blue' },
        { name: 'X-Session', value: 'sekrit-session', secret: true },
      ],
    });
    const file = readFileSync(join(dataDir, 'a2a-agents.json'), 'utf8');
    expect(file).not.toContain('sekrit');
    expect(JSON.parse(file).agents[0]).toMatchObject({ name: 'sample', auth: { kind: 'bearer' }, headers: [{ name: 'X-Tenant', value: 'blue' }, { name: 'X-Session', secret: true }] });
    expect(await secrets.get('a2a:sample:token')).toBe('sekrit-token-1');
    expect(await secrets.get('a2a:sample:header:x-session')).toBe('sekrit-session');

    const reopened = new A2aAgentService({ dataDir, secretStore: secrets, logger: silentLogger });
    expect((await reopened.list()).map((a) => a.name)).toEqual(['sample']);
    expect((await reopened.send('sample', 'saved hello')).text).toBe('saved hello');

    await reopened.save({ name: 'sample', url: url.sample!, auth: { kind: 'none' } });
    expect(await secrets.keys()).toEqual([]);
    await reopened.remove('sample');
    expect(await reopened.list()).toEqual([]);
    expect((await failure(reopened.get('sample'))).code).toBe('NotFound');
  });

  it('rejects invalid agent definitions', async () => {
    const error = await failure(newService().save({ name: 'bad name!', url: 'not a url' }));
    expect(error.code).toBe('InvalidInput');
    expect(error.message).toMatch(/name/);
  });
});
