import { AppError } from '../../../shared/errors';
import { isTerminalTaskStatus, type KnownTask, type McpTask, type ServerTaskList, type ServerTaskView, type TaskResultView } from '../../../shared/tasks';
import type { Logger } from '../../platform/Logger';
import type { McpConnection } from '../McpConnection';
import type { TaskLedger } from './TaskLedger';
import { Emitter } from '../../platform/Emitter';

export interface McpTaskServiceOptions {
  ledger: TaskLedger;
  /** A saved server's live connection, if any. */
  connection: (server: string) => McpConnection | undefined;
  /** Throws NotFound for a server that is not saved. */
  requireServer: (server: string) => void;
  /**
   * Follow unfinished tasks in the background until they end (the console, so a detached call's
   * history record gets its final status); the CLI waits on the tasks it cares about itself.
   */
  follow: boolean;
  logger: Logger;
}

const FOLLOW_FIRST_MS = 1_000;
const FOLLOW_MAX_MS = 15_000;

/**
 * A server's tasks for the Tasks tab and `tooldeck mcp task`: the ones Tooldeck remembers (it
 * started them) merged with what tasks/list returns, and tasks/get, tasks/result and tasks/cancel
 * by id. Unfinished remembered tasks are followed until they end, so their status stays current
 * after a reload or a restart, and a task the server no longer has is marked as gone.
 */
export class McpTaskService {
  private readonly followed = new Set<string>();
  private readonly readiness = new Map<string, boolean>();
  private readonly changes = new Emitter<string>((error) => this.options.logger.warn('task listener failed', { error: (error as Error).message }));
  private readonly settlements = new Emitter<KnownTask>((error) => this.options.logger.warn('task listener failed', { error: (error as Error).message }));
  private closed = false;

  constructor(private readonly options: McpTaskServiceOptions) {
    options.ledger.onChange((server) => this.emit(server));
    options.ledger.onSettled((task) => {
      this.settlements.emit(task);
    });
  }

  async list(server: string, signal?: AbortSignal): Promise<ServerTaskList> {
    this.options.requireServer(server);
    const known = await this.options.ledger.list(server);
    const connection = this.ready(server);
    const capabilities = connection ? connection.tasks.capabilities : { list: false, cancel: false, toolCall: false };
    let listed: McpTask[] = [];
    let problem: string | undefined;
    if (!connection) problem = `${server} is not connected: showing the tasks Tooldeck remembers, with their last known status`;
    else if (capabilities.list) {
      try {
        listed = await connection.tasks.list(signal);
      } catch (error) {
        problem = `tasks/list failed: ${(error as Error).message}`;
      }
    }
    const views = new Map<string, ServerTaskView>();
    for (const task of known) views.set(task.taskId, { ...task, known: true, onServer: false });
    for (const task of listed) {
      const remembered = views.get(task.taskId);
      views.set(task.taskId, { ...fromWire(server, task, remembered), known: !!remembered, onServer: true });
    }
    for (const { task, method } of connection?.executorTaskList() ?? []) {
      views.set(task.taskId, { ...fromWire(server, task, undefined, 'executor', method), known: false, onServer: false });
    }
    return {
      server,
      tasks: [...views.values()].sort((a, b) => b.createdAt - a.createdAt),
      canList: capabilities.list,
      canCancel: capabilities.cancel,
      ...(problem ? { problem } : {}),
    };
  }

  async get(server: string, taskId: string): Promise<ServerTaskView> {
    const connection = this.require(server);
    const remembered = await this.options.ledger.get(server, taskId);
    const task = await connection.tasks.get(taskId);
    await this.options.ledger.update(server, taskId, { status: task.status, statusMessage: task.statusMessage, gone: false });
    return { ...fromWire(server, task, remembered), known: !!remembered, onServer: true };
  }

  /** tasks/result: waits for the task to end when it has not (the operator answers any input it asks for meanwhile). */
  async result(server: string, taskId: string, signal?: AbortSignal): Promise<TaskResultView> {
    const connection = this.require(server);
    let payload: Record<string, unknown> | undefined;
    let failure: AppError | undefined;
    try {
      payload = await connection.tasks.result(taskId, signal);
    } catch (error) {
      if (error instanceof AppError && error.code === 'NotFound') throw error;
      failure = error instanceof AppError ? error : new AppError('ExecutionFailed', (error as Error).message, { cause: error });
    }
    const task = await connection.tasks.get(taskId).catch(() => undefined);
    const settled: McpTask = task ?? { taskId, status: payload ? 'completed' : 'failed' };
    await this.options.ledger.update(server, taskId, { status: settled.status, statusMessage: settled.statusMessage });
    return { task: settled, ...(payload ? { result: payload } : {}), ...(failure ? { error: failure.toShape() } : {}) };
  }

