import type { Client } from '@modelcontextprotocol/client';
import { AppError } from '../../../shared/errors';
import type { ToolResult } from '../../../shared/registry';
import { declaresTasksExtension, McpTask, type InvokeTaskOptions, type TaskEventSource } from '../../../shared/tasks';
import type { TaskUpdate } from '../../registry/types';
import { awaitTask, type TaskChannel } from './awaitTask';
import type { TaskLedger } from './TaskLedger';
import {
  AckWire,
  type CreatedTask2026,
  CreateTaskResultWire,
  DetailedTaskWire,
  ListTasksResultWire,
  RELATED_TASK_KEY,
  TaskPayloadWire,
  taskFrom2026,
  type InputRequestWire,
} from './taskWire';
import { Emitter } from '../../platform/Emitter';

export interface TaskCallOptions {
  options: InvokeTaskOptions;
  signal: AbortSignal;
  /** The SDK's own limit on each request, a backstop only (the pipeline decides timeouts). */
  backstopMs: number;
  onUpdate?: (update: TaskUpdate) => void;
  /** The call's W3C traceparent, sent in the tools/call request's `_meta` (SEP-414). */
  traceparent?: string;
}

/**
 * Answers one request a task waits on (SEP-2663 `inputRequests`): elicitation and sampling go to
 * the operator. Resolves with the response the server expects (an ElicitResult, a CreateMessageResult).
 */
export type InputAnswerer = (method: string, params: unknown, signal: AbortSignal | undefined, taskId: string) => Promise<Record<string, unknown>>;

/** Which form of tasks the server speaks: SEP-1686 (2025-11-25 core) or the SEP-2663 extension; none. */
export type TaskForm = 'core' | 'extension' | undefined;

const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 5_000;

/**
 * MCP tasks on one live connection, in the form the server speaks. SEP-1686 (2025-11-25):
 * task-augmented tools/call, tasks/get, tasks/result, tasks/list, tasks/cancel and status
 * notifications. SEP-2663 (the 2026-07-28 extension): the server decides which calls become tasks,
 * tasks/get carries the result, the requests a task waits on are answered with tasks/update, there
 * is no tasks/list. Tasks this connection starts are remembered in the ledger so they outlive the
 * connection and the process.
 */
export class ConnectionTasks implements TaskChannel {
  private readonly statusChanges = new Emitter<McpTask>();

  constructor(
    private readonly server: string,
    private readonly client: Client,
    private readonly ledger?: TaskLedger,
    /** A call started a task and did not wait for it: someone else may follow it. */
    private readonly onDetached?: (taskId: string) => void,
    /** Answers what a SEP-2663 task asks for (its `inputRequests`). */
    private readonly answer?: InputAnswerer,
  ) {
    client.setNotificationHandler('notifications/tasks/status', { params: McpTask }, (task) => {
      void this.ledger?.update(this.server, task.taskId, { status: task.status, statusMessage: task.statusMessage });
      this.statusChanges.emit(task);
    });
  }

  /** The form of tasks the server declares (the extension wins when it declares both). */
  get form(): TaskForm {
    const capabilities = this.client.getServerCapabilities() as { tasks?: unknown } | undefined;
    if (declaresTasksExtension(capabilities)) return 'extension';
    return capabilities?.tasks ? 'core' : undefined;
  }

  /**
   * With the extension the server, not the caller, decides whether a call becomes a task (and the
   * 2026 revision's tools carry no `execution.taskSupport`): any tools/call may come back as one.
   */
  get serverDecides(): boolean {
    return this.form === 'extension';
  }

