import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson } from './canonicalJson';
import { AppError } from '../../shared/errors';
import { callerAgent, type Caller } from '../../shared/caller';
import { SourceKind, type InvocationRecord, type InvocationStatus } from '../../shared/invocation';
import type { EffectiveRuntime, InvocationOutcome, InvocationProgress, PolicyVerdict, ToolEntry, ToolResult } from '../../shared/registry';
import type { Logger } from '../platform/Logger';
import { safeCutEnd, type SecretRedactor } from '../platform/SecretRedactor';
import { classifyError } from './classifyError';
import { duplicateCallResult } from './duplicateCallResult';
import { backoffDelay, shouldRetry } from './policy/backoff';
import { decidingReasons, withoutHold } from '../../shared/policy';
import { EffectivePolicy, type EffectivePolicyOptions } from './policy/EffectivePolicy';
import { reviewRefusal } from './policy/reviewRefusal';
import type { ToolPermission } from './policy/ToolPermission';
import { recordedArguments, MAX_RECORDED_ARGUMENTS_BYTES } from './recordedArguments';
import { runAttempt, type AttemptCall, type AttemptServices } from './runAttempt';
import { DeadlineWatch } from './DeadlineWatch';
import { ReusableSignals } from './ReusableSignals';
import { capToolResult } from './resultCap';
import { RunCallLedger } from './RunCallLedger';
import { SchemaValidator } from './SchemaValidator';
import type { ToolCatalog } from './ToolCatalog';
import { systemClock, type Clock } from '../platform/Clock';
import type { CallRelay, InvocationRecorder, TaskUpdate, ToolExecutor } from './types';
import type { InvocationTask, InvokeTaskOptions } from '../../shared/tasks';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { callTracing, remoteParent, type CallTracing } from '../metrics/CallTracing';

export { DEFAULT_MAX_TOTAL_TIMEOUT_MS } from './policy/EffectivePolicy';
const PREVIEW_CHARS = 200;

export interface InvocationRequest {
  /** Who called and through which way in (its run id, if any, is the run the call belongs to). Required: no way in may leave it out. */
  caller: Caller;
  /** The registry name, `<kind>:<source>.<tool>`. */
  name: string;
  arguments?: Record<string, unknown>;
  /** Per-request timeout: only when the caller overrides the entry's effective runtime. */
  timeoutMs?: number;
  /** Progress from the tool restarts the per-request timeout. Default true. */
  resetTimeoutOnProgress?: boolean;
  /** Hard cap on the whole call, retries and backoff included, however much progress arrives. Default 10 min. */
  maxTotalTimeoutMs?: number;
  /** The caller has confirmed a call whose policy verdict is `confirm`. */
  confirmed?: boolean;
  /**
   * How a way in without a person at it (the gateway) gets a `confirm` verdict decided: the call
   * waits on this after validation and before it runs. Resolving lets the call run (judged again
   * first: if the rules changed meanwhile they decide afresh); rejecting ends it as denied, with
   * the rejection's message. Without it, an unconfirmed `confirm` is refused at once.
   */
  approval?: (held: HeldForApproval) => Promise<void>;
  /** The definition hash the caller reviewed: a tool the lock holds for review runs only in that definition. */
  reviewedHash?: string;
  /** A load run sends the same call many times on purpose: the run's duplicate-call rule does not apply. */
  allowRepeats?: boolean;
  replayOf?: string;
  /**
   * Values that must not be recorded (secrets a collection substituted into the arguments): they
   * are masked in the recorded arguments, result preview and error message, whatever their key.
   */
  maskValues?: readonly string[];
  signal?: AbortSignal;
  onProgress?: (progress: InvocationProgress) => void;
  /** Run a tool that supports tasks as a task (MCP); required-task tools always do. */
  task?: InvokeTaskOptions;
  /** A task-augmented call's task was created or changed status. */
  onTask?: (update: TaskUpdate) => void;
  /** The caller answers its tool's server's questions itself (an agent behind the gateway). */
  relay?: CallRelay;
  /** The caller's W3C `traceparent` (an agent's call carries its own): the call's trace continues it. */
  traceparent?: string;
}

