import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { isTerminalTaskStatus, type McpTask, type TaskStatus } from '../../../shared/tasks';
import { RELATED_TASK_KEY } from './taskWire';
import { Emitter } from '../../platform/Emitter';

/** How long a finished task is kept when the server asked for no time-to-live. */
const DEFAULT_TTL_MS = 10 * 60_000;
const POLL_INTERVAL_MS = 1_000;

interface LocalTask {
  task: McpTask;
  /** The server-facing method it runs (sampling/createMessage, elicitation/create), for the Tasks tab. */
  method: string;
  controller: AbortController;
  done: Promise<void>;
  result?: Record<string, unknown>;
  error?: Error;
  expiry?: NodeJS.Timeout;
}

const ByTaskId = z.object({ taskId: z.string() }).loose();
const ListParams = z.object({ cursor: z.string().optional() }).loose();

/**
 * Tooldeck as a task executor (SEP-1686 `tasks.requests.*`): a server may ask for sampling or
 * elicitation *as a task*. The request is answered at once with the task; the operator answers it
 * in the console meanwhile, and the server polls tasks/get and fetches the answer with tasks/result.
 * Status changes are also sent as notifications/tasks/status.
 */
export class ClientTaskExecutor {
  private readonly tasks = new Map<string, LocalTask>();
  private readonly changes = new Emitter();

  constructor(private readonly client: Client) {
    client.setRequestHandler('tasks/get', { params: ByTaskId }, ({ taskId }) => this.require(taskId).task);
    client.setRequestHandler('tasks/result', { params: ByTaskId }, async ({ taskId }) => {
      const local = this.require(taskId);
      await local.done;
      if (local.error) throw new ProtocolError(ProtocolErrorCode.InternalError, local.error.message);
      return { ...local.result, _meta: { ...((local.result?._meta as object) ?? {}), [RELATED_TASK_KEY]: { taskId } } };
    });
    client.setRequestHandler('tasks/list', { params: ListParams }, () => ({ tasks: [...this.tasks.values()].map((t) => t.task) }));
    client.setRequestHandler('tasks/cancel', { params: ByTaskId }, ({ taskId }) => {
      const local = this.require(taskId);
      if (!isTerminalTaskStatus(local.task.status)) local.controller.abort(new Error('The server cancelled the task'));
      return local.task;
    });
  }

  /**
   * Starts `work` as a task and returns the CreateTaskResult to answer the server's request with.
   * `work` gets a signal that fires when the server cancels the task.
   */
  start(method: string, ttl: number | undefined, waitingMessage: string, work: (signal: AbortSignal, taskId: string) => Promise<Record<string, unknown>>): { task: McpTask } {
    const taskId = randomUUID();
    const now = new Date().toISOString();
    const controller = new AbortController();
    const local: LocalTask = {
      method,
      controller,
      task: { taskId, status: 'working', statusMessage: waitingMessage, createdAt: now, lastUpdatedAt: now, ttl: ttl ?? DEFAULT_TTL_MS, pollInterval: POLL_INTERVAL_MS },
      done: Promise.resolve(),
    };
    this.tasks.set(taskId, local);
    local.done = work(controller.signal, taskId).then(
      (result) => {
        local.result = result;
        this.setStatus(local, 'completed', undefined);
      },
      (error: unknown) => {
        local.error = error instanceof Error ? error : new Error(String(error));
        this.setStatus(local, controller.signal.aborted ? 'cancelled' : 'failed', local.error.message);
      },
    );
    local.expiry = setTimeout(() => this.tasks.delete(taskId), local.task.ttl ?? DEFAULT_TTL_MS);
    local.expiry.unref?.();
    this.emit();
    return { task: { ...local.task } };
  }

  /** The tasks this connection runs for its server, newest first. */
  list(): Array<{ task: McpTask; method: string }> {
    return [...this.tasks.values()].map((t) => ({ task: { ...t.task }, method: t.method })).reverse();
  }

  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  /** The connection closed: nothing runs on for a server that cannot ask for it. */
  close() {
    for (const local of this.tasks.values()) {
      clearTimeout(local.expiry);
      if (!isTerminalTaskStatus(local.task.status)) local.controller.abort(new Error('The connection closed'));
    }
    this.tasks.clear();
  }

  private setStatus(local: LocalTask, status: TaskStatus, message: string | undefined) {
    local.task = { ...local.task, status, statusMessage: message, lastUpdatedAt: new Date().toISOString() };
    if (message === undefined) delete local.task.statusMessage;
    this.emit();
    void this.client.notification({ method: 'notifications/tasks/status', params: local.task }).catch(() => undefined);
  }

  private require(taskId: string): LocalTask {
    const local = this.tasks.get(taskId);
    if (!local) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return local;
  }

  private emit() {
    this.changes.emit();
  }
}