  /** What the server's task capability offers (the extension has no tasks/list). */
  get capabilities(): { toolCall: boolean; list: boolean; cancel: boolean } {
    if (this.form === 'extension') return { toolCall: true, list: false, cancel: true };
    const tasks = (this.client.getServerCapabilities() as { tasks?: { list?: unknown; cancel?: unknown; requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
    return { toolCall: !!tasks?.requests?.tools?.call, list: !!tasks?.list, cancel: !!tasks?.cancel };
  }

  onStatus(listener: (task: McpTask) => void): () => void {
    return this.statusChanges.on(listener);
  }

  /**
   * tools/call as a task (SEP-1686, the caller asks for one): creates it, remembers it, then
   * (mode `wait`) follows it to its result or (mode `detach`) returns at once with a result that
   * names the task.
   */
  async callTool(tool: string, args: Record<string, unknown>, call: TaskCallOptions): Promise<ToolResult> {
    const { signal, backstopMs, options } = call;
    const params = { name: tool, arguments: args, task: options.ttlMs ? { ttl: options.ttlMs } : {}, ...(call.traceparent ? { _meta: { traceparent: call.traceparent } } : {}) };
    const created = (await this.client.request({ method: 'tools/call', params }, CreateTaskResultWire, { signal, timeout: backstopMs })).task;
    return this.follow(tool, created, call);
  }

  /** A call the server answered with a task of its own making (SEP-2663): remembered and followed the same way. */
  adopt(tool: string, created: CreatedTask2026, call: TaskCallOptions): Promise<ToolResult> {
    return this.follow(tool, taskFrom2026(created), call);
  }

  private async follow(tool: string, created: McpTask, call: TaskCallOptions): Promise<ToolResult> {
    const { signal, options } = call;
    const emit = (task: McpTask, via: TaskEventSource) => {
      call.onUpdate?.({ taskId: task.taskId, at: Date.now(), status: task.status, via, ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}) });
      if (via !== 'created') void this.ledger?.update(this.server, task.taskId, { status: task.status, statusMessage: task.statusMessage });
    };
    const now = Date.now();
    await this.ledger?.remember({
      server: this.server,
      taskId: created.taskId,
      origin: 'call',
      subject: tool,
      createdAt: now,
      updatedAt: now,
      status: created.status,
      ...(created.statusMessage ? { statusMessage: created.statusMessage } : {}),
      ttlMs: created.ttl ?? null,
    });
    emit(created, 'created');
    if (options.mode === 'detach') {
      this.onDetached?.(created.taskId);
      return detachedResult(this.server, created);
    }
    // Every request that follows the task (tasks/get, tasks/result, tasks/update, tasks/cancel)
    // carries the call's traceparent, so the whole task is one trace on both sides.
    const { traceparent } = call;
    const channel: TaskChannel = {
      get: (taskId, signal) => this.get(taskId, signal, traceparent),
      result: (taskId, signal) => this.result(taskId, signal, undefined, traceparent),
      onStatus: (listener) => this.onStatus(listener),
    };
    try {
      const { payload } = await awaitTask(channel, created, { signal, onEvent: emit });
      return payload as ToolResult;
    } catch (error) {
      if (signal.aborted) this.cancelQuietly(created.taskId, traceparent);
      throw error;
    } finally {
      // The caller reads the task's last status from the ledger (Tasks tab, a later process).
      await this.ledger?.settled();
    }
  }

  /** `traceparent`: the call the task belongs to, when it is a call's follow-up (else the request gets a trace of its own). */
  async get(taskId: string, signal?: AbortSignal, traceparent?: string): Promise<McpTask> {
    if (this.form === 'extension') return taskFrom2026(await this.detailed(taskId, signal, traceparent));
    try {
      return await this.client.request({ method: 'tasks/get', params: traced({ taskId }, traceparent) }, McpTask, { signal });
    } catch (error) {
      throw this.explain(taskId, error);
    }
  }

  /** SEP-2663 tasks/get: the task with its result, error or pending input requests. */
  private async detailed(taskId: string, signal?: AbortSignal, traceparent?: string): Promise<DetailedTaskWire> {
    try {
      return await this.client.request({ method: 'tasks/get', params: traced({ taskId }, traceparent) }, DetailedTaskWire, { signal });
    } catch (error) {
      throw this.explain(taskId, error);
    }
  }

  /** tasks/result: may wait for the task to end; the requests it carries meanwhile go to the operator. */
  async result(taskId: string, signal?: AbortSignal, backstopMs = 24 * 3_600_000, traceparent?: string): Promise<Record<string, unknown>> {
    if (this.form === 'extension') return this.resultByPolling(taskId, signal, traceparent);
    try {
      const payload = await this.client.request({ method: 'tasks/result', params: traced({ taskId }, traceparent) }, TaskPayloadWire, { signal, timeout: backstopMs, maxTotalTimeout: backstopMs });
      const { [RELATED_TASK_KEY]: _related, ...meta } = (payload._meta ?? {}) as Record<string, unknown>;
      return Object.keys(meta).length ? { ...payload, _meta: meta } : Object.fromEntries(Object.entries(payload).filter(([k]) => k !== '_meta'));
    } catch (error) {
      throw this.explain(taskId, error);
    }
  }

  /** Every page of tasks/list. */
  async list(signal?: AbortSignal): Promise<McpTask[]> {
    const tasks: McpTask[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const result = await this.client.request({ method: 'tasks/list', params: cursor ? { cursor } : {} }, ListTasksResultWire, { signal });
      tasks.push(...result.tasks);
      if (!result.nextCursor || result.nextCursor === cursor) break;
      cursor = result.nextCursor;
    }
    return tasks;
  }

  async cancel(taskId: string, traceparent?: string): Promise<McpTask> {
    let task: McpTask;
    try {
      if (this.form === 'extension') {
        // An empty acknowledgement: the next tasks/get says where the task stands.
        await this.client.request({ method: 'tasks/cancel', params: traced({ taskId }, traceparent) }, AckWire);
        task = await this.get(taskId, undefined, traceparent);
      } else task = await this.client.request({ method: 'tasks/cancel', params: traced({ taskId }, traceparent) }, McpTask);
    } catch (error) {
      throw this.explain(taskId, error);
    }
    await this.ledger?.update(this.server, taskId, { status: task.status, statusMessage: task.statusMessage });
    this.statusChanges.emit(task);
    return task;
  }

  /**
   * SEP-2663 has no blocking tasks/result: polls tasks/get (the server's interval, backing off
   * while nothing changes) until the task ends, answering each request it waits on (the operator
   * decides) with tasks/update — one at a time as they are answered, so a second question does
   * not wait for the first. Resolves with the inlined result; rejects when the task failed or was
   * cancelled, an answer could not be given, or the signal fires.
   */
  private async resultByPolling(taskId: string, signal?: AbortSignal, traceparent?: string): Promise<Record<string, unknown>> {
    const answering = new Set<string>();
    let failure: unknown;
    let wake: (() => void) | undefined;
    let delay = FIRST_POLL_MS;
    let last = '';
    for (;;) {
      if (signal?.aborted) throw new AppError('Canceled', 'The call was canceled.');
      if (failure) throw failure;
      const task = await this.detailed(taskId, signal, traceparent);
      if (task.status === 'completed') return task.result ?? { content: [] };
      if (task.status === 'failed') {
        const reason = task.error?.message ?? task.statusMessage ?? 'no reason given';
        throw new AppError('ExecutionFailed', task.error?.code !== undefined ? `${reason} (error ${task.error.code})` : reason, { retryable: false });
      }
      if (task.status === 'cancelled') throw new AppError('Canceled', `Task ${taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}.`, { retryable: false });
      for (const [key, request] of Object.entries(task.status === 'input_required' ? (task.inputRequests ?? {}) : {})) {
        if (answering.has(key)) continue;
        answering.add(key);
        this.answerInput(taskId, key, request, signal, traceparent).then(
          () => {
            // Acknowledged: the server has dropped the key, and a later round may use it again.
            answering.delete(key);
            wake?.();
          },
          (error: unknown) => {
            failure ??= error;
            wake?.();
          },
        );
      }
      const seen = `${task.status}\u0000${task.statusMessage ?? ''}\u0000${Object.keys(task.inputRequests ?? {}).join(',')}`;
      const first = Math.max(50, task.pollIntervalMs ?? FIRST_POLL_MS);
      delay = seen === last ? Math.min(Math.max(first, MAX_POLL_MS), Math.round(delay * 1.5)) : first;
      last = seen;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, delay);
        wake = done;
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  private async answerInput(taskId: string, key: string, request: InputRequestWire, signal?: AbortSignal, traceparent?: string): Promise<void> {
    if (!this.answer) throw new AppError('ExecutionFailed', `Task ${taskId} asks for ${request.method}, and nobody is here to answer it.`, { retryable: false });
    let response: Record<string, unknown>;
    try {
      response = await this.answer(request.method, request.params, signal, taskId);
    } catch (error) {
      // Unanswerable or declined: the task would wait forever, so it is cancelled.
      this.cancelQuietly(taskId, traceparent);
      throw error;
    }
    try {
      await this.client.request({ method: 'tasks/update', params: traced({ taskId, inputResponses: { [key]: response } }, traceparent) }, AckWire, { signal });
    } catch (error) {
      throw this.explain(taskId, error);
    }
  }

  private cancelQuietly(taskId: string, traceparent?: string) {
    void this.cancel(taskId, traceparent).catch(() => undefined);
  }

  /** "Task not found" (-32602) means the server no longer has it: remembered as gone. */
  private explain(taskId: string, error: unknown): AppError {
    const code = (error as { code?: unknown })?.code;
    const message = (error as Error)?.message ?? String(error);
    if (code === -32602 || /not found|unknown task|no task/i.test(message)) {
      void this.ledger?.update(this.server, taskId, { gone: true });
      return new AppError('NotFound', `${this.server} no longer has task ${taskId} (expired, or its tasks were kept per session and that session ended).`, { cause: error });
    }
    if (error instanceof AppError) return error;
    return new AppError('ExecutionFailed', message, { cause: error, retryable: false });
  }
}

/** Request params with the call's traceparent in `_meta` (SEP-414), when there is one. */
function traced<P extends Record<string, unknown>>(params: P, traceparent: string | undefined): P {
  return traceparent ? { ...params, _meta: { traceparent } } : params;
}

function detachedResult(server: string, task: McpTask): ToolResult {
  const kept = typeof task.ttl === 'number' ? ` for about ${Math.round(task.ttl / 60_000)} min` : '';
  return {
    content: [
      {
        type: 'text',
        text: `Started task ${task.taskId} (${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}). The server keeps it${kept}: follow it in ${server}'s Tasks tab or with \`tooldeck mcp task get ${server} ${task.taskId}\`.`,
      },
    ],
  };
}