export interface InvocationPipelineOptions {
  catalog: ToolCatalog;
  /** The verdicts and runtimes every view shows; built from `permissions` and the caps when absent. */
  policy?: EffectivePolicy;
  /** Read on every call, so permission edits apply to the next call (when no `policy` is given). */
  permissions?: () => readonly ToolPermission[];
  /** The lockfile's holds (when no `policy` is given). */
  holds?: EffectivePolicyOptions['holds'];
  recorder?: InvocationRecorder;
  logger?: Logger;
  clock?: Clock;
  /** [0, 1) like Math.random; drives retry jitter. */
  random?: () => number;
  newId?: () => string;
  maxToolResultBytes?: number;
  maxRecordedArgumentsBytes?: number;
  /** Spans per call and stage; the process's tracing by default. */
  tracing?: CallTracing;
  /**
   * The console's secret redactor (the recorder masks records with it): the result preview is cut
   * where it splits none of its secrets, since a split one would escape the masking.
   */
  redactor?: Pick<SecretRedactor, 'safeEnd'>;
  /**
   * The grants stage: whether `agent` is granted the entry (main/agents/AgentGrants). Every call an
   * agent makes, through any door, is refused before policy when it is not, and judged again when
   * a held call's decision arrives. Absent: no agent is refused for grants (tests of other stages).
   */
  grants?: (agent: string, entry: ToolEntry) => boolean;
}

/** A validated call whose verdict is `confirm`, waiting for a person (see InvocationRequest.approval). */
export interface HeldForApproval {
  entry: ToolEntry;
  verdict: PolicyVerdict;
  /** The exact arguments, validated against the entry's schema. */
  arguments: Record<string, unknown>;
  /** The version of the verdict's rules: an approval counts only under the rules it was asked under. */
  policyVersion: string;
}

interface Failure {
  error: AppError;
  status: InvocationStatus;
  attempts: number;
}

/**
 * The only way any entry is called: look up → validate → policy → execute (timeout, cancel, retry)
 * → cap → classify → record. Every host (UI, CLI, replay, collection runs) goes through here, so
 * validation, policy and history cannot be skipped by a side door.
 */
export class InvocationPipeline {
  private readonly catalog: ToolCatalog;
  /** The one source of verdicts and runtimes: views ask this same object. */
  readonly policy: EffectivePolicy;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly newId: () => string;
  private readonly maxRecordedArgumentsBytes: number;
  private readonly tracing: CallTracing;
  private readonly validator = new SchemaValidator();
  private readonly ledger = new RunCallLedger();
  /** What every attempt shares: the clock, one watch for all deadlines, reusable abort signals. */
  private readonly services: AttemptServices;

  constructor(private readonly options: InvocationPipelineOptions) {
    this.catalog = options.catalog;
    this.policy = options.policy ?? new EffectivePolicy({ permissions: options.permissions, holds: options.holds, maxToolResultBytes: options.maxToolResultBytes });
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.newId = options.newId ?? sequentialIds();
    this.maxRecordedArgumentsBytes = options.maxRecordedArgumentsBytes ?? MAX_RECORDED_ARGUMENTS_BYTES;
    this.tracing = options.tracing ?? callTracing;
    this.services = { clock: this.clock, deadlines: new DeadlineWatch(this.clock), signals: new ReusableSignals() };
  }

  /** Forgets a run's calls, so the same call may run again under that id. */
  endRun(runId: string): void {
    this.ledger.endRun(runId);
  }

