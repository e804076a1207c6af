import type { Span } from '@opentelemetry/api';
import type { AppError } from '../../shared/errors';
import type { InvocationRecord } from '../../shared/invocation';
import type { InvocationProgress, ToolEntry, ToolResult } from '../../shared/registry';
import type { InvokeTaskOptions, TaskEvent } from '../../shared/tasks';

/** A task-augmented call's news: the task exists, or its status changed. */
export type TaskUpdate = TaskEvent & { taskId: string };

export type {
  ContentBlock,
  HttpBinding,
  InvocationOutcome,
  OperationClass,
  PolicyVerdict,
  RiskLevel,
  RuntimePolicy,
  ToolAnnotations,
  ToolEntry,
  ToolPolicy,
  ToolResult,
  Verdict,
} from '../../shared/registry';

export interface ExecutionContext {
  /** Aborted when the caller cancels or the attempt times out; executors pass it on to their I/O. */
  readonly signal: AbortSignal;
  /**
   * Optional promise from the executor, made before its result resolves: it holds `signal` no more
   * (no listener left on it, no later use). The pipeline may then give the same signal to a later
   * call, which saves making one per call. An executor that cannot be sure never calls it.
   */
  releaseSignal?(): void;
  /** 1-based; above 1 when the pipeline retries a retryable failure. */
  attempt: number;
  /** Progress resets the per-request timeout when the request asked for that (the default). */
  onProgress(progress: InvocationProgress): void;
  /**
   * The effective timeout of this attempt as the attempt starts: the per-request timeout, or less
   * when the total limit is nearer. Executors whose protocol carries a deadline (gRPC) send it.
   */
  readonly timeoutMs: number;
  /** What is left of the total limit (retries included) as the attempt starts. */
  readonly totalLeftMs: number;
  /** Whether progress restarts the per-request timeout (a stream that keeps talking may outlive timeoutMs). */
  readonly resetsOnProgress: boolean;
  /**
   * The answer is arriving (bytes of the reply are coming in): the per-request timeout starts over,
   * so receiving and reading a large result never counts against the time the server had to answer.
   * The total limit still applies.
   */
  keepAlive(): void;
  /** The caller asked for the call to run as a task (executors whose protocol has tasks: MCP). */
  readonly task?: InvokeTaskOptions;
  /** A task was created or changed status; counts as progress for the timeout. */
  onTask?(update: TaskUpdate): void;
  /**
   * The call's trace span (W3C Trace Context): what the executor sends carries its traceparent,
   * under a transport span of its own while spans are exported. Absent outside the pipeline.
   */
  readonly span?: Span;
}

/**
 * Runs one kind of entry (an MCP connection, an A2A client, the HTTP executor). Failures are thrown:
 * an `AppError` keeps its code and retryability, anything else counts as `ExecutionFailed`. A result
 * with `isError: true` is a call that reached the tool and failed there; it is returned, not thrown.
 */
export interface ToolExecutor {
  execute(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext): Promise<ToolResult>;
  /**
   * What the source saw while an attempt that started at `since` failed (a server writing garbage
   * where its reply should be), to be added to the error. Undefined when it has nothing to add.
   */
  explainFailure?(entry: ToolEntry, error: AppError, since: number): string | undefined;
}

export interface InvocationRecorder {
  record(record: InvocationRecord): void;
}

/** Time as the pipeline sees it, injected so tests decide when timers fire. */
export interface Clock {
  now(): number;
  /** Calls `callback` after `ms`; the returned function cancels it. */
  setTimeout(callback: () => void, ms: number): () => void;
  /**
   * Optional: a timer that can be told whether it keeps the process alive (Node's ref/unref), so
   * one timer may stay armed while nothing waits on it without holding the process open. `ms` is
   * at most LONGEST_TIMER_MS. Clocks without it (test clocks) have their timers cancelled instead.
   */
  holdableTimeout?(callback: () => void, ms: number): HoldableTimer;
}

export interface HoldableTimer {
  cancel(): void;
  /** Whether the timer keeps the process alive; it does when made. */
  hold(held: boolean): void;
}

/** Node fires a timer of more than 2^31−1 ms at once (with a warning); longer delays are chained. */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    let handle: NodeJS.Timeout;
    const arm = (left: number) => {
      handle = left > LONGEST_TIMER_MS ? setTimeout(() => arm(left - LONGEST_TIMER_MS), LONGEST_TIMER_MS) : setTimeout(callback, left);
    };
    arm(ms);
    return () => clearTimeout(handle);
  },
  holdableTimeout(callback, ms) {
    const handle = setTimeout(callback, Math.min(ms, LONGEST_TIMER_MS));
    return {
      cancel: () => clearTimeout(handle),
      hold: (held) => void (held ? handle.ref() : handle.unref()),
    };
  },
};
