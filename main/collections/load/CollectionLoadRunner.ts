import { operatorCaller } from '../../../shared/caller';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseTarget, type Assertion, type Collection, type SavedRequest } from '../../../shared/collections';
import { AppError, type AppErrorShape } from '../../../shared/errors';
import { LoadOptions, type LoadEvent, type LoadOptionsInput, type LoadSummary, type ReplicaDifference, type ReplicaFigures } from '../../../shared/loadRuns';
import type { InvocationOutcome } from '../../../shared/registry';
import { startCancellableRun } from '../../platform/CancellableRun';
import { SecretRedactor } from '../../platform/SecretRedactor';
import type { SecretStore } from '../../platform/SecretStore';
import { classifyError } from '../../registry/classifyError';
import type { InvocationPipeline, InvocationRequest } from '../../registry/InvocationPipeline';
import type { Clock } from '../../platform/Clock';
import { AssertionEvaluator } from '../AssertionEvaluator';
import type { RunTarget } from '../CollectionRunner';
import { queryOutcome } from '../queryOutcome';
import { secretNames, Templates } from '../Templates';
import { ArrivalSchedule } from './ArrivalSchedule';
import { evaluateThresholds } from './evaluateThresholds';
import { LoadSession, LoadStream, STOPPED_CODE, type SendArrival } from './LoadEngine';
import { addCounts, figuresOf, latencyHistogram } from './LoadStats';

/** Where one stream of load goes: the whole target, or one replica of it. */
export interface LoadStreamTarget {
  /** The replica's name (a pod); empty for the target itself. */
  label: string;
  address?: string;
  /** The registry name this stream calls for a request. */
  toolName(request: SavedRequest): string;
}

/** Finds the replicas behind the collection's targets and registers them; `release` unregisters. */
export type ReplicaResolver = (targets: RunTarget[], signal: AbortSignal) => Promise<{ streams: LoadStreamTarget[]; release(): Promise<void> }>;

export interface CollectionLoadRunnerDeps {
  pipeline: Pick<InvocationPipeline, 'invoke' | 'endRun'>;
  prepareTarget: (target: RunTarget, signal: AbortSignal) => Promise<void>;
  secretStore: SecretStore;
  /** Drives the schedule; defaults to performance.now() and real timers. */
  clock?: Clock;
  epochNow?: () => number;
  newRunId?: () => string;
}

export type LoadRunOptions = LoadOptionsInput & { signal?: AbortSignal; replicas?: ReplicaResolver };

/** A load run in progress: its events (a tick a second), its summary, and a way to stop it. */
export interface LoadRun extends AsyncIterable<LoadEvent> {
  readonly runId: string;
  readonly summary: Promise<LoadSummary>;
  cancel(): void;
}

