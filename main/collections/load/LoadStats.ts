import { build, type Histogram } from 'hdr-histogram-js';
import type { LatencyFigures } from '../../../shared/loadRuns';

/** Latencies are kept in microseconds: HdrHistogram counts integers, and stdio calls take ~0.2 ms. */
const US_PER_MS = 1000;

export function latencyHistogram(): Histogram {
  // 3 significant digits (0.1% error at any magnitude); grows past 60 s if a call ever takes longer.
  return build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3, autoResize: true });
}

export function recordMs(histogram: Histogram, ms: number): void {
  histogram.recordValue(Math.max(1, Math.round(ms * US_PER_MS)));
}

const round = (us: number) => Math.round(us) / US_PER_MS;

/** p50…p99.9, max and mean in ms; nulls for an empty histogram. */
export function figuresOf(histogram: Histogram): LatencyFigures {
  if (histogram.totalCount === 0) return { p50: null, p75: null, p90: null, p95: null, p99: null, p999: null, max: null, mean: null };
  const at = (p: number) => round(histogram.getValueAtPercentile(p));
  return { p50: at(50), p75: at(75), p90: at(90), p95: at(95), p99: at(99), p999: at(99.9), max: round(histogram.maxValue), mean: round(histogram.mean) };
}

export function percentileMs(histogram: Histogram, p: number): number | null {
  return histogram.totalCount === 0 ? null : round(histogram.getValueAtPercentile(p));
}

export function maxMs(histogram: Histogram): number | null {
  return histogram.totalCount === 0 ? null : round(histogram.maxValue);
}

/** Counts by error code, added to in place. */
export type CodeCounts = Record<string, number>;

export function addCounts(into: CodeCounts, from: CodeCounts): CodeCounts {
  for (const [code, n] of Object.entries(from)) into[code] = (into[code] ?? 0) + n;
  return into;
}

/** One request of the collection (by its position), as measured under load. */
export class RequestStats {
  readonly latency = latencyHistogram();
  requests = 0;
  errors = 0;
}

/**
 * Everything one stream of load measured: whole-run histograms (from the intended send time, and
 * from the actual send), per-request ones, and the counters of the second in progress, which
 * `takeInterval()` hands to the live view and resets.
 */
export class LoadStats {
  readonly latency = latencyHistogram();
  readonly service = latencyHistogram();
  readonly perRequest: RequestStats[];
  sent = 0;
  completed = 0;
  errors = 0;
  readonly errorsByCode: CodeCounts = {};
  /** Completions with their finish time in the steady part (after the ramp-up, within the duration). */
  steadyCompleted = 0;

  readonly interval = latencyHistogram();
  intervalSent = 0;
  intervalCompleted = 0;
  intervalErrors = 0;
  intervalErrorsByCode: CodeCounts = {};

  constructor(requestCount: number) {
    this.perRequest = Array.from({ length: requestCount }, () => new RequestStats());
  }

  noteSent(): void {
    this.sent++;
    this.intervalSent++;
  }

  /** One finished call: `latencyMs` from its intended send time, `serviceMs` from the actual send. */
  noteCompleted(request: number, latencyMs: number, serviceMs: number, errorCode: string | undefined, steady: boolean): void {
    this.completed++;
    this.intervalCompleted++;
    if (steady) this.steadyCompleted++;
    recordMs(this.latency, latencyMs);
    recordMs(this.service, serviceMs);
    recordMs(this.interval, latencyMs);
    const perRequest = this.perRequest[request]!;
    perRequest.requests++;
    recordMs(perRequest.latency, latencyMs);
    if (errorCode === undefined) return;
    this.errors++;
    this.intervalErrors++;
    perRequest.errors++;
    this.errorsByCode[errorCode] = (this.errorsByCode[errorCode] ?? 0) + 1;
    this.intervalErrorsByCode[errorCode] = (this.intervalErrorsByCode[errorCode] ?? 0) + 1;
  }

  /** The second just ended: its counters and latencies (added into `into`), then reset. */
  takeInterval(into: Histogram): { sent: number; completed: number; errors: number; errorsByCode: CodeCounts } {
    into.add(this.interval);
    this.interval.reset();
    const taken = { sent: this.intervalSent, completed: this.intervalCompleted, errors: this.intervalErrors, errorsByCode: this.intervalErrorsByCode };
    this.intervalSent = 0;
    this.intervalCompleted = 0;
    this.intervalErrors = 0;
    this.intervalErrorsByCode = {};
    return taken;
  }
}
