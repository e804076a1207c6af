import { operatorCaller } from '../../shared/caller';
import { randomUUID } from 'node:crypto';
import {
  assertionKind,
  parseTarget,
  RunOptions,
  type Assertion,
  type AssertionResult,
  type Collection,
  type RequestResult,
  type RunEvent,
  type RunOptionsInput,
  type RunSummary,
  type TargetKind,
} from '../../shared/collections';
import type { AppErrorShape } from '../../shared/errors';
import type { InvocationOutcome } from '../../shared/registry';
import { startCancellableRun } from '../platform/CancellableRun';
import type { SecretStore } from '../platform/SecretStore';
import { classifyError } from '../registry/classifyError';
import type { InvocationPipeline } from '../registry/InvocationPipeline';
import { AssertionEvaluator } from './AssertionEvaluator';
import { capStrings } from './capStrings';
import { queryOutcome } from './queryOutcome';
import { SecretRedactor } from '../platform/SecretRedactor';
import { secretNames, Templates } from './Templates';

/** Reported strings (actual values, arguments, messages) are cut here, after secrets are masked. */
const MAX_REPORTED_STRING = 2_000;

export interface RunTarget {
  kind: TargetKind;
  name: string;
}

export interface CollectionRunnerDeps {
  pipeline: Pick<InvocationPipeline, 'invoke' | 'endRun'>;
  /** Makes a target's tools registry entries: connects a saved server, reads a saved agent's card. */
  prepareTarget: (target: RunTarget, signal: AbortSignal) => Promise<void>;
  secretStore: SecretStore;
  newRunId?: () => string;
  now?: () => number;
}

export type CollectionRunOptions = RunOptionsInput & { signal?: AbortSignal };

/**
 * A run in progress (a CancellableRun): its events (for a live view; a run that broke ends them with
 * the error), its summary, and a way to stop it.
 */
export interface CollectionRun extends AsyncIterable<RunEvent> {
  readonly runId: string;
  /** Settles when the run ends, whether or not anyone reads the events. */
  readonly summary: Promise<RunSummary>;
  /** Stops starting requests and cancels the calls in flight (the protocol's cancel reaches the tool). */
  cancel(): void;
}

/**
 * Runs a collection's requests through the invocation pipeline under one fresh run id — so they
 * land in history and metrics under it and the pipeline's duplicate-call rule applies within the
 * run — one at a time or N at a time. A request that uses a variable captured by an earlier one
 * waits for that request, whatever the concurrency.
 */
export class CollectionRunner {
  private readonly newRunId: () => string;
  private readonly now: () => number;

  constructor(private readonly deps: CollectionRunnerDeps) {
    this.newRunId = deps.newRunId ?? randomUUID;
    this.now = deps.now ?? Date.now;
  }

  run(collection: Collection, options: CollectionRunOptions = {}): CollectionRun {
    const { signal, ...rest } = options;
    const settings = RunOptions.parse(rest);
    const runId = this.newRunId();
    const run = startCancellableRun<RunEvent, RunSummary>(
      ({ signal: runSignal, emit }) => new RunExecution(this.deps, this.now, collection, settings, runId, runSignal, emit).execute(),
      // Sized to hold every event of the run, so a slow reader never loses one.
      { signal, capacity: 2 * collection.requests.length + 8 },
    );
    return { runId, summary: run.result, cancel: run.cancel, [Symbol.asyncIterator]: () => run[Symbol.asyncIterator]() };
  }
}

type Settings = ReturnType<typeof RunOptions.parse>;

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

class RunExecution {
  private readonly tools: string[];
  private readonly templates: Templates;
  private readonly evaluator = new AssertionEvaluator();
  private redactor = new SecretRedactor([]);
  private readonly connectFailures = new Map<string, AppErrorShape>();
  private readonly results: (RequestResult | undefined)[];
  private readonly finished: Deferred[];
  private bailed = false;
  private next = 0;

