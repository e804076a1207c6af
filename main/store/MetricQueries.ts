import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { AppError } from '../../shared/errors';
import { InvocationStatus } from '../../shared/invocation';
import { TOOL_LATENCY_BOUNDARIES_MS } from '../metrics/latencyBoundaries';
import { filterSql } from './filterSql';
import {
  MAX_BUCKETS,
  type BreakdownQuery,
  type BreakdownRow,
  type LatencyHistogram,
  type LatencyHistogramQuery,
  type MetricFilter,
  type MetricGroup,
  type MetricGroupBy,
  type TimeSeriesQuery,
  type TimeSeriesResult,
} from '../../shared/history';
import { summarizeInPlace } from './latencySummary';
import { MINUTE_MS, OK_STATUS_INDEX, STATUS_INDEX, type LatencyRollup, type RollupChunk } from './LatencyRollup';

export interface MetricQueryOptions {
  /**
   * Read the per-minute rollup where the query allows it (the default). `false` reads every row
   * from invocations instead; the answers are identical, only slower.
   */
  useRollup?: boolean;
}

export interface ScanWindow {
  since: number;
  until: number;
  /** Absent: one bucket for the whole window. */
  bucketMs?: number;
  groupBy?: MetricGroupBy;
  filter: MetricFilter;
}

interface CollectedSlots {
  /** Latencies of slot s are values[offsets[s] .. offsets[s + 1]). */
  values: Float64Array;
  offsets: Int32Array;
  errors: Int32Array;
}

/**
 * Gathers latencies per (series, bucket) slot from rollup chunks and rows. Sizes are counted first
 * and every latency then lands in one Float64Array: no per-value allocation on a million-call scan.
 */
export class Collector {
  readonly groups: (MetricGroup | undefined)[] = [];
  readonly firstBucket: number;
  readonly buckets: number;
  private readonly seriesByKey = new Map<string, number>();
  private readonly chunks: { chunk: RollupChunk; slotOfGroup: Int32Array }[] = [];
  private readonly rowSlots: number[] = [];
  private readonly rowLatencies: number[] = [];
  private readonly rowErrors: boolean[] = [];

  constructor(
    private readonly window: ScanWindow,
    private readonly allowedStatus: Uint8Array,
  ) {
    const { since, until, bucketMs } = window;
    this.firstBucket = bucketMs ? Math.floor(since / bucketMs) : 0;
    this.buckets = bucketMs ? Math.floor((until - 1) / bucketMs) - this.firstBucket + 1 : 1;
  }

  series(kind: string, name: string, tool: string, replica: string | null = null): number {
    const by = this.window.groupBy;
    const source = `${kind}:${name}`;
    const key = by === 'tool' ? `${source}/${tool}` : by === 'source' ? source : by === 'replica' ? (replica ?? '') : '';
    let index = this.seriesByKey.get(key);
    if (index === undefined) {
      index = this.groups.push(by === 'tool' ? { key, source, tool } : by === 'source' ? { key, source } : by === 'replica' ? { key, source: '', replica: key } : undefined) - 1;
      this.seriesByKey.set(key, index);
    }
    return index;
  }

  slot(series: number, t: number): number {
    const bucket = this.window.bucketMs ? Math.floor(t / this.window.bucketMs) - this.firstBucket : 0;
    return series * this.buckets + bucket;
  }

  /** `slotOfGroup[g]` is the slot of the chunk's group g, or -1 when the filter excludes it. */
  addChunk(chunk: RollupChunk, slotOfGroup: Int32Array): void {
    this.chunks.push({ chunk, slotOfGroup });
  }

  addRow(slot: number, latency: number, isError: boolean): void {
    this.rowSlots.push(slot);
    this.rowLatencies.push(latency);
    this.rowErrors.push(isError);
  }