  /**
   * Resolves with an outcome for every call that names a tool, failed or not; rejects (InvalidInput)
   * only when `name` is not a registry name at all, since then there is nothing to record it under.
   */
  invoke(request: InvocationRequest): Promise<InvocationOutcome> {
    // One trace per call (W3C Trace Context): a span for the call, one per stage under it; the
    // executor's requests carry it (ExecutionContext.span) and the record keeps its trace id.
    const tracing = this.tracing;
    const parent = request.traceparent === undefined ? undefined : remoteParent(request.traceparent);
    const span = tracing.start('tool.invoke', tracing.exporting ? { 'tool.name': request.name, ...callerAttributes(request.caller) } : undefined, parent ? { parent } : undefined);
    if (!tracing.exporting) return this.invokeTraced(request, span);
    return this.invokeTraced(request, span).then(
      (outcome) => {
        span.setAttributes({ 'tool.status': outcome.record.status, 'tool.attempts': outcome.record.attempts ?? 0 });
        if (outcome.error) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
        span.end();
        return outcome;
      },
      (error: unknown) => {
        span.end();
        throw error;
      },
    );
  }

  /**
   * Everything before the tool runs is synchronous (lookup, validation, policy, the run's ledger),
   * so a call is one async step, not a chain of them: each async layer costs every call its
   * promises and turns.
   */
  private invokeTraced(request: InvocationRequest, span: Span): Promise<InvocationOutcome> {
    let call: PreparedCall | InvocationOutcome | AwaitingApproval;
    try {
      call = this.prepare(request, span);
    } catch (error) {
      return Promise.reject(error);
    }
    if ('record' in call) return Promise.resolve(call);
    if (call instanceof AwaitingApproval) return this.afterApproval(call, span);
    return this.run(call);
  }

  /** A held call: runs once approved and still allowed by the rules as they are now; recorded as denied otherwise. */
  private async afterApproval(held: AwaitingApproval, span: Span): Promise<InvocationOutcome> {
    const { at, entry, args, verdict } = held;
    const waiting = this.tracing.stage('approval', span);
    try {
      await at.request.approval!({ entry, verdict, arguments: args, policyVersion: policyVersionOf(verdict) });
    } catch (error) {
      const refusal = error instanceof AppError ? error : new AppError('PolicyDenied', (error as Error).message);
      return this.finish(at, undefined, { error: refusal, status: refusal.code === 'Canceled' ? 'canceled' : 'denied', attempts: 0 }, verdict);
    } finally {
      waiting.end();
    }
    // The grants and rules may have changed while a person decided: they judge the call again.
    const ungranted = this.grantRefusal(entry, at.request.caller);
    if (ungranted) return this.finish(at, undefined, { error: ungranted, status: 'denied', attempts: 0 }, verdict);
    const now = this.policy.verdict(entry, at.request.caller);
    const refusal = reviewRefusal(entry, now, at.request.reviewedHash) ?? (now.verdict === 'deny' ? refusalFor(entry, withoutHold(now), false) : undefined);
    if (refusal) return this.finish(at, undefined, { error: refusal, status: 'denied', attempts: 0 }, now);
    if (withoutHold(now).verdict === 'confirm' && policyVersionOf(now) !== policyVersionOf(verdict)) {
      return this.finish(at, undefined, { error: new AppError('PolicyDenied', `The rules for ${entry.name} changed while it waited for approval; call it again to ask under the new rules.`), status: 'denied', attempts: 0 }, now);
    }
    const ready = this.ready(at, entry, held.executor, args, now, span);
    return 'record' in ready ? ready : this.run(ready);
  }

