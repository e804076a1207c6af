import type { Client } from '@modelcontextprotocol/client';
import { AppError } from '../../../shared/errors';
import type { ToolResult } from '../../../shared/registry';
import { McpTask, type InvokeTaskOptions, type TaskEventSource } from '../../../shared/tasks';
import type { TaskUpdate } from '../../registry/types';
import { awaitTask, type TaskChannel } from './awaitTask';
import type { TaskLedger } from './TaskLedger';
import { CreateTaskResultWire, ListTasksResultWire, RELATED_TASK_KEY, TaskPayloadWire } from './taskWire';

export interface TaskCallOptions {
  options: InvokeTaskOptions;
  signal: AbortSignal;
  /** The SDK's own limit on each request, a backstop only (the pipeline decides timeouts). */
  backstopMs: number;
  onUpdate?: (update: TaskUpdate) => void;
}

/**
 * MCP tasks (SEP-1686) on one live connection: task-augmented tools/call, tasks/get, tasks/result,
 * tasks/list, tasks/cancel, and status notifications. Tasks this connection starts are remembered
 * in the ledger so they outlive the connection and the process.
 */
export class ConnectionTasks implements TaskChannel {
  private readonly statusListeners = new Set<(task: McpTask) => void>();

  constructor(
    private readonly server: string,
    private readonly client: Client,
    private readonly ledger?: TaskLedger,
    /** A call started a task and did not wait for it: someone else may follow it. */
    private readonly onDetached?: (taskId: string) => void,
  ) {
    client.setNotificationHandler('notifications/tasks/status', { params: McpTask }, (task) => {
      void this.ledger?.update(this.server, task.taskId, { status: task.status, statusMessage: task.statusMessage });
      for (const listener of this.statusListeners) listener(task);
    });
  }

  /** What the server's `capabilities.tasks` offers. */
  get capabilities(): { toolCall: boolean; list: boolean; cancel: boolean } {
    const tasks = (this.client.getServerCapabilities() as { tasks?: { list?: unknown; cancel?: unknown; requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
    return { toolCall: !!tasks?.requests?.tools?.call, list: !!tasks?.list, cancel: !!tasks?.cancel };
  }

  onStatus(listener: (task: McpTask) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /**
   * tools/call as a task: creates it, remembers it, then (mode `wait`) follows it to its result or
   * (mode `detach`) returns at once with a result that names the task.
   */
  async callTool(tool: string, args: Record<string, unknown>, call: TaskCallOptions): Promise<ToolResult> {
    const { signal, backstopMs, options } = call;
    const params = { name: tool, arguments: args, task: options.ttlMs ? { ttl: options.ttlMs } : {} };
    const created = (await this.client.request({ method: 'tools/call', params }, CreateTaskResultWire, { signal, timeout: backstopMs })).task;
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
    try {
      const { payload } = await awaitTask(this, created, { signal, onEvent: emit });
      return payload as ToolResult;
    } catch (error) {
      if (signal.aborted) this.cancelQuietly(created.taskId);
      throw error;
    } finally {
      // The caller reads the task's last status from the ledger (Tasks tab, a later process).
      await this.ledger?.settled();
    }
  }

  async get(taskId: string, signal?: AbortSignal): Promise<McpTask> {
    try {
      return await this.client.request({ method: 'tasks/get', params: { taskId } }, McpTask, { signal });
    } catch (error) {
      throw this.explain(taskId, error);
    }
  }

  /** tasks/result: may wait for the task to end; the requests it carries meanwhile go to the operator. */
  async result(taskId: string, signal?: AbortSignal, backstopMs = 24 * 3_600_000): Promise<Record<string, unknown>> {
    try {
      const payload = await this.client.request({ method: 'tasks/result', params: { taskId } }, TaskPayloadWire, { signal, timeout: backstopMs, maxTotalTimeout: backstopMs });
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

  async cancel(taskId: string): Promise<McpTask> {
    let task: McpTask;
    try {
      task = await this.client.request({ method: 'tasks/cancel', params: { taskId } }, McpTask);
    } catch (error) {
      throw this.explain(taskId, error);
    }
    await this.ledger?.update(this.server, taskId, { status: task.status, statusMessage: task.statusMessage });
    for (const listener of this.statusListeners) listener(task);
    return task;
  }

  private cancelQuietly(taskId: string) {
    void this.cancel(taskId).catch(() => undefined);
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
