import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio, startEverythingHttp, type RunningPeer } from '../../../e2e/peers/mcp/everything';
import type { PendingInteraction } from '../../../shared/mcp';
import type { InvocationOutcome } from '../../../shared/registry';
import type { TaskEvent } from '../../../shared/tasks';
import { TRACEPARENT } from '../../metrics/CallTracing';
import { silentLogger } from '../../platform/Logger';
import { MemorySecretStore } from '../../platform/SecretStore';
import { McpService } from '../McpService';
import { pipelineFor } from '../testing/pipelineFor';
import { TaskLedger } from './TaskLedger';
import { operatorCaller } from '../../../shared/caller';

/** Resolves with the next pending interaction the broker holds that matches. */
function nextInteraction(service: McpService, match: (p: PendingInteraction) => boolean = () => true): Promise<PendingInteraction> {
  return new Promise((resolve) => {
    const check = (pending: PendingInteraction[]) => {
      const found = pending.find(match);
      if (found) {
        stop();
        resolve(found);
      }
    };
    const stop = service.broker.onChange(check);
    check(service.broker.pending());
  });
}

/**
 * MCP tasks (SEP-1686) against the reference server, which implements them: a task-required
 * research tool (with an input_required detour through elicitation), and tools that ask Tooldeck
 * to run sampling and elicitation as tasks.
 */
