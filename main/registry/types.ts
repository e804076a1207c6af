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
  /** The caller's own answers to what the tool's server asks mid-call (see CallRelay); absent when the operator answers. */
  readonly relay?: CallRelay;
}

/**
 * A caller that can answer a server's questions itself: an agent behind the gateway is asked what
 * its tool's server asks during its call (MCP elicitation and sampling), and hears the server's log
 * messages, instead of the operator. Results and params are MCP's own shapes.
 */
export interface CallRelay {
  elicit?(params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
  sample?(params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
  log?(params: Record<string, unknown>): void;
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

