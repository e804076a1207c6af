import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPeer } from '../../../e2e/peers/mcp/everything';
import { fakeTasksExtensionStdio, startFakeTasksExtensionHttp } from '../../../e2e/peers/mcp/fakeTasksExtension';
import type { PendingInteraction } from '../../../shared/mcp';
import type { InvocationOutcome } from '../../../shared/registry';
import type { TaskEvent } from '../../../shared/tasks';
import { TRACEPARENT } from '../../metrics/CallTracing';
import { silentLogger } from '../../platform/Logger';
import { MemorySecretStore } from '../../platform/SecretStore';
import { McpService } from '../McpService';
import { pipelineFor } from '../testing/pipelineFor';
import { TaskLedger } from './TaskLedger';
import { TASKS_EXTENSION } from './taskWire';
import { operatorCaller } from '../../../shared/caller';

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
 * The 2026 form of MCP tasks (SEP-2663, the tasks extension of revision 2026-07-28) against a
 * server written for the tests on the official server SDK: the server turns calls into tasks,
 * tasks/get carries the result or the error, a task's questions are answered with tasks/update.
 */
describe.each(['stdio', 'Streamable HTTP'] as const)('MCP tasks extension (SEP-2663) over %s', (transport) => {
  let peer: RunningPeer | undefined;
  let service: McpService;
  let dataDir: string;
  let tools: ReturnType<typeof pipelineFor>;
  const server = 'tasks2026';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-tasks-ext-'));
    service = new McpService({ dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0.0.0' }, connectTimeoutMs: 15_000 });
    tools = pipelineFor(service);
    await service.init();
    if (transport === 'stdio') await service.save({ config: fakeTasksExtensionStdio(server) as never });
    else {
      peer = await startFakeTasksExtensionHttp();
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

  const sent = (method: string) =>
    service
      .transcript(server)!
      .list()
      .filter((e) => e.direction === 'out' && e.method === method)
      .map((e) => JSON.parse(e.text) as { params: Record<string, unknown> & { _meta?: Record<string, { extensions?: Record<string, unknown> }> } });

  it('connects in the 2026-07-28 era and finds the extension on both sides', () => {
    expect(service.get(server)).toMatchObject({ protocolVersion: '2026-07-28', era: 'modern' });
    const tasks = service.connection(server)!.tasks;
    expect(tasks.form).toBe('extension');
    expect(tasks.capabilities).toEqual({ toolCall: true, list: false, cancel: true });
    // The 2026 revision's tools say nothing of task support: which calls become tasks is the server's call.
    expect(service.get(server).tools.find((t) => t.name === 'ask_model')?.execution).toBeUndefined();
  });

  it('runs a tool without task support as a plain call', async () => {
    const { outcome } = await invoke('greet', { name: 'Ada' });
    expect(outcome.result?.content[0]).toMatchObject({ text: 'Hello, Ada!' });
    expect(outcome.task).toBeUndefined();
  });

  it('follows a task the server made of a call to its inlined result, and records it', async () => {
    const { outcome, updates } = await invoke('slow_compute', { seconds: 0.3, label: 'tides' });
    expect(outcome.error).toBeUndefined();
    expect(outcome.result?.content[0]).toMatchObject({ type: 'text', text: 'Computed tides in 0.3s' });
    const task = outcome.task!;
    expect(task).toMatchObject({ status: 'completed', awaited: true });
    expect(task.events[0]).toMatchObject({ status: 'working', statusMessage: 'Computing tides', via: 'created' });
    expect(task.events.at(-1)).toMatchObject({ status: 'completed' });
    expect(task.events.filter((e) => e.status === 'completed')).toHaveLength(1);
    expect(updates.map((u) => u.taskId)).toEqual(task.events.map(() => task.taskId));
    expect(outcome.record).toMatchObject({ status: 'ok', taskId: task.taskId, taskStatus: 'completed' });
    expect(await new TaskLedger(dataDir).get(server, task.taskId)).toMatchObject({ origin: 'call', subject: 'slow_compute', status: 'completed' });

    // The client opted in by declaring the extension, not with a `task` parameter (the 2025 form).
    const call = sent('tools/call').at(-1)!;
    expect(call.params.task).toBeUndefined();
    expect(call.params._meta?.['io.modelcontextprotocol/clientCapabilities']?.extensions).toHaveProperty([TASKS_EXTENSION]);
    expect(sent('tasks/result')).toEqual([]);
  }, 30_000);

  it('releases the signal of a plain call, never of one the server made a task of (the task still uses it)', async () => {
    const released: string[] = [];
    const tasksMade: string[] = [];
    const call = (tool: string, args: Record<string, unknown>) =>
      service.connection(server)!.callTool(tool, args, {
        signal: new AbortController().signal,
        listener: { onProgress() {}, keepAlive() {}, onTask: (update) => tasksMade.push(`${tool} ${update.status}`), releaseSignal: () => released.push(tool) },
        backstopMs: 30_000,
        task: { mode: 'detach' },
      });
    await call('greet', { name: 'Ada' });
    await call('slow_compute', { seconds: 0.2, label: 'held' });
    expect(tasksMade).toContain('slow_compute working');
    expect(released).toEqual(['greet']);
  }, 30_000);

  it('answers a task’s elicitation through the operator and tasks/update', async () => {
    const asked = nextInteraction(service, (p) => p.kind === 'elicitation');
    const running = invoke('confirm_delete', { filename: 'notes.txt' });
    const interaction = await asked;
    expect(interaction).toMatchObject({ kind: 'elicitation', server, message: 'Delete notes.txt?' });
    service.broker.answer(interaction.id, { kind: 'elicitation', action: 'accept', content: { confirm: true } });
    const { outcome } = await running;
    expect(outcome.task!.taskId).toBe(interaction.relatedTaskId);
    expect(outcome.task!.events.map((e) => e.status)).toContain('input_required');
    expect(outcome.result?.content[0]).toMatchObject({ text: 'Deleted notes.txt' });
    expect(sent('tasks/update').at(-1)!.params).toMatchObject({ taskId: interaction.relatedTaskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
    // The polls and the answer that followed the task are in the call's own trace.
    const traceOf = (message: { params: { _meta?: unknown } }) => TRACEPARENT.exec((message.params._meta as { traceparent?: string } | undefined)?.traceparent ?? '')?.[1];
    const followUps = [...sent('tasks/get'), ...sent('tasks/update')].filter((m) => m.params.taskId === interaction.relatedTaskId);
    expect(followUps.length).toBeGreaterThan(1);
    expect(new Set(followUps.map(traceOf))).toEqual(new Set([outcome.record.traceId]));
  }, 30_000);

  it('answers a task’s sampling request through the operator', async () => {
    const asked = nextInteraction(service, (p) => p.kind === 'sampling');
    const running = invoke('ask_model', { question: 'Sky colour?' });
    const interaction = await asked;
    expect(interaction.relatedTaskId).toEqual(expect.any(String));
    service.broker.answer(interaction.id, { kind: 'sampling', action: 'reply', text: 'Blue.', model: 'operator' });
    const { outcome } = await running;
    expect(outcome.result?.content[0]).toMatchObject({ text: 'The model said: Blue.' });
  }, 30_000);

  it('cancels the task when the operator declines what it asks', async () => {
    const asked = nextInteraction(service, (p) => p.kind === 'sampling');
    const running = invoke('ask_model', { question: 'Secret?' });
    const interaction = await asked;
    service.broker.answer(interaction.id, { kind: 'sampling', action: 'reject', text: '', model: '' });
    const { outcome } = await running;
    expect(outcome.error).toMatchObject({ code: 'PolicyDenied' });
    await expect.poll(async () => (await service.tasks.get(server, interaction.relatedTaskId!)).status, { timeout: 10_000 }).toBe('cancelled');
  }, 30_000);

  it('reports a tool error as a completed task with an error result, and a protocol error as a failed task', async () => {
    const toolError = (await invoke('failing_job', {})).outcome;
    expect(toolError.task).toMatchObject({ status: 'completed' });
    expect(toolError.result).toMatchObject({ isError: true, content: [{ text: 'The job hit a wall' }] });
    expect(toolError.record).toMatchObject({ status: 'error', isError: true, taskStatus: 'completed' });

    const crashed = (await invoke('protocol_error_job', {})).outcome;
    expect(crashed.error).toMatchObject({ code: 'ExecutionFailed', message: expect.stringContaining('The worker process crashed') });
    expect(crashed.task).toMatchObject({ status: 'failed' });
    expect(crashed.record).toMatchObject({ taskStatus: 'failed' });
  }, 30_000);

  it('detaches, lists what it remembers (no tasks/list in the extension), gets and cancels', async () => {
    const { outcome } = await invoke('slow_compute', { seconds: 60, label: 'long' }, { task: { mode: 'detach' } });
    const task = outcome.task!;
    expect(task).toMatchObject({ awaited: false, status: 'working' });
    expect(outcome.record).toMatchObject({ status: 'ok', taskId: task.taskId, taskStatus: 'working' });

    const listed = await service.tasks.list(server);
    expect(listed).toMatchObject({ canList: false, canCancel: true });
    expect(listed.tasks.find((t) => t.taskId === task.taskId)).toMatchObject({ known: true, subject: 'slow_compute', status: 'working' });
    expect(await service.tasks.get(server, task.taskId)).toMatchObject({ status: 'working', statusMessage: 'Computing long', ttlMs: 600_000 });

    expect(await service.tasks.cancel(server, task.taskId)).toMatchObject({ status: 'cancelled' });
    const result = await service.tasks.result(server, task.taskId);
    expect(result.task.status).toBe('cancelled');
    expect(result.result).toBeUndefined();
    expect(await new TaskLedger(dataDir).get(server, task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(sent('tasks/cancel').at(-1)!.params).toMatchObject({ taskId: task.taskId });
    await expect(service.tasks.get(server, 'no-such-task')).rejects.toMatchObject({ code: 'NotFound' });
  }, 30_000);

  it('fetches a detached task’s result from tasks/get once it is done', async () => {
    const { outcome } = await invoke('slow_compute', { seconds: 0.3, label: 'dunes' }, { task: { mode: 'detach' } });
    const result = await service.tasks.result(server, outcome.task!.taskId);
    expect(result.task.status).toBe('completed');
    expect(result.result).toMatchObject({ content: [{ text: 'Computed dunes in 0.3s' }] });
  }, 30_000);

  it('cancels the server task when the call is cancelled', async () => {
    const controller = new AbortController();
    let taskId: string | undefined;
    const { outcome } = await invoke(
      'slow_compute',
      { seconds: 60, label: 'storms' },
      {
        signal: controller.signal,
        onTask: (u) => {
          taskId = u.taskId;
          controller.abort();
        },
      },
    );
    expect(outcome.record.status).toBe('canceled');
    expect(outcome.record.taskId).toBe(taskId);
    await expect.poll(async () => (await service.tasks.get(server, taskId!)).status, { timeout: 10_000 }).toBe('cancelled');
  }, 30_000);
});
