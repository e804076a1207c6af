import { z } from 'zod';
import { AppErrorShape } from './errors';
import { VariableName } from './collections';

// Load runs: a collection's requests sent at a constant arrival rate (an open model), with
// latency measured from each request's intended send time, so a slow response cannot hide the
// requests that should have been sent while it was awaited (coordinated omission).

export const MAX_LOAD_RPS = 10_000;
export const MIN_LOAD_DURATION_MS = 1_000;
export const MAX_LOAD_DURATION_MS = 3_600_000;
export const MAX_LOAD_CONCURRENCY = 1_000;
/** Calls in flight at once unless asked otherwise; arrivals beyond wait, and their wait counts as latency. */
export const DEFAULT_LOAD_CONCURRENCY = 100;

export const LATENCY_METRICS = ['p50', 'p75', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'] as const;
export const THRESHOLD_METRICS = [...LATENCY_METRICS, 'error_rate', 'errors', 'rps'] as const;
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];
export type ThresholdOperator = '<' | '<=' | '>' | '>=';

/** A parsed `--threshold`: latencies in ms, error_rate as a fraction, errors a count, rps the achieved rate. */
export interface Threshold {
  expression: string;
  metric: ThresholdMetric;
  operator: ThresholdOperator;
  value: number;
}

const TIME_UNITS: Record<string, number> = { us: 0.001, µs: 0.001, ms: 1, s: 1_000 };

/**
 * `p95<200ms`, `p99.9 <= 1s`, `error_rate<1%`, `errors<1`, `rps>=45` (the achieved rate).
 * Returns the threshold, or one sentence saying what is wrong.
 */
export function parseThreshold(text: string): Threshold | { error: string } {
  const expression = text.trim();
  const match = /^([a-z_]+|p\d+(?:\.\d+)?)\s*(<=|>=|<|>)\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s|%)?$/i.exec(expression);
  if (!match) return { error: `"${text}" is not a threshold; write <metric><op><value>, e.g. p95<200ms, error_rate<1%, rps>=45` };
  const [, rawMetric, operator, rawValue, rawUnit] = match;
  const metric = (rawMetric!.toLowerCase() === 'p999' ? 'p99.9' : rawMetric!.toLowerCase()) as ThresholdMetric;
  if (!THRESHOLD_METRICS.includes(metric)) return { error: `"${rawMetric}" is not a metric a threshold can check; use one of ${THRESHOLD_METRICS.join(', ')}` };
  const unit = rawUnit?.toLowerCase();
  let value = Number(rawValue);
  if ((LATENCY_METRICS as readonly string[]).includes(metric)) {
    if (unit === '%') return { error: `${metric} is a latency: give it in ms, s or us, e.g. ${metric}<200ms` };
    value *= TIME_UNITS[unit ?? 'ms']!;
  } else if (metric === 'error_rate') {
    if (unit && unit !== '%') return { error: 'error_rate is a share of the requests: give it in %, e.g. error_rate<1%' };
    if (unit === '%') value /= 100;
    if (value > 1) return { error: `error_rate ${rawValue} is above 100%; write it as a percentage, e.g. error_rate<1%` };
  } else if (unit) {
    return { error: `${metric} is a plain number: drop the "${rawUnit}"` };
  }
  return { expression, metric, operator: operator as ThresholdOperator, value };
}

const ThresholdText = z.string().superRefine((text, ctx) => {
  const parsed = parseThreshold(text);
  if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
});

export const LoadOptions = z
  .object({
    /** Arrivals per second once ramped up. */
    rps: z.number().positive().max(MAX_LOAD_RPS),
    durationMs: z.number().int().min(MIN_LOAD_DURATION_MS).max(MAX_LOAD_DURATION_MS),
    /** The rate climbs linearly from 0 to `rps` over the first `rampUpMs` of the duration. */
    rampUpMs: z.number().int().min(0).default(0),
    concurrency: z.number().int().min(1).max(MAX_LOAD_CONCURRENCY).default(DEFAULT_LOAD_CONCURRENCY),
    thresholds: z.array(ThresholdText).max(50).default([]),
    environment: z.record(VariableName, z.unknown()).default({}),
    /** The operator, starting this run, confirmed the requests marked `confirmed: true` (see RunOptions.confirm). */
    confirm: z.boolean().default(false),
  })
  .refine((o) => o.rampUpMs < o.durationMs, { path: ['rampUpMs'], message: 'the ramp-up must be shorter than the duration' });
export type LoadOptions = z.infer<typeof LoadOptions>;
export type LoadOptionsInput = z.input<typeof LoadOptions>;