describe.each(['stdio', 'Streamable HTTP'] as const)('MCP tasks with server-everything over %s', (transport) => {
  let peer: RunningPeer | undefined;
  let service: McpService;
  let dataDir: string;
  let tools: ReturnType<typeof pipelineFor>;
  const server = 'everything';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-tasks-'));
    service = new McpService({ dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0.0.0' }, connectTimeoutMs: 15_000 });
    tools = pipelineFor(service);
    await service.init();
    if (transport === 'stdio') await service.save({ config: everythingStdio(server) as never });
    else {
      peer = await startEverythingHttp();
      await service.save({ config: { name: server, transport: 'http', url: peer.url } as never });
    }
  }, 30_000);
  afterAll(async () => {
    tools.close();
    await service.close();
    await peer?.close();
  });

  async function invoke(tool: string, args: Record<string, unknown>, extra: Partial<Parameters<typeof tools.pipeline.invoke>[0]> = {}): Promise<{ outcome: InvocationOutcome; updates: Array<TaskEvent & { taskId: string }> }> {
    const updates: Array<TaskEvent & { taskId: string }> = [];
    const outcome = await tools.pipeline.invoke({ caller: operatorCaller('cli'), name: `mcp:${server}.${tool}`, arguments: args, confirmed: true, onTask: (u) => updates.push(u), ...extra });
    return { outcome, updates };
  }

  it('lists the task tools and advertises task support both ways', () => {
    const snapshot = service.get(server);
    const byName = new Map(snapshot.tools.map((t) => [t.name, t]));
    expect(byName.get('simulate-research-query')?.execution).toMatchObject({ taskSupport: 'required' });
    // Only listed because Tooldeck declares tasks.requests.sampling/elicitation.
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['trigger-sampling-request-async', 'trigger-elicitation-request-async']));
    expect(service.connection(server)!.tasks.capabilities).toEqual({ toolCall: true, list: true, cancel: true });
  });

  it('runs a task-required tool as a task, follows its stages to the result, and records the task', async () => {
    const { outcome, updates } = await invoke('simulate-research-query', { topic: 'tides' });
    expect(outcome.error).toBeUndefined();
    expect(outcome.result?.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('# Research Report: tides') });
    const task = outcome.task!;
    expect(task).toMatchObject({ status: 'completed', awaited: true });
    expect(task.events[0]).toMatchObject({ status: 'working', via: 'created' });
    expect(task.events.map((e) => e.statusMessage)).toEqual(expect.arrayContaining(['Gathering sources...', 'Generating report...']));
    expect(task.events.at(-1)).toMatchObject({ status: 'completed' });
    expect(task.events.filter((e) => e.status === 'completed')).toHaveLength(1);
    expect(updates.map((u) => u.taskId)).toEqual(task.events.map(() => task.taskId));
    expect(outcome.record).toMatchObject({ status: 'ok', taskId: task.taskId, taskStatus: 'completed' });
    expect(await new TaskLedger(dataDir).get(server, task.taskId)).toMatchObject({ origin: 'call', subject: 'simulate-research-query', status: 'completed' });
    // Every request that followed the task (tasks/get polls, tasks/result) is in the call's own trace.
    const followUps = service
      .transcript(server)!
      .list()
      .filter((e) => e.direction === 'out' && (e.method === 'tasks/get' || e.method === 'tasks/result'))
      .map((e) => JSON.parse(e.text) as { method: string; params: { taskId?: string; _meta?: { traceparent?: string } } })
      .filter((m) => m.params.taskId === task.taskId);
    expect(followUps.map((m) => m.method)).toContain('tasks/result');
    expect(new Set(followUps.map((m) => TRACEPARENT.exec(m.params._meta?.traceparent ?? '')?.[1]))).toEqual(new Set([outcome.record.traceId]));
  }, 30_000);

  it('asks the operator when the task needs input (input_required, elicitation through tasks/result)', async () => {
    const asked = nextInteraction(service, (p) => p.kind === 'elicitation');
    const running = invoke('simulate-research-query', { topic: 'python', ambiguous: true });
    const interaction = await asked;
    expect(interaction).toMatchObject({ kind: 'elicitation', server, message: expect.stringContaining('multiple interpretations') });
    expect(interaction.relatedTaskId).toEqual(expect.any(String));
    service.broker.answer(interaction.id, { kind: 'elicitation', action: 'accept', content: { interpretation: 'snake' } });
    const { outcome } = await running;
    expect(outcome.task!.taskId).toBe(interaction.relatedTaskId);
    expect(outcome.task!.events.map((e) => e.status)).toContain('input_required');
    expect(outcome.result?.content[0]).toMatchObject({ text: expect.stringContaining('python (snake)') });
  }, 30_000);

  it('runs sampling as a task when the server asks (tasks.requests.sampling), the operator answering', async () => {
    const asked = nextInteraction(service, (p) => p.kind === 'sampling');
    const running = invoke('trigger-sampling-request-async', { prompt: 'Name a colour' });
    const interaction = await asked;
    expect(interaction.relatedTaskId).toEqual(expect.any(String));
    const listed = await service.tasks.list(server);
    expect(listed.tasks.find((t) => t.taskId === interaction.relatedTaskId)).toMatchObject({ origin: 'executor', subject: 'sampling/createMessage', status: 'working' });
    service.broker.answer(interaction.id, { kind: 'sampling', action: 'reply', text: 'Teal.', model: 'operator' });
    const { outcome } = await running;
    const text = (outcome.result?.content[0] as { text: string }).text;
    expect(text).toContain('[COMPLETED] Async sampling completed!');
    expect(text).toContain('Teal.');
    expect(text).toContain(`Task created: ${interaction.relatedTaskId}`);
  }, 30_000);

  it('runs elicitation as a task when the server asks (tasks.requests.elicitation)', async () => {
    const asked = nextInteraction(service, (p) => p.kind === 'elicitation');
    const running = invoke('trigger-elicitation-request-async', {});
    const interaction = await asked;
    expect(interaction.relatedTaskId).toEqual(expect.any(String));
    service.broker.answer(interaction.id, { kind: 'elicitation', action: 'accept', content: { name: 'Ada', favoriteColor: 'green' } });
    const { outcome } = await running;
    const text = outcome.result?.content.map((c) => (c as { text: string }).text).join('\n');
    expect(text).toContain('[COMPLETED] User provided the requested information!');
    expect(text).toContain('- Name: Ada');
    expect(text).toContain('- Favorite Color: green');
  }, 30_000);

  it('detaches, lists, gets, cancels, and refuses the result of a cancelled task', async () => {
    const { outcome } = await invoke('simulate-research-query', { topic: 'glaciers' }, { task: { mode: 'detach' } });
    const task = outcome.task!;
    expect(task).toMatchObject({ awaited: false, status: 'working' });
    expect(outcome.record).toMatchObject({ status: 'ok', taskId: task.taskId, taskStatus: 'working' });
    expect(outcome.result?.content[0]).toMatchObject({ text: expect.stringContaining(`tooldeck mcp task get ${server} ${task.taskId}`) });

    const listed = await service.tasks.list(server);
    expect(listed).toMatchObject({ canList: true, canCancel: true });
    expect(listed.tasks.find((t) => t.taskId === task.taskId)).toMatchObject({ known: true, onServer: true, subject: 'simulate-research-query' });
    expect(await service.tasks.get(server, task.taskId)).toMatchObject({ status: 'working' });

    expect(await service.tasks.cancel(server, task.taskId)).toMatchObject({ status: 'cancelled' });
    const result = await service.tasks.result(server, task.taskId);
    expect(result.task.status).toBe('cancelled');
    expect(result.result).toBeUndefined();
    expect(result.error?.message).toBeTruthy();
    expect(await new TaskLedger(dataDir).get(server, task.taskId)).toMatchObject({ status: 'cancelled' });
    await expect(service.tasks.get(server, 'no-such-task')).rejects.toMatchObject({ code: 'NotFound' });
  }, 30_000);

  it('fetches a detached task’s result once it is done', async () => {
    const { outcome } = await invoke('simulate-research-query', { topic: 'dunes' }, { task: { mode: 'detach' } });
    const result = await service.tasks.result(server, outcome.task!.taskId);
    expect(result.task.status).toBe('completed');
    expect(JSON.stringify(result.result)).toContain('Research Report: dunes');
  }, 30_000);

  it('cancels the server task when the call is cancelled', async () => {
    const controller = new AbortController();
    let taskId: string | undefined;
    const { outcome } = await invoke(
      'simulate-research-query',
      { topic: 'storms' },
      {
        signal: controller.signal,
        onTask: (u) => {
          taskId = u.taskId;
          if (u.statusMessage === 'Analyzing content...') controller.abort();
        },
      },
    );
    expect(outcome.record.status).toBe('canceled');
    expect(outcome.record.taskId).toBe(taskId);
    await expect.poll(async () => (await service.tasks.get(server, taskId!)).status, { timeout: 10_000 }).toBe('cancelled');
  }, 30_000);

  it('refuses to run a tool without task support as a task', async () => {
    const { outcome } = await invoke('echo', { message: 'x' }, { task: { mode: 'wait' } });
    expect(outcome.error).toMatchObject({ code: 'InvalidInput', message: expect.stringContaining('cannot run as a task') });
  });
});
