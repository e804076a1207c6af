import { AppError } from '../../shared/errors';
import type { InvocationProgress, ToolEntry, ToolResult } from '../../shared/registry';
import type { InvokeTaskOptions } from '../../shared/tasks';
import type { Span } from '@opentelemetry/api';
import { classifyError } from './classifyError';
import type { DeadlineWatch, Deadline } from './DeadlineWatch';
import type { ReusableSignals } from './ReusableSignals';
import type { Clock } from '../platform/Clock';
import type { CallRelay, ExecutionContext, TaskUpdate, ToolExecutor } from './types';

/** What an attempt needs of its call; the same for every attempt of it (the pipeline's call object). */
export interface AttemptCall {
  readonly entry: ToolEntry;
  readonly executor: ToolExecutor;
  readonly args: Record<string, unknown>;
  readonly timeoutMs: number;
  readonly resetTimeoutOnProgress: boolean;
  /** Absolute time (clock ms) past which no attempt may run, and the budget it came from, for the message. */
  readonly deadline: number;
  readonly totalMs: number;
  /** The caller's signal. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: InvocationProgress) => void;
  readonly taskOptions?: InvokeTaskOptions;
  readonly relay?: CallRelay;
  /** Told of every task update. */
  noteTask(update: TaskUpdate): void;
}

/** What every attempt of a pipeline shares. */
export interface AttemptServices {
  readonly clock: Clock;
  /** Where the attempt's per-request deadline is watched (one timer for all calls). */
  readonly deadlines: DeadlineWatch;
  /** Where the attempt's abort controller comes from, and goes back to when its executor released it. */
  readonly signals: ReusableSignals;
}

/**
 * One try of a call: races the executor against the per-request timeout (restarted by progress when
 * asked), the total deadline and the caller's signal. Whatever loses is ignored; the executor's
 * signal is aborted so it can stop its I/O. Rejects with an AppError.
 */
export function runAttempt(call: AttemptCall, attempt: number, services: AttemptServices, span?: Span): Promise<ToolResult> {
  return new Promise((resolve, reject) => new Attempt(call, attempt, services, span, resolve, reject).start());
}

/** Methods rather than per-call closures: this runs on every call, and closures cost allocations. */
class Attempt implements ExecutionContext, Deadline {
  readonly attempt: number;
  readonly timeoutMs: number;
  readonly totalLeftMs: number;
  readonly resetsOnProgress: boolean;
  readonly task?: InvokeTaskOptions;
  readonly span?: Span;
  readonly relay?: CallRelay;
  /** Made when the executor first asks for `signal`. */
  private controller?: AbortController;
  /** Why the attempt failed, for a signal asked for only afterwards (it must be aborted then too). */
  private failure?: AppError;
  /** The executor no longer holds the signal (see ExecutionContext.releaseSignal). */
  private signalReleased = false;
  private settled = false;
  /** When the per-request timeout (or the total limit, when nearer) runs out; see arm(). */
  dueAt = Infinity;
  /** Whether dueAt is the total limit rather than the per-request timeout. */
  private dueIsTotal = false;
  /** The DeadlineWatch's bookkeeping (set here so every attempt has the same shape). */
  watchIndex = -1;

  constructor(
    private readonly call: AttemptCall,
    attempt: number,
    private readonly services: AttemptServices,
    span: Span | undefined,
    private readonly resolve: (result: ToolResult) => void,
    private readonly reject: (error: AppError) => void,
  ) {
    this.attempt = attempt;
    this.totalLeftMs = Math.max(0, call.deadline - services.clock.now());
    this.timeoutMs = Math.min(call.timeoutMs, this.totalLeftMs);
    this.resetsOnProgress = call.resetTimeoutOnProgress;
    this.task = call.taskOptions;
    this.span = span;
    this.relay = call.relay;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = this.services.signals.take();
      if (this.failure) this.controller.abort(this.failure);
    }
    return this.controller.signal;
  }

  releaseSignal(): void {
    this.signalReleased = true;
  }

  start(): void {
    const { signal, executor, entry, args } = this.call;
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
    if (this.resetsOnProgress) this.arm();
    // Only the fields of InvocationProgress: an MCP notification's params carry more (_meta).
    this.call.onProgress?.({ progress: progress.progress, total: progress.total, message: progress.message });
  }

  keepAlive(): void {
    if (!this.settled) this.arm();
  }

  onTask(update: TaskUpdate): void {
    if (this.settled) return;
    if (this.resetsOnProgress) this.arm();
    this.call.noteTask(update);
  }

  /** The caller's signal fired (EventListener object form, so no closure is made per call). */
  handleEvent(): void {
    this.fail(new AppError('Canceled', `The call to ${this.call.entry.name} was canceled.`));
  }

  /** (Re)starts the per-request timeout, never past the total limit. */
  private arm(): void {
    const { deadline, timeoutMs } = this.call;
    const now = this.services.clock.now();
    const left = deadline - now;
    this.dueIsTotal = left < timeoutMs;
    const wait = Math.min(timeoutMs, left);
    // A wait that is not a number (NaN) is due at once, as Node's own timers treat it.
    this.dueAt = now + (wait > 0 ? wait : 0);
    this.services.deadlines.watch(this);
  }

  /** The deadline passed (called by the DeadlineWatch). */
  expire(): void {
    const { entry, timeoutMs, totalMs } = this.call;
    const message = this.dueIsTotal ? `${entry.name} exceeded the total time limit of ${formatMs(totalMs)}.` : `${entry.name} did not answer within ${formatMs(timeoutMs)}.`;
    this.fail(new AppError('Timeout', message));
  }

  private succeed(result: ToolResult): void {
    if (!this.settle()) return;
    this.resolve(result);
    // Settled, so this attempt will never abort it: a later call may have it.
    if (this.signalReleased && this.controller) this.services.signals.give(this.controller);
  }

  private fail(error: AppError): void {
    if (!this.settle()) return;
    this.failure = error;
    this.controller?.abort(error);
    this.reject(error);
  }

  /** True for the first outcome only. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.services.deadlines.unwatch(this);
    this.call.signal?.removeEventListener('abort', this);
    return true;
  }
}

export function formatMs(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000} min`;
  if (ms % 1000 === 0 && ms >= 1000) return `${ms / 1000} s`;
  return `${ms} ms`;
}