  /** The call ready to run, or its outcome when it ends before running (unknown tool, invalid, refused, repeated), or the call held for approval. */
  private prepare(request: InvocationRequest, span: Span): PreparedCall | InvocationOutcome | AwaitingApproval {
    const startedAt = this.clock.now();
    const args = request.arguments ?? {};
    const recorded = recordedArguments(args, this.maxRecordedArgumentsBytes, this.previewEnd, request.maskValues);
    const registered = this.catalog.resolve(request.name);
    const traceId = span.spanContext().traceId;
    if (!registered) {
      const at: CallRecordBase = { startedAt, argumentsJson: recorded.json, requestBytes: recorded.requestBytes, request, traceId, ...parseToolName(request.name) };
      return this.finish(at, undefined, { error: new AppError('ToolNotFound', `No tool named ${request.name} is registered.`), status: 'error', attempts: 0 });
    }
    const { source, toolName } = registered.entry;
    const at: CallRecordBase = { startedAt, argumentsJson: recorded.json, requestBytes: recorded.requestBytes, request, traceId, sourceKind: source.kind, sourceName: source.name, tool: toolName };
    const { entry, executor } = registered;
    // Grants come first: an agent learns nothing (not even whether its arguments would validate) of a tool it is not granted.
    const ungranted = this.grantRefusal(entry, request.caller);
    if (ungranted) return this.finish(at, undefined, { error: ungranted, status: 'denied', attempts: 0 });
    const verdict = this.policy.verdict(entry, request.caller);

    const validating = this.tracing.stage('validate', span);
    try {
      this.validator.validate(entry.name, entry.inputSchema, args);
    } catch (error) {
      validating.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      return this.finish(at, undefined, { error: classifyError(error), status: 'error', attempts: 0 }, verdict);
    } finally {
      validating.end();
    }
    // A held definition runs only when the caller confirmed that very hash; then the other rules decide.
    const review = reviewRefusal(entry, verdict, request.reviewedHash);
    const awaitsApproval = !review && request.approval !== undefined && request.confirmed !== true && withoutHold(verdict).verdict === 'confirm';
    const refusal = review ?? (awaitsApproval ? undefined : refusalFor(entry, withoutHold(verdict), request.confirmed === true));
    if (this.tracing.exporting) this.tracing.stage('policy', span, { 'policy.verdict': verdict.verdict, 'policy.refused': refusal !== undefined }).end();
    if (refusal) return this.finish(at, undefined, { error: refusal, status: 'denied', attempts: 0 }, verdict);
    if (awaitsApproval) return new AwaitingApproval(at, entry, executor, args, verdict);
    return this.ready(at, entry, executor, args, verdict, span);
  }

  /** The refusal of an agent's call to a tool not granted to it; undefined for the operator and for granted tools. */
  private grantRefusal(entry: ToolEntry, caller: Caller): AppError | undefined {
    const grants = this.options.grants;
    if (!grants) return undefined;
    const agent = callerAgent(caller);
    if (agent === undefined || grants(agent, entry)) return undefined;
    return new AppError('PolicyDenied', `Policy denies ${entry.name}: not granted to ${agent}.`);
  }

  /** A call that passed policy: its run's duplicate-call rule, then ready to run. */
  private ready(at: CallRecordBase, entry: ToolEntry, executor: ToolExecutor, args: Record<string, unknown>, verdict: PolicyVerdict, span: Span): PreparedCall | InvocationOutcome {
    const { request } = at;
    const { runId } = request.caller;
    if (runId !== undefined && request.allowRepeats !== true) {
      const first = this.ledger.claim(runId, entry.name, args);
      if (first) return this.finish(at, duplicateCallResult(entry.name, first), undefined, verdict, 0, true);
    }
    return new PreparedCall(at, entry, executor, args, verdict, span, this.policy.runtime(entry));
  }