  collect(): CollectedSlots {
    const slots = this.groups.length * this.buckets;
    const counts = new Int32Array(slots);
    const errors = new Int32Array(slots);
    const allowed = this.allowedStatus;
    for (const { chunk, slotOfGroup } of this.chunks) {
      const { segments } = chunk;
      for (let j = 0; j < segments.length; j += 3) {
        const slot = slotOfGroup[segments[j]!]!;
        const status = segments[j + 1]!;
        if (slot < 0 || !allowed[status]) continue;
        counts[slot]! += segments[j + 2]!;
        if (status !== OK_STATUS_INDEX) errors[slot]! += segments[j + 2]!;
      }
    }
    for (let r = 0; r < this.rowSlots.length; r++) {
      const slot = this.rowSlots[r]!;
      counts[slot]!++;
      if (this.rowErrors[r]) errors[slot]!++;
    }
    const offsets = new Int32Array(slots + 1);
    for (let s = 0; s < slots; s++) offsets[s + 1] = offsets[s]! + counts[s]!;
    const next = offsets.slice(0, slots);
    const values = new Float64Array(offsets[slots]!);
    for (const { chunk, slotOfGroup } of this.chunks) {
      const { segments, latencies } = chunk;
      for (let j = 0, start = 0; j < segments.length; j += 3) {
        const end = start + segments[j + 2]!;
        const slot = slotOfGroup[segments[j]!]!;
        if (slot >= 0 && allowed[segments[j + 1]!]) {
          let at = next[slot]!;
          for (let i = start; i < end; i++) values[at++] = latencies[i]!;
          next[slot] = at;
        }
        start = end;
      }
    }
    for (let r = 0; r < this.rowSlots.length; r++) values[next[this.rowSlots[r]!]!++] = this.rowLatencies[r]!;
    return { values, offsets, errors };
  }
}

const slotValues = (collected: CollectedSlots, slot: number) => collected.values.subarray(collected.offsets[slot], collected.offsets[slot + 1]);

/** What a scan reads, in order: rows of a time range, or the rollup chunks of whole minutes [first, end). */
export type ScanStep = { rows: [since: number, until: number] } | { rollup: [firstMinute: number, endMinute: number] };

/**
 * Whole minutes come from the rollup; the partial minutes at either edge of the window, and
 * everything when the filter, grouping or bucket size cannot be answered per minute, come from rows.
 */
export function scanSteps(window: ScanWindow, options: MetricQueryOptions = {}): ScanStep[] {
  const { since, until, bucketMs, filter } = window;
  // The rollup keeps groups (source, tool) and statuses only: any other filter reads the rows.
  const rowOnly = filter.text || filter.runId !== undefined || filter.traceId !== undefined || filter.taskId !== undefined || filter.via !== undefined || filter.agent !== undefined || filter.replica !== undefined || window.groupBy === 'replica';
  const rollupFits = options.useRollup !== false && !rowOnly && (bucketMs === undefined || bucketMs % MINUTE_MS === 0);
  const firstMinute = Math.ceil(since / MINUTE_MS);
  const endMinute = Math.floor(until / MINUTE_MS);
  if (!rollupFits || firstMinute >= endMinute) return [{ rows: [since, until] }];
  return [
    ...(since < firstMinute * MINUTE_MS ? [{ rows: [since, firstMinute * MINUTE_MS] as [number, number] }] : []),
    { rollup: [firstMinute, endMinute] },
    ...(endMinute * MINUTE_MS < until ? [{ rows: [endMinute * MINUTE_MS, until] as [number, number] }] : []),
  ];
}

export function newCollector(window: ScanWindow): Collector {
  const { filter } = window;
  const allowed = new Uint8Array(InvocationStatus.options.length).fill(filter.status?.length ? 0 : 1);
  for (const status of filter.status ?? []) allowed[STATUS_INDEX.get(status)!] = 1;
  return new Collector(window, allowed);
}

/** Hands one rollup chunk to the collector, the groups the filter excludes skipped. */
export function addRollupChunk(collector: Collector, chunk: RollupChunk, filter: MetricFilter): void {
  const t = chunk.minute * MINUTE_MS;
  const slotOfGroup = Int32Array.from(chunk.groups, ([kind, name, tool]) =>
    (filter.sourceKind === undefined || filter.sourceKind === kind) && (filter.sourceName === undefined || filter.sourceName === name) && (filter.tool === undefined || filter.tool === tool)
      ? collector.slot(collector.series(kind, name, tool), t)
      : -1,
  );
  collector.addChunk(chunk, slotOfGroup);
}

/** The scan window of a time-series query, or its empty answer; a window of too many buckets is refused. */
export function timeSeriesWindow(query: TimeSeriesQuery): ScanWindow | TimeSeriesResult {
  const { since, until, bucketMs } = query;
  if (!(until > since)) return { since, until, bucketMs, series: [] };
  const buckets = Math.floor((until - 1) / bucketMs) - Math.floor(since / bucketMs) + 1;
  if (buckets > MAX_BUCKETS) {
    throw new AppError('InvalidInput', `That window has ${buckets} buckets of ${bucketMs} ms; the limit is ${MAX_BUCKETS}. Use larger buckets.`);
  }
  return { since, until, bucketMs, groupBy: query.groupBy, filter: query.filter ?? {} };
}