/** Milliseconds; null when nothing was measured. */
export const LatencyFigures = z.object({
  p50: z.number().nullable(),
  p75: z.number().nullable(),
  p90: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  p999: z.number().nullable(),
  max: z.number().nullable(),
  mean: z.number().nullable(),
});
export type LatencyFigures = z.infer<typeof LatencyFigures>;

/** One second of a load run, for the live charts. */
export const LoadTick = z.object({
  /** Whole seconds since the load started (1 for the first second). */
  second: z.number().int(),
  at: z.number(),
  /** Arrivals that were due this second (the rate asked). */
  asked: z.number().int(),
  sent: z.number().int(),
  completed: z.number().int(),
  errors: z.number().int(),
  errorsByCode: z.record(z.string(), z.number().int()),
  /** Percentiles of the calls that completed this second (from their intended send time). */
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  max: z.number().nullable(),
  inFlight: z.number().int(),
  /** Arrivals due but not yet sent because `concurrency` calls were in flight. */
  waiting: z.number().int(),
});
export type LoadTick = z.infer<typeof LoadTick>;

export const ThresholdResult = z.object({
  expression: z.string(),
  passed: z.boolean(),
  /** The measured value in the threshold's terms (ms, fraction, count, rps); null when nothing was measured. */
  actual: z.number().nullable(),
  message: z.string(),
});
export type ThresholdResult = z.infer<typeof ThresholdResult>;

export const LoadRequestFigures = z.object({
  name: z.string(),
  tool: z.string(),
  requests: z.number().int(),
  errors: z.number().int(),
  latency: LatencyFigures,
});
export type LoadRequestFigures = z.infer<typeof LoadRequestFigures>;

/** One pod behind a LanguageTool's Service, measured on its own (`--per-replica`). */
export const ReplicaFigures = z.object({
  replica: z.string(),
  address: z.string().optional(),
  requests: z.number().int(),
  errors: z.number().int(),
  errorsByCode: z.record(z.string(), z.number().int()),
  achievedRps: z.number(),
  latency: LatencyFigures,
});
export type ReplicaFigures = z.infer<typeof ReplicaFigures>;

/** The same request answered differently by replicas: a stateless tool must answer alike. */
export const ReplicaDifference = z.object({
  request: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** Replica → what it answered (a capped preview), grouped so alike answers share one entry. */
  answers: z.array(z.object({ replicas: z.array(z.string()), answer: z.string() })),
});
export type ReplicaDifference = z.infer<typeof ReplicaDifference>;

export const LoadSummary = z.object({
  runId: z.string(),
  collection: z.string(),
  startedAt: z.number(),
  /** From the first arrival to the last answer. */
  durationMs: z.number(),
  settings: z.object({ rps: z.number(), durationMs: z.number(), rampUpMs: z.number(), concurrency: z.number(), thresholds: z.array(z.string()) }),
  /** Arrivals the schedule asked for in the duration. */
  scheduled: z.number().int(),
  sent: z.number().int(),
  /** Calls that finished (ok or not). */
  requests: z.number().int(),
  /** Arrivals never sent: the duration ended (or the run was stopped) while they waited for a free slot. */
  dropped: z.number().int(),
  askedRps: z.number(),
  /** Calls finished per second over the steady part (after the ramp-up). */
  achievedRps: z.number(),
  errors: z.number().int(),
  errorsByCode: z.record(z.string(), z.number().int()),
  /** From each call's intended send time to its answer. */
  latency: LatencyFigures,
  /** From the actual send to the answer (what a closed-loop tool would report). */
  serviceTime: LatencyFigures,
  perRequest: z.array(LoadRequestFigures),
  thresholds: z.array(ThresholdResult),
  timeline: z.array(LoadTick),
  replicas: z.array(ReplicaFigures).optional(),
  replicaDifferences: z.array(ReplicaDifference).optional(),
  connectFailures: z.array(z.object({ target: z.string(), error: AppErrorShape })),
  canceled: z.boolean(),
  /** Every threshold held, nothing failed to connect, and the run was not stopped. */
  ok: z.boolean(),
});
export type LoadSummary = z.infer<typeof LoadSummary>;

/** What a load run yields for a live view: started, a tick a second, then finished (always last). */
export const LoadEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('load-started'), runId: z.string(), collection: z.string(), settings: LoadSummary.shape.settings, replicas: z.array(z.string()).optional(), at: z.number() }),
  z.object({ type: z.literal('load-tick'), runId: z.string(), tick: LoadTick }),
  z.object({ type: z.literal('load-finished'), runId: z.string(), summary: LoadSummary, at: z.number() }),
]);
export type LoadEvent = z.infer<typeof LoadEvent>;