  /**
   * One attempt (timeout, cancel), then the record, or the next attempt after a backoff when the
   * failure is retryable. A promise chain rather than an async loop: the one-attempt success path
   * is most calls, and an async function's frame and resumptions were a fifth of what a call allocated.
   */
  private run(call: PreparedCall, attempt = 1): Promise<InvocationOutcome> {
    const attemptStarted = Date.now();
    // While spans are exported each attempt is a span of its own; otherwise the call's span is
    // the attempt's too (see CallTracing.stage), and no closure is made for it.
    const pending = this.tracing.exporting
      ? this.tracing.within(`attempt ${attempt}`, { 'tool.attempt': attempt }, (attemptSpan) => runAttempt(call, attempt, this.services, attemptSpan), undefined, call.span)
      : runAttempt(call, attempt, this.services, call.span);
    return pending.then(
      (result) => {
        try {
          return this.finishRun(call, attempt, result);
        } catch (error) {
          // A result the record cannot be made of (not the shape a ToolResult has) fails the attempt.
          return this.afterFailure(call, attempt, classifyError(error), attemptStarted);
        }
      },
      (thrown: unknown) => this.afterFailure(call, attempt, thrown as AppError, attemptStarted),
    );
  }

  /** A failed attempt: the record, or (retryable, with time left) the next attempt after its backoff. */
  private async afterFailure(call: PreparedCall, attempt: number, thrown: AppError, attemptStarted: number): Promise<InvocationOutcome> {
    const error = explained(thrown, call.executor, call.entry, attemptStarted);
    const failure: Failure = { error, status: statusOf(error), attempts: attempt };
    // A retry after the server created a task would start a second one.
    if (error.code === 'Canceled' || call.task || !shouldRetry(error, attempt, call.retry)) return this.finishRun(call, attempt, undefined, failure);
    const delay = backoffDelay(attempt, call.retry, this.random);
    if (this.clock.now() + delay >= call.deadline) return this.finishRun(call, attempt, undefined, failure);
    try {
      await this.sleep(delay, call.signal);
    } catch (canceled) {
      return this.finishRun(call, attempt, undefined, { error: canceled as AppError, status: 'canceled', attempts: attempt });
    }
    return this.run(call, attempt + 1);
  }

  /** The outcome of a call that ran: its last attempt's result or failure, and its task if it made one. */
  private finishRun(call: PreparedCall, attempts: number, result?: ToolResult, failure?: Failure): InvocationOutcome {
    return this.finish(call.at, result, failure, call.verdict, attempts, false, call.task);
  }

  private sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const canceled = () => new AppError('Canceled', 'The call was canceled while waiting to retry.');
      if (signal?.aborted) return reject(canceled());
      const onAbort = () => {
        cancel();
        reject(canceled());
      };
      const cancel = this.clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private finish(
    at: CallRecordBase,
    result: ToolResult | undefined,
    failure: Failure | undefined,
    verdict?: PolicyVerdict,
    attempts = failure?.attempts ?? 0,
    duplicate = false,
    task?: InvocationTask,
  ): InvocationOutcome {
    const capped = result ? capToolResult(result, this.policy.maxToolResultBytes) : undefined;
    const record: InvocationRecord = {
      id: this.newId(),
      startedAt: at.startedAt,
      sourceKind: at.sourceKind,
      sourceName: at.sourceName,
      tool: at.tool,
      argumentsJson: at.argumentsJson,
      status: failure ? failure.status : result?.isError ? 'error' : 'ok',
      latencyMs: this.clock.now() - at.startedAt,
      requestBytes: at.requestBytes,
      responseBytes: capped?.originalBytes ?? 0,
      resultPreview: capped ? preview(capped.result, this.previewEnd, at.request.maskValues) : '',
      truncated: capped?.truncated ?? false,
      attempts,
      traceId: at.traceId,
      via: at.request.caller.via,
    };
    const agent = callerAgent(at.request.caller);
    if (agent !== undefined) record.agent = agent;
    if (failure) {
      record.errorCode = failure.error.code;
      record.errorMessage = failure.error.message;
    }
    if (result?.isError) record.isError = true;
    if (task) {
      record.taskId = task.taskId;
      record.taskStatus = task.status;
    }
    if (at.request.replayOf !== undefined) record.replayOf = at.request.replayOf;
    if (at.request.caller.runId !== undefined) record.runId = at.request.caller.runId;
    if (at.request.maskValues?.length) maskRecord(record, at.request.maskValues);
    this.publish(record);

    const outcome: InvocationOutcome = { record, truncated: record.truncated };
    if (capped) outcome.result = capped.result;
    if (failure) outcome.error = failure.error.toShape();
    if (verdict) outcome.verdict = verdict;
    if (duplicate) outcome.duplicate = true;
    if (task) outcome.task = task;
    return outcome;
  }

