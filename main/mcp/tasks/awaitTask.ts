import { AppError } from '../../../shared/errors';
import { isTerminalTaskStatus, type McpTask, type TaskEventSource, type TaskStatus } from '../../../shared/tasks';

/** What waiting on a task needs from the connection. */
export interface TaskChannel {
  get(taskId: string, signal?: AbortSignal): Promise<McpTask>;
  /** tasks/result: blocks until the task ends, delivering the requests it makes meanwhile (input_required). */
  result(taskId: string, signal?: AbortSignal): Promise<Record<string, unknown>>;
  onStatus(listener: (task: McpTask) => void): () => void;
}

export interface AwaitTaskOptions {
  signal: AbortSignal;
  onEvent(task: McpTask, via: TaskEventSource): void;
  /** First poll delay when the server suggests none (ms). */
  initialPollMs?: number;
  /** Polling backs off to this (or the server's interval, if longer). */
  maxPollMs?: number;
}

const BACKOFF = 1.5;

/**
 * Waits for a task the server created: polls tasks/get (the server's suggested interval, backing
 * off while nothing changes, back to the start on every change; a status notification wakes it at
 * once), and calls tasks/result as soon as the task needs input — that call is how the server
 * delivers its elicitation or sampling requests (answered by the operator) — or has ended. Resolves
 * with the underlying result; rejects when the task failed or was cancelled, or the signal fires.
 */
export async function awaitTask(channel: TaskChannel, created: McpTask, options: AwaitTaskOptions): Promise<{ payload: Record<string, unknown>; final: McpTask }> {
  const { signal } = options;
  const initial = Math.max(50, created.pollInterval ?? options.initialPollMs ?? 500);
  const max = Math.max(initial, options.maxPollMs ?? 5_000);
  let current = created;
  let delay = initial;
  let wake: (() => void) | undefined;
  let outcome: { payload: Record<string, unknown> } | { error: unknown } | undefined;
  let resultCall: Promise<void> | undefined;

  const observe = (task: McpTask, via: TaskEventSource): boolean => {
    if (task.taskId !== created.taskId) return false;
    const changed = task.status !== current.status || task.statusMessage !== current.statusMessage;
    if (changed) {
      current = task;
      options.onEvent(task, via);
    }
    return changed;
  };
  const stop = channel.onStatus((task) => {
    if (observe(task, 'notification')) {
      delay = initial;
      wake?.();
    }
  });
  try {
    for (;;) {
      if (signal.aborted) throw abortReason(signal);
      if (!resultCall && needsResultCall(current.status)) {
        resultCall = channel.result(created.taskId, signal).then(
          (payload) => void (outcome = { payload }),
          (error: unknown) => void (outcome = { error }),
        );
        void resultCall.finally(() => wake?.());
      }
      if (outcome) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delay);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          wake = undefined;
          resolve();
        }
        wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
      if (signal.aborted) throw abortReason(signal);
      if (outcome) break;
      let polled: McpTask;
      try {
        polled = await channel.get(created.taskId, signal);
      } catch (error) {
        if (signal.aborted) throw abortReason(signal);
        throw new AppError('ExecutionFailed', `tasks/get for ${created.taskId} failed: ${(error as Error).message}`, { retryable: false, cause: error });
      }
      delay = observe(polled, 'poll') ? initial : Math.min(max, Math.round(delay * BACKOFF));
    }
  } finally {
    stop();
  }

  // The result (or its refusal) arrived: the task has ended; its final status says how.
  const final = await channel.get(created.taskId).catch(() => undefined);
  if ('payload' in outcome) {
    const settled: McpTask = final && isTerminalTaskStatus(final.status) ? final : { ...current, status: 'completed', statusMessage: final?.statusMessage ?? current.statusMessage };
    // A poll may have seen the end first: the timeline shows it once.
    if (settled.status !== current.status || settled.statusMessage !== current.statusMessage) options.onEvent(settled, 'result');
    return { payload: outcome.payload, final: settled };
  }
  if (final && final.status !== current.status) options.onEvent(final, 'result');
  const ended = final ?? current;
  const reason = (outcome.error as Error)?.message ?? String(outcome.error);
  // The operator declined what the task asked, or Tooldeck could not answer it: that is the story,
  // whatever became of the task since.
  if (outcome.error instanceof AppError && (outcome.error.code === 'PolicyDenied' || outcome.error.code === 'InvalidInput')) throw outcome.error;
  if (ended.status === 'cancelled') throw new AppError('Canceled', `Task ${created.taskId} was cancelled${ended.statusMessage ? `: ${ended.statusMessage}` : ''}.`, { retryable: false });
  if (ended.status === 'failed') {
    const why = ended.statusMessage && !reason.includes(ended.statusMessage) ? `${ended.statusMessage} (${reason})` : reason || ended.statusMessage;
    throw new AppError('ExecutionFailed', `Task ${created.taskId} failed: ${why}`, { retryable: false, cause: outcome.error });
  }
  throw new AppError('ExecutionFailed', `Task ${created.taskId} gave no result: ${reason}`, { retryable: false, cause: outcome.error });
}

function needsResultCall(status: TaskStatus): boolean {
  return status === 'input_required' || isTerminalTaskStatus(status);
}

function abortReason(signal: AbortSignal): AppError {
  const reason: unknown = signal.reason;
  return reason instanceof AppError ? reason : new AppError('Canceled', 'The call was canceled.');
}
