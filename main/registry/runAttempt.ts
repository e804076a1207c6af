import { AppError } from '../../shared/errors';
import type { InvocationProgress, ToolEntry, ToolResult } from '../../shared/registry';
import type { InvokeTaskOptions } from '../../shared/tasks';
import { classifyError } from './classifyError';
import type { Clock, ExecutionContext, TaskUpdate, ToolExecutor } from './types';

export interface AttemptOptions {
  entry: ToolEntry;
  executor: ToolExecutor;
  args: Record<string, unknown>;
  attempt: number;
  clock: Clock;
  timeoutMs: number;
  resetTimeoutOnProgress: boolean;
  /** Absolute time (clock ms) past which no attempt may run, and the budget it came from, for the message. */
  deadline: number;
  totalMs: number;
  signal?: AbortSignal;
  onProgress?: (progress: InvocationProgress) => void;
  task?: InvokeTaskOptions;
  onTask?: (update: TaskUpdate) => void;
}

/**
 * One try of a call: races the executor against the per-request timeout (restarted by progress when
 * asked), the total deadline and the caller's signal. Whatever loses is ignored; the executor's
 * signal is aborted so it can stop its I/O. Rejects with an AppError.
 */
export function runAttempt(options: AttemptOptions): Promise<ToolResult> {
  return new Promise((resolve, reject) => new Attempt(options, resolve, reject).start());
}

/** Methods rather than per-call closures: this runs on every call, and closures cost allocations. */
class Attempt implements ExecutionContext {
  readonly attempt: number;
  readonly timeoutMs: number;
  readonly totalLeftMs: number;
  readonly resetsOnProgress: boolean;
  readonly task?: InvokeTaskOptions;
  private readonly controller = new AbortController();
  private settled = false;
  private cancelTimer?: () => void;

  constructor(
    private readonly options: AttemptOptions,
    private readonly resolve: (result: ToolResult) => void,
    private readonly reject: (error: AppError) => void,
  ) {
    this.attempt = options.attempt;
    this.totalLeftMs = Math.max(0, options.deadline - options.clock.now());
    this.timeoutMs = Math.min(options.timeoutMs, this.totalLeftMs);
    this.resetsOnProgress = options.resetTimeoutOnProgress;
    this.task = options.task;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  start(): void {
    const { signal, executor, entry, args } = this.options;
    if (signal?.aborted) return this.handleEvent();
    signal?.addEventListener('abort', this, { once: true });
    this.arm();
    let pending: Promise<ToolResult>;
    try {
      pending = executor.execute(entry, args, this);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (result) => this.succeed(result),
      (error: unknown) => this.fail(classifyError(error)),
    );
  }

  onProgress(progress: InvocationProgress): void {
    if (this.settled) return;
    if (this.options.resetTimeoutOnProgress) this.arm();
    this.options.onProgress?.(progress);
  }

  keepAlive(): void {
    if (!this.settled) this.arm();
  }

  onTask(update: TaskUpdate): void {
    if (this.settled) return;
    if (this.options.resetTimeoutOnProgress) this.arm();
    this.options.onTask?.(update);
  }

  /** The caller's signal fired (EventListener object form, so no closure is made per call). */
  handleEvent(): void {
    this.fail(new AppError('Canceled', `The call to ${this.options.entry.name} was canceled.`));
  }

  private arm(): void {
    this.cancelTimer?.();
    const { clock, deadline, timeoutMs } = this.options;
    const left = deadline - clock.now();
    const total = left < timeoutMs;
    this.cancelTimer = clock.setTimeout(() => this.timeOut(total), Math.max(0, Math.min(timeoutMs, left)));
  }

  private timeOut(total: boolean): void {
    const { entry, timeoutMs, totalMs } = this.options;
    const message = total ? `${entry.name} exceeded the total time limit of ${formatMs(totalMs)}.` : `${entry.name} did not answer within ${formatMs(timeoutMs)}.`;
    this.fail(new AppError('Timeout', message));
  }

  private succeed(result: ToolResult): void {
    if (this.settle()) this.resolve(result);
  }

  private fail(error: AppError): void {
    if (!this.settle()) return;
    this.controller.abort(error);
    this.reject(error);
  }

  /** True for the first outcome only. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.cancelTimer?.();
    this.options.signal?.removeEventListener('abort', this);
    return true;
  }
}

export function formatMs(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000} min`;
  if (ms % 1000 === 0 && ms >= 1000) return `${ms / 1000} s`;
  return `${ms} ms`;
}