const preciseClock: Clock = {
  now: () => performance.now(),
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

/** Replicas' differing answers are shown cut to this many characters, around where they differ. */
const MAX_ANSWER_CHARS = 500;

/**
 * Sends a collection's requests at a constant arrival rate (request k of the run is request
 * k mod n of the collection) through the invocation pipeline, under one run id, and measures
 * them with HdrHistograms from their intended send times.
 */
export class CollectionLoadRunner {
  constructor(private readonly deps: CollectionLoadRunnerDeps) {}

  run(collection: Collection, options: LoadRunOptions): LoadRun {
    const { signal, replicas, ...rest } = options;
    const settings = LoadOptions.parse(rest);
    if (collection.requests.length === 0) throw new AppError('InvalidInput', `Collection "${collection.name}" has no requests to send`);
    const runId = (this.deps.newRunId ?? randomUUID)();
    const run = startCancellableRun<LoadEvent, LoadSummary>(
      ({ signal: runSignal, emit }) => new LoadExecution(this.deps, collection, settings, runId, runSignal, replicas, emit).execute(),
      // Every call in flight listens on the run's signal (one listener each, removed when it settles).
      { signal, capacity: Math.ceil(settings.durationMs / 1000) + 16, manyListeners: true },
    );
    return { runId, summary: run.result, cancel: run.cancel, [Symbol.asyncIterator]: () => run[Symbol.asyncIterator]() };
  }
}

interface PreparedRequest {
  request: SavedRequest;
  arguments: Record<string, unknown>;
  assertions: Assertion[];
}

class LoadExecution {
  private readonly clock: Clock;
  private readonly templates: Templates;
  private readonly evaluator = new AssertionEvaluator();
  private redactor = new SecretRedactor([]);
  private readonly connectFailures: { target: string; error: AppErrorShape }[] = [];
  /** Per request, per stream: the first answer, when there are replicas to compare. */
  private readonly answers: (string | undefined)[][] = [];

  constructor(
    private readonly deps: CollectionLoadRunnerDeps,
    private readonly collection: Collection,
    private readonly settings: LoadOptions,
    private readonly runId: string,
    private readonly signal: AbortSignal,
    private readonly replicas: ReplicaResolver | undefined,
    private readonly emit: (event: LoadEvent) => void,
  ) {
    this.clock = deps.clock ?? preciseClock;
    this.templates = new Templates(new Map(Object.entries({ ...collection.variables, ...settings.environment })));
  }

  async execute(): Promise<LoadSummary> {
    const epochNow = this.deps.epochNow ?? Date.now;
    const preparedAt = epochNow();
    const targets = [...new Set(this.collection.requests.map((r) => r.target))].map((t) => parseTarget(t));
    let release: (() => Promise<void>) | undefined;
    try {
      await this.templates.loadSecrets([...secretNames(this.collection), ...secretNames(this.settings.environment)], this.deps.secretStore);
      this.redactor = new SecretRedactor(this.templates.secrets());
      let streams: LoadStreamTarget[] = [{ label: '', toolName: (r) => `${r.target}.${r.tool}` }];
      if (this.replicas) {
        // Per replica, the targets are the cluster's tools: finding their pods is the connecting.
        try {
          const resolved = await this.replicas(targets, this.signal);
          release = resolved.release;
          streams = resolved.streams;
        } catch (error) {
          this.connectFailures.push({ target: targets.map((t) => `${t.kind}:${t.name}`).join(', '), error: this.redactor.value(classifyError(error).toShape()) });
        }
      } else {
        await this.prepareTargets(targets);
      }
      if (this.connectFailures.length || this.signal.aborted) return this.finished(this.notStarted(preparedAt));
      await this.prime(streams[0]!);
      const prepared = this.collection.requests.map((request) => this.prepare(request));
      return this.finished(await this.load(prepared, streams));
    } finally {
      this.deps.pipeline.endRun(this.runId);
      await release?.().catch(() => undefined);
    }
  }

  private finished(summary: LoadSummary): LoadSummary {
    this.emit({ type: 'load-finished', runId: this.runId, summary, at: (this.deps.epochNow ?? Date.now)() });
    return summary;
  }

  private async prepareTargets(targets: RunTarget[]) {
    await Promise.all(
      targets.map(async (target) => {
        try {
          await this.deps.prepareTarget(target, this.signal);
        } catch (error) {
          this.connectFailures.push({ target: `${target.kind}:${target.name}`, error: this.redactor.value(classifyError(error).toShape()) });
        }
      }),
    );
  }

  /**
   * Requests that use a variable captured by an earlier one get it from one pass through the
   * collection in order before the load starts (recorded under the run like the rest).
   */
  private async prime(stream: LoadStreamTarget) {
    const captured = new Set(this.collection.requests.flatMap((r) => Object.keys(r.capture)));
    const used = this.templates.dependencies(this.collection.requests.map((r) => [r.arguments, r.assertions.map((a) => [a.equals, a.contains, a.matches])]));
    if (![...captured].some((name) => used.has(name))) return;
    for (const request of this.collection.requests) {
      const outcome = await this.deps.pipeline.invoke(this.invocation(request, stream.toolName(request), this.resolveArguments(request)));
      if (outcome.error) throw new AppError('ExecutionFailed', `The pass that captures variables failed at "${request.name}": ${outcome.error.code}: ${outcome.error.message}`);
      for (const [name, path] of Object.entries(request.capture)) {
        const match = queryOutcome(outcome, path);
        if (!match.found) throw new AppError('ExecutionFailed', `The pass that captures variables found nothing at ${path} in "${request.name}" for {{${name}}}`);
        this.templates.set(name, match.value);
      }
    }
  }

  private resolveArguments(request: SavedRequest): Record<string, unknown> {
    try {
      return this.templates.resolve(request.arguments) as Record<string, unknown>;
    } catch (error) {
      throw new AppError('InvalidInput', `Request "${request.name}": ${(error as Error).message}`);
    }
  }

  /** Arguments and assertion operands are resolved once: variables do not change during the load. */
  private prepare(request: SavedRequest): PreparedRequest {
    const args = this.resolveArguments(request);
    const assertions = request.assertions.map((assertion) => {
      try {
        return {
          ...assertion,
          ...(Object.hasOwn(assertion, 'equals') ? { equals: this.templates.resolve(assertion.equals) } : {}),
          ...(assertion.contains !== undefined ? { contains: this.templates.resolve(assertion.contains) } : {}),
          ...(assertion.matches !== undefined ? { matches: String(this.templates.resolve(assertion.matches)) } : {}),
        };
      } catch (error) {
        throw new AppError('InvalidInput', `Request "${request.name}": ${(error as Error).message}`);
      }
    });
    return { request, arguments: args, assertions };
  }

  private invocation(request: SavedRequest, name: string, args: Record<string, unknown>): InvocationRequest {
    return {
      name,
      arguments: args,
      timeoutMs: request.timeoutMs,
      maxTotalTimeoutMs: request.maxTotalTimeoutMs,
      // The file's `confirmed: true` counts only with the operator's own confirmation of this run.
      confirmed: request.confirmed === true && this.settings.confirm,
      caller: operatorCaller('run', { runId: this.runId }),
      // The same call is sent again and again on purpose.
      allowRepeats: true,
      maskValues: this.templates.secrets(),
      signal: this.signal,
    };
  }

  private async load(prepared: PreparedRequest[], targets: LoadStreamTarget[]): Promise<LoadSummary> {
    const { settings } = this;
    const schedule = new ArrivalSchedule(settings.rps, settings.durationMs, settings.rampUpMs);
    const compare = targets.length > 1;
    if (compare) prepared.forEach((_, i) => (this.answers[i] = targets.map(() => undefined)));
    const streams = targets.map((target, s) => {
      const invocations = prepared.map((p) => this.invocation(p.request, target.toolName(p.request), p.arguments));
      const send: SendArrival = async (_arrival, i) => {
        const outcome = await this.deps.pipeline.invoke(invocations[i]!);
        if (compare && this.answers[i]![s] === undefined) this.answers[i]![s] = this.answerOf(outcome);
        return this.codeOf(outcome, prepared[i]!);
      };
      return new LoadStream(schedule, settings.concurrency, this.clock, prepared.length, send, target.label);
    });
    const session = new LoadSession(streams, { schedule, clock: this.clock, epochNow: this.deps.epochNow, onTick: (tick) => this.emit({ type: 'load-tick', runId: this.runId, tick }) });
    const settingsOut = { rps: settings.rps, durationMs: settings.durationMs, rampUpMs: settings.rampUpMs, concurrency: settings.concurrency, thresholds: settings.thresholds };
    const stop = () => session.stop();
    this.signal.addEventListener('abort', stop, { once: true });
    const running = session.run();
    this.emit({
      type: 'load-started',
      runId: this.runId,
      collection: this.collection.name,
      settings: settingsOut,
      ...(compare ? { replicas: targets.map((t) => t.label) } : {}),
      at: session.startedAt,
    });
    if (this.signal.aborted) session.stop();
    try {
      await running;
    } finally {
      this.signal.removeEventListener('abort', stop);
    }
    return this.summarize(session, targets, prepared, settingsOut);
  }

  private codeOf(outcome: InvocationOutcome, prepared: PreparedRequest): string | undefined {
    if (outcome.error) return outcome.error.code === 'Canceled' && this.signal.aborted ? STOPPED_CODE : outcome.error.code;
    if (outcome.result?.isError) return 'ToolError';
    for (const assertion of prepared.assertions) {
      if (!this.evaluator.evaluate(assertion, outcome).passed) return 'AssertionFailed';
    }
    return undefined;
  }

  private answerOf(outcome: InvocationOutcome): string {
    const text = outcome.error
      ? `error ${outcome.error.code}: ${outcome.error.message}`
      : JSON.stringify({ ...(outcome.result?.isError ? { isError: true } : {}), content: outcome.result?.content, structuredContent: outcome.result?.structuredContent });
    return this.redactor.text(text);
  }

  private summarize(session: LoadSession, targets: LoadStreamTarget[], prepared: PreparedRequest[], settings: LoadSummary['settings']): LoadSummary {
    const streams = session.streams;
    const latency = latencyHistogram();
    const service = latencyHistogram();
    const errorsByCode: Record<string, number> = {};
    let sent = 0;
    let requests = 0;
    let errors = 0;
    let steady = 0;
    let dropped = 0;
    for (const stream of streams) {
      latency.add(stream.stats.latency);
      service.add(stream.stats.service);
      addCounts(errorsByCode, stream.stats.errorsByCode);
      sent += stream.stats.sent;
      requests += stream.stats.completed;
      errors += stream.stats.errors;
      steady += stream.stats.steadyCompleted;
      dropped += stream.dropped;
    }
    const canceled = this.signal.aborted;
    // The steady part runs from the end of the ramp-up to the end of the duration (or to the stop).
    const steadyMs = Math.max(0, (canceled ? Math.min(settings.durationMs, session.elapsedMs) : settings.durationMs) - settings.rampUpMs);
    const rate = (steadyCount: number, all: number) => (steadyMs > 0 ? steadyCount / (steadyMs / 1000) : session.elapsedMs > 0 ? all / (session.elapsedMs / 1000) : 0);
    const achievedRps = round2(rate(steady, requests));
    const latencyFigures = figuresOf(latency);
    const thresholds = evaluateThresholds(settings.thresholds, { latency: latencyFigures, requests, errors, achievedRps });
    const perRequest = prepared.map((p, i) => {
      const merged = latencyHistogram();
      let count = 0;
      let failed = 0;
      for (const stream of streams) {
        const stats = stream.stats.perRequest[i]!;
        merged.add(stats.latency);
        count += stats.requests;
        failed += stats.errors;
      }
      return { name: p.request.name, tool: `${p.request.target}.${p.request.tool}`, requests: count, errors: failed, latency: figuresOf(merged) };
    });
    const summary: LoadSummary = {
      runId: this.runId,
      collection: this.collection.name,
      startedAt: session.startedAt,
      durationMs: round2(session.elapsedMs),
      settings,
      scheduled: new ArrivalSchedule(settings.rps, settings.durationMs, settings.rampUpMs).total * streams.length,
      sent,
      requests,
      dropped,
      askedRps: settings.rps * streams.length,
      achievedRps,
      errors,
      errorsByCode,
      latency: latencyFigures,
      serviceTime: figuresOf(service),
      perRequest,
      thresholds,
      timeline: session.ticks,
      connectFailures: [],
      canceled,
      ok: !canceled && thresholds.every((t) => t.passed),
    };
    if (targets.length > 1) {
      summary.replicas = streams.map((stream, s): ReplicaFigures => ({
        replica: targets[s]!.label,
        ...(targets[s]!.address ? { address: targets[s]!.address } : {}),
        requests: stream.stats.completed,
        errors: stream.stats.errors,
        errorsByCode: { ...stream.stats.errorsByCode },
        achievedRps: round2(rate(stream.stats.steadyCompleted, stream.stats.completed)),
        latency: figuresOf(stream.stats.latency),
      }));
      summary.replicaDifferences = this.differences(prepared, targets);
    }
    return summary;
  }

  private differences(prepared: PreparedRequest[], targets: LoadStreamTarget[]): ReplicaDifference[] {
    return prepared.flatMap((p, i) => {
      const groups = new Map<string, string[]>();
      targets.forEach((target, s) => {
        const answer = this.answers[i]?.[s];
        if (answer === undefined) return;
        groups.set(answer, [...(groups.get(answer) ?? []), target.label]);
      });
      if (groups.size <= 1) return [];
      const answers = [...groups.keys()];
      const from = firstDifference(answers);
      return [{ request: p.request.name, arguments: this.redactor.value(p.arguments), answers: [...groups].map(([answer, replicas]) => ({ replicas, answer: excerpt(answer, from) })) }];
    });
  }

  /** A run that never sent anything (a target could not be connected, or it was stopped first). */
  private notStarted(at: number): LoadSummary {
    const { settings } = this;
    const empty = figuresOf(latencyHistogram());
    return {
      runId: this.runId,
      collection: this.collection.name,
      startedAt: at,
      durationMs: 0,
      settings: { rps: settings.rps, durationMs: settings.durationMs, rampUpMs: settings.rampUpMs, concurrency: settings.concurrency, thresholds: settings.thresholds },
      scheduled: 0,
      sent: 0,
      requests: 0,
      dropped: 0,
      askedRps: settings.rps,
      achievedRps: 0,
      errors: 0,
      errorsByCode: {},
      latency: empty,
      serviceTime: empty,
      perRequest: [],
      thresholds: evaluateThresholds(settings.thresholds, { latency: empty, requests: 0, errors: 0, achievedRps: 0 }),
      timeline: [],
      connectFailures: this.connectFailures,
      canceled: this.signal.aborted,
      ok: false,
    };
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Where the first of several texts stops agreeing with the others. */
function firstDifference(texts: string[]): number {
  let i = 0;
  while (texts.every((t) => i < t.length && t[i] === texts[0]![i])) i++;
  return i;
}

/** Up to MAX_ANSWER_CHARS of an answer, starting a little before `from` so the difference shows. */
function excerpt(text: string, from: number): string {
  if (text.length <= MAX_ANSWER_CHARS) return text;
  const start = Math.max(0, Math.min(from - 100, text.length - MAX_ANSWER_CHARS));
  return `${start > 0 ? '…' : ''}${text.slice(start, start + MAX_ANSWER_CHARS)}${start + MAX_ANSWER_CHARS < text.length ? '…' : ''}`;
}