  /**
   * A preview cut that splits neither a stored secret nor a value this call must not record. A
   * bound arrow, made once: every call's recording is handed it.
   */
  private readonly previewEnd = (text: string, end: number, maskValues: readonly string[] = []): number =>
    this.options.redactor ? this.options.redactor.safeEnd(text, end, maskValues) : safeCutEnd(text, end, maskValues);

  /** The one recorder takes every record (the console's fans it out to history, metrics and the live feed). */
  private publish(record: InvocationRecord) {
    try {
      this.options.recorder?.record(record);
    } catch (error) {
      this.options.logger?.warn('Invocation recorder failed', { error: String(error), id: record.id });
    }
  }
}

function maskRecord(record: InvocationRecord, values: readonly string[]) {
  const mask = (text: string) => values.filter((v) => v.length > 0).reduce((out, value) => out.split(value).join('***'), text);
  record.argumentsJson = mask(record.argumentsJson);
  record.resultPreview = mask(record.resultPreview);
  if (record.errorMessage) record.errorMessage = mask(record.errorMessage);
}

/** A call that passed lookup and validation whose verdict asks a person first (InvocationRequest.approval). */
class AwaitingApproval {
  constructor(
    readonly at: CallRecordBase,
    readonly entry: ToolEntry,
    readonly executor: ToolExecutor,
    readonly args: Record<string, unknown>,
    readonly verdict: PolicyVerdict,
  ) {}
}

/** The rules that judged a call, as a digest: what an approval is bound to besides the call itself. */
export function policyVersionOf(verdict: PolicyVerdict): string {
  return createHash('sha256').update(canonicalJson({ verdict: verdict.verdict, rules: verdict.rules, reasons: verdict.reasons })).digest('hex').slice(0, 32);
}

/**
 * A call that passed lookup, validation and policy, about to run: everything its attempts need
 * (the same for each of them) and, once the server made a task of it, the task's id and timeline
 * for the record and the outcome. One object per call: its attempts read it rather than copies.
 */
class PreparedCall implements AttemptCall {
  readonly timeoutMs: number;
  readonly resetTimeoutOnProgress: boolean;
  readonly totalMs: number;
  readonly deadline: number;
  readonly retry: EffectiveRuntime['retry'];
  task?: InvocationTask;

  constructor(
    readonly at: CallRecordBase,
    readonly entry: ToolEntry,
    readonly executor: ToolExecutor,
    readonly args: Record<string, unknown>,
    readonly verdict: PolicyVerdict,
    readonly span: Span,
    runtime: EffectiveRuntime,
  ) {
    const { request } = at;
    this.timeoutMs = request.timeoutMs ?? runtime.timeoutMs;
    this.resetTimeoutOnProgress = request.resetTimeoutOnProgress ?? runtime.resetTimeoutOnProgress;
    this.totalMs = request.maxTotalTimeoutMs ?? runtime.maxTotalTimeoutMs;
    this.deadline = at.startedAt + this.totalMs;
    this.retry = runtime.retry;
  }

  get signal(): AbortSignal | undefined {
    return this.at.request.signal;
  }

  get onProgress(): InvocationRequest['onProgress'] {
    return this.at.request.onProgress;
  }

  get taskOptions(): InvokeTaskOptions | undefined {
    return this.at.request.task;
  }

  get relay(): CallRelay | undefined {
    return this.at.request.relay;
  }