  async cancel(server: string, taskId: string): Promise<ServerTaskView> {
    const connection = this.require(server);
    if (!connection.tasks.capabilities.cancel) throw new AppError('InvalidInput', `${server} does not offer tasks/cancel (capabilities.tasks.cancel)`);
    const remembered = await this.options.ledger.get(server, taskId);
    const task = await connection.tasks.cancel(taskId);
    return { ...fromWire(server, task, remembered), known: !!remembered, onServer: true };
  }

  /** Forget a remembered task (its result is no longer wanted). */
  async forget(server: string, taskId: string): Promise<void> {
    this.options.requireServer(server);
    await this.options.ledger.forget(server, taskId);
  }

  onChange(listener: (server: string) => void): () => void {
    return this.changes.on(listener);
  }

  /** A remembered task reached completed, failed or cancelled (history gets its final status). */
  onSettled(listener: (task: KnownTask) => void): () => void {
    return this.settlements.on(listener);
  }

  /** A server connected, or its state changed: follow its unfinished tasks (console only). */
  async serverChanged(server: string): Promise<void> {
    const ready = !!this.ready(server);
    if (this.readiness.get(server) === ready) return;
    this.readiness.set(server, ready);
    this.emit(server);
    if (!this.options.follow || this.closed || !ready) return;
    for (const task of await this.options.ledger.list(server)) {
      if (task.origin === 'call' && !task.gone && !isTerminalTaskStatus(task.status)) this.follow(server, task.taskId);
    }
  }

  /** Something about the server's tasks changed that the ledger does not see (tasks Tooldeck runs for it). */
  changed(server: string) {
    this.emit(server);
  }

  /** Starts following a task that was just remembered (a detached call). */
  taskStarted(server: string, taskId: string) {
    if (this.options.follow) this.follow(server, taskId);
  }

  close() {
    this.closed = true;
  }

  private follow(server: string, taskId: string) {
    const key = `${server}\u0000${taskId}`;
    if (this.followed.has(key)) return;
    this.followed.add(key);
    void (async () => {
      let delay = FOLLOW_FIRST_MS;
      let last: string | undefined;
      try {
        while (!this.closed) {
          await new Promise((resolve) => setTimeout(resolve, delay).unref?.());
          const connection = this.ready(server);
          if (!connection || this.closed) return;
          let task: McpTask;
          try {
            task = await connection.tasks.get(taskId);
          } catch (error) {
            // NotFound marks it gone (in ConnectionTasks); anything else ends this follow until the next connect.
            if (!(error instanceof AppError && error.code === 'NotFound')) this.options.logger.debug('task follow stopped', { server, taskId, error: (error as Error).message });
            return;
          }
          const seen = `${task.status}\u0000${task.statusMessage ?? ''}`;
          if (seen !== last) await this.options.ledger.update(server, taskId, { status: task.status, statusMessage: task.statusMessage });
          if (isTerminalTaskStatus(task.status)) return;
          delay = seen === last ? Math.min(FOLLOW_MAX_MS, delay * 2) : FOLLOW_FIRST_MS;
          last = seen;
        }
      } finally {
        this.followed.delete(key);
      }
    })();
  }

  private ready(server: string): McpConnection | undefined {
    const connection = this.options.connection(server);
    return connection?.state.status === 'ready' ? connection : undefined;
  }

  private require(server: string): McpConnection {
    this.options.requireServer(server);
    const connection = this.ready(server);
    if (!connection) throw new AppError('ConnectionFailed', `${server} is not connected; connect it to reach its tasks`);
    return connection;
  }

  private emit(server: string) {
    this.changes.emit(server);
  }
}

function fromWire(server: string, task: McpTask, remembered: KnownTask | undefined, origin: KnownTask['origin'] = 'call', subject?: string): KnownTask {
  const created = task.createdAt ? Date.parse(task.createdAt) : NaN;
  const updated = task.lastUpdatedAt ? Date.parse(task.lastUpdatedAt) : NaN;
  return {
    server,
    taskId: task.taskId,
    origin: remembered?.origin ?? origin,
    subject: remembered?.subject ?? subject ?? '(not started by Tooldeck)',
    createdAt: remembered?.createdAt ?? (Number.isFinite(created) ? created : Date.now()),
    updatedAt: Number.isFinite(updated) ? updated : Date.now(),
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    ttlMs: task.ttl ?? remembered?.ttlMs ?? null,
  };
}