export function finishTimeSeries(query: TimeSeriesQuery, collector: Collector): TimeSeriesResult {
  const { since, until, bucketMs } = query;
  if (collector.groups.length === 0 && !query.groupBy) collector.series('', '', '');
  const collected = collector.collect();
  const series = collector.groups.flatMap((group, s) => {
    const first = s * collector.buckets;
    // A group seen only in calls the status filter excluded has nothing to show.
    if (group && collected.offsets[first] === collected.offsets[first + collector.buckets]) return [];
    const points = [];
    for (let b = 0; b < collector.buckets; b++) {
      points.push({ t: (collector.firstBucket + b) * bucketMs, ...summarizeInPlace(slotValues(collected, first + b), collected.errors[first + b]!) });
    }
    return [group ? { group, points } : { points }];
  });
  return { since, until, bucketMs, series };
}

export const breakdownWindow = (query: BreakdownQuery): ScanWindow | undefined =>
  query.until > query.since ? { since: query.since, until: query.until, groupBy: query.by, filter: query.filter ?? {} } : undefined;

export function finishBreakdown(collector: Collector | undefined): BreakdownRow[] {
  if (!collector) return [];
  const collected = collector.collect();
  return collector.groups
    .map((group, s) => ({ group: group!, ...summarizeInPlace(slotValues(collected, s), collected.errors[s]!) }))
    .filter((row) => row.count > 0)
    .sort((a, b) => b.count - a.count || a.group.key.localeCompare(b.group.key));
}

export const histogramWindow = (query: LatencyHistogramQuery): ScanWindow | undefined =>
  query.until > query.since ? { since: query.since, until: query.until, filter: query.filter ?? {} } : undefined;

export function finishHistogram(query: LatencyHistogramQuery, collector: Collector | undefined): LatencyHistogram {
  const bounds = [...new Set(query.buckets ?? TOOL_LATENCY_BOUNDARIES_MS)].sort((a, b) => a - b);
  const counts = new Array<number>(bounds.length + 1).fill(0);
  if (collector) for (const value of collector.collect().values) counts[upperBoundIndex(bounds, value)]!++;
  return {
    total: counts.reduce((a, b) => a + b, 0),
    buckets: counts.map((count, i) => ({ lowerMs: i === 0 ? 0 : bounds[i - 1]!, upperMs: i < bounds.length ? bounds[i]! : null, count })),
  };
}

/** Time series, breakdowns and histograms with exact percentiles over stored invocations (the SQLite file). */
export class MetricQueries {
  constructor(
    private readonly rollup: LatencyRollup,
    private readonly prepare: (sql: string) => StatementSync,
  ) {}

  timeSeries(query: TimeSeriesQuery, options: MetricQueryOptions = {}): TimeSeriesResult {
    const window = timeSeriesWindow(query);
    return 'series' in window ? window : finishTimeSeries(query, this.scan(window, options));
  }

  breakdown(query: BreakdownQuery, options: MetricQueryOptions = {}): BreakdownRow[] {
    const window = breakdownWindow(query);
    return finishBreakdown(window && this.scan(window, options));
  }

  latencyHistogram(query: LatencyHistogramQuery, options: MetricQueryOptions = {}): LatencyHistogram {
    const window = histogramWindow(query);
    return finishHistogram(query, window && this.scan(window, options));
  }

  private scan(window: ScanWindow, options: MetricQueryOptions): Collector {
    const collector = newCollector(window);
    for (const step of scanSteps(window, options)) {
      if ('rows' in step) this.scanRows(collector, step.rows[0], step.rows[1], window.filter);
      else for (const chunk of this.rollup.chunks(step.rollup[0], step.rollup[1])) addRollupChunk(collector, chunk, window.filter);
    }
    return collector;
  }

  private scanRows(collector: Collector, since: number, until: number, filter: MetricFilter): void {
    const { where, params } = filterSql({ ...filter, since, until });
    const statement = this.prepare(`SELECT started_at, latency_ms, status, source_kind, source_name, tool, replica FROM invocations ${where}`);
    statement.setReturnArrays(true);
    for (const row of statement.iterate(...(params as SQLInputValue[])) as Iterable<[number, number, string, string, string, string, string | null]>) {
      const [startedAt, latency, status, kind, name, tool, replica] = row;
      collector.addRow(collector.slot(collector.series(kind, name, tool, replica), startedAt), latency, status !== 'ok');
    }
  }
}

/** Index of the first bound >= value (Prometheus `le` buckets), or bounds.length for the overflow. */
function upperBoundIndex(bounds: readonly number[], value: number): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bounds[mid]! >= value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