  noteTask(update: TaskUpdate): void {
    const { taskId, ...event } = update;
    if (!this.task || this.task.taskId !== taskId) this.task = { taskId, status: event.status, awaited: this.taskOptions?.mode !== 'detach', events: [] };
    this.task.status = event.status;
    this.task.statusMessage = event.statusMessage;
    this.task.events.push(event);
    this.at.request.onTask?.(update);
  }
}

/** The span attributes that say who called and how (OpenTelemetry attribute names under `tooldeck.caller`). */
function callerAttributes(caller: Caller): Record<string, string> {
  const agent = callerAgent(caller);
  return agent === undefined ? { 'tooldeck.caller.via': caller.via } : { 'tooldeck.caller.via': caller.via, 'tooldeck.caller.agent': agent };
}

/** What the record of a call knows before the call runs. */
interface CallRecordBase extends Pick<InvocationRecord, 'sourceKind' | 'sourceName' | 'tool'> {
  startedAt: number;
  /** The W3C trace id of the call's span. */
  traceId: string;
  argumentsJson: string;
  requestBytes: number;
  request: InvocationRequest;
}


/**
 * Record ids: a random per-pipeline prefix (48 bits, so ids stay unique across restarts in the
 * store) and a counter, which is cheaper per call than a UUID and sorts in call order.
 */
function sequentialIds(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let seq = 0;
  return () => `${prefix}-${(++seq).toString(36).padStart(6, '0')}`;
}

/** A registry name split into its parts; InvalidInput when it is not `<kind>:<source>.<tool>`. */
export function parseToolName(name: string): Pick<InvocationRecord, 'sourceKind' | 'sourceName' | 'tool'> {
  const match = /^([a-z0-9]+):([^.]+)\.(.+)$/.exec(name);
  const kind = SourceKind.safeParse(match?.[1]);
  if (!match || !kind.success) {
    throw new AppError('InvalidInput', `"${name}" is not a tool name; names look like <kind>:<source>.<tool>, e.g. mcp:github.create_issue.`);
  }
  return { sourceKind: kind.data, sourceName: match[2]!, tool: match[3]! };
}

function refusalFor(entry: ToolEntry, verdict: PolicyVerdict, confirmed: boolean): AppError | undefined {
  if (verdict.verdict === 'deny') {
    return new AppError('PolicyDenied', `Policy denies ${entry.name}: ${decidingReasons(verdict).join('; ')}.`);
  }
  if (verdict.verdict === 'confirm' && !confirmed) {
    return new AppError('PolicyDenied', `${entry.name} needs approval before it runs (${decidingReasons(verdict).join('; ')}); confirm it (CLI: --yes).`);
  }
  return undefined;
}

/** The error with what the executor saw meanwhile (e.g. a server's garbage instead of a reply). */
function explained(error: AppError, executor: ToolExecutor, entry: ToolEntry, since: number): AppError {
  const explanation = executor.explainFailure?.(entry, error, since);
  if (!explanation) return error;
  return new AppError(error.code, `${error.message.replace(/\.$/, '')}; ${explanation}.`, { retryable: error.retryable, step: error.step, cause: error });
}

function statusOf(error: AppError): InvocationStatus {
  if (error.code === 'Timeout') return 'timeout';
  if (error.code === 'Canceled') return 'canceled';
  if (error.code === 'PolicyDenied') return 'denied';
  return 'error';
}

function preview(result: ToolResult, safeEnd: (text: string, end: number, maskValues?: readonly string[]) => number, maskValues: readonly string[] | undefined): string {
  let text = '';
  for (const part of result.content) {
    if (part.type === 'text') text += (text ? '\n' : '') + part.text;
    if (text.length >= PREVIEW_CHARS) break;
  }
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text) text = result.content.map((part) => `[${part.type}]`).join(' ');
  if (text.length <= PREVIEW_CHARS) return text;
  const end = /[\uD800-\uDBFF]/.test(text[PREVIEW_CHARS - 1]!) ? PREVIEW_CHARS - 1 : PREVIEW_CHARS;
  return text.slice(0, safeEnd(text, end, maskValues));
}