  constructor(
    private readonly deps: CollectionRunnerDeps,
    private readonly now: () => number,
    private readonly collection: Collection,
    private readonly settings: Settings,
    private readonly runId: string,
    private readonly signal: AbortSignal,
    private readonly emit: (event: RunEvent) => void,
  ) {
    this.tools = collection.requests.map((r) => `${r.target}.${r.tool}`);
    this.templates = new Templates(new Map(Object.entries({ ...collection.variables, ...settings.environment })));
    this.results = collection.requests.map(() => undefined);
    this.finished = collection.requests.map(() => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
  }

  async execute(): Promise<RunSummary> {
    const startedAt = this.now();
    const { collection, runId } = this;
    this.emit({ type: 'run-started', runId, collection: collection.name, requests: collection.requests.map((r, i) => ({ name: r.name, tool: this.tools[i]! })), at: startedAt });
    try {
      await this.templates.loadSecrets([...secretNames(collection), ...secretNames(this.settings.environment)], this.deps.secretStore);
      this.redactor = new SecretRedactor(this.templates.secrets());
      await this.prepareTargets();
      const workers = Math.min(this.settings.concurrency, collection.requests.length);
      await Promise.all(Array.from({ length: workers }, () => this.worker()));
      this.skipTheRest();
    } finally {
      this.deps.pipeline.endRun(runId);
    }
    const summary = this.summarize(startedAt);
    this.emit({ type: 'run-finished', runId, summary, at: this.now() });
    return summary;
  }

  private async prepareTargets() {
    const targets = [...new Set(this.collection.requests.map((r) => r.target))];
    await Promise.all(
      targets.map(async (target) => {
        try {
          await this.deps.prepareTarget(parseTarget(target), this.signal);
        } catch (error) {
          this.connectFailures.set(target, this.redactor.value(classifyError(error).toShape()));
        }
      }),
    );
  }

  /** Workers take requests in collection order, so requests start in order at any concurrency. */
  private async worker() {
    while (this.next < this.collection.requests.length && !this.stopped()) {
      const index = this.next++;
      const result = await this.runRequest(index);
      this.results[index] = result;
      this.finished[index]!.resolve();
      this.emit({ type: 'request-finished', runId: this.runId, result, at: this.now() });
      if (this.settings.bail && result.status !== 'passed') this.bailed = true;
    }
  }

  private stopped() {
    return this.bailed || this.signal.aborted;
  }

  private async runRequest(index: number): Promise<RequestResult> {
    const request = this.collection.requests[index]!;
    const waitFor = this.dependencies(index);
    if (waitFor.length) await Promise.all(waitFor.map((j) => this.finished[j]!.promise));
    if (this.stopped()) return this.skipped(index);
    const tool = this.tools[index]!;
    this.emit({ type: 'request-started', runId: this.runId, index, name: request.name, tool, at: this.now() });
    const started = this.now();
    const base = { index, name: request.name, tool, assertions: [] as AssertionResult[], captured: {} as Record<string, unknown> };
    const errored = (error: AppErrorShape, args?: Record<string, unknown>): RequestResult =>
      this.report({ ...base, status: 'errored', durationMs: this.now() - started, error, ...(args ? { arguments: args } : {}) });

    const connectFailure = this.connectFailures.get(request.target);
    if (connectFailure) return errored(connectFailure);
    let args: Record<string, unknown>;
    try {
      args = this.templates.resolve(request.arguments) as Record<string, unknown>;
    } catch (error) {
      return errored(classifyError(error).toShape());
    }
    let outcome: InvocationOutcome;
    try {
      outcome = await this.deps.pipeline.invoke({
        name: tool,
        arguments: args,
        timeoutMs: request.timeoutMs,
        maxTotalTimeoutMs: request.maxTotalTimeoutMs,
        // The file's `confirmed: true` counts only with the operator's own confirmation of this run.
        confirmed: request.confirmed === true && this.settings.confirm,
        caller: operatorCaller('run', { runId: this.runId }),
        maskValues: this.templates.secrets(),
        signal: this.signal,
      });
    } catch (error) {
      return errored(classifyError(error).toShape(), args);
    }
    if (this.signal.aborted && outcome.error?.code === 'Canceled') return errored(outcome.error, args);

    const assertions = (request.assertions.length ? request.assertions : [{ status: 'ok' } as Assertion]).map((assertion, i) => this.check(assertion, i, outcome));
    const captured: Record<string, unknown> = {};
    for (const [name, path] of Object.entries(request.capture)) {
      const description = `capture ${name} from ${path}`;
      try {
        const match = queryOutcome(outcome, path);
        if (!match.found) {
          assertions.push({ description, passed: false, message: `nothing at ${path}` });
          continue;
        }
        this.templates.set(name, match.value);
        captured[name] = match.value;
      } catch (error) {
        assertions.push({ description, passed: false, message: (error as Error).message });
      }
    }
    return this.report({
      ...base,
      status: assertions.every((a) => a.passed) ? 'passed' : 'failed',
      durationMs: this.now() - started,
      latencyMs: outcome.record.latencyMs,
      recordId: outcome.record.id,
      ...(outcome.duplicate ? { duplicate: true } : {}),
      arguments: args,
      assertions,
      captured,
    });
  }

  private check(assertion: Assertion, index: number, outcome: InvocationOutcome): AssertionResult {
    let resolved: Assertion;
    try {
      resolved = {
        ...assertion,
        ...(Object.hasOwn(assertion, 'equals') ? { equals: this.templates.resolve(assertion.equals) } : {}),
        ...(assertion.contains !== undefined ? { contains: this.templates.resolve(assertion.contains) } : {}),
        ...(assertion.matches !== undefined ? { matches: String(this.templates.resolve(assertion.matches)) } : {}),
      };
    } catch (error) {
      return { description: `assertion ${index + 1} (${assertionKind(assertion)})`, passed: false, message: (error as Error).message };
    }
    return this.evaluator.evaluate(resolved, outcome);
  }

  /** Earlier requests that capture a variable this request uses, directly or through other variables. */
  private dependencies(index: number): number[] {
    const request = this.collection.requests[index]!;
    const used = this.templates.dependencies([request.arguments, request.assertions.map((a) => [a.equals, a.contains, a.matches])]);
    const earlier: number[] = [];
    for (let j = 0; j < index; j++) {
      if (Object.keys(this.collection.requests[j]!.capture).some((name) => used.has(name))) earlier.push(j);
    }
    return earlier;
  }

  private skipped(index: number): RequestResult {
    const request = this.collection.requests[index]!;
    const reason = this.signal.aborted ? 'the run was canceled' : 'not run: an earlier request did not pass (bail)';
    return { index, name: request.name, tool: this.tools[index]!, status: 'skipped', durationMs: 0, reason, assertions: [], captured: {} };
  }

  private skipTheRest() {
    this.results.forEach((result, index) => {
      if (result) return;
      const skipped = this.skipped(index);
      this.results[index] = skipped;
      this.emit({ type: 'request-finished', runId: this.runId, result: skipped, at: this.now() });
    });
  }

  /** Secrets masked first, then long strings cut, so no cut can leave part of a secret behind. */
  private report(result: RequestResult): RequestResult {
    return capStrings(this.redactor.value(result), MAX_REPORTED_STRING);
  }

  private summarize(startedAt: number): RunSummary {
    const results = this.results as RequestResult[];
    const count = (status: RequestResult['status']) => results.filter((r) => r.status === status).length;
    const assertions = results.flatMap((r) => r.assertions);
    const passed = assertions.filter((a) => a.passed).length;
    return {
      runId: this.runId,
      collection: this.collection.name,
      startedAt,
      durationMs: this.now() - startedAt,
      requests: { total: results.length, passed: count('passed'), failed: count('failed'), errored: count('errored'), skipped: count('skipped') },
      assertions: { total: assertions.length, passed, failed: assertions.length - passed },
      results,
      connectFailures: [...this.connectFailures].map(([target, error]) => ({ target, error })),
      canceled: this.signal.aborted,
      ok: results.every((r) => r.status === 'passed'),
    };
  }
}
