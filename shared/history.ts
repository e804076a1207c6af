import { z } from 'zod';
import { CallerAgentName, CallerVia } from './caller';
import { InvocationStatus, ReplicaName, SourceKind, type InvocationRecord } from './invocation';

// Inputs of the history and metrics queries (the store implements them, the router exposes
// them, the UI and CLI send them).

export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_EXPORT_ROWS = 100_000;
export const MAX_BUCKETS = 10_000;

export const InvocationFilter = z.object({
  sourceKind: SourceKind.optional(),
  sourceName: z.string().optional(),
  tool: z.string().optional(),
  /** Any of these statuses; empty or absent means all. */
  status: z.array(InvocationStatus).optional(),
  /** Epoch ms, inclusive. */
  since: z.number().optional(),
  /** Epoch ms, exclusive. */
  until: z.number().optional(),
  runId: z.string().optional(),
  /** The call(s) of one W3C trace (32 hex digits). */
  traceId: z.string().regex(/^[0-9a-f]{32}$/, 'A trace id is 32 lowercase hex digits').optional(),
  /** The call that ran as this MCP task. */
  taskId: z.string().max(512).optional(),
  /** Calls that came in this way (`ui`, `cli`, `run`, …). */
  via: CallerVia.optional(),
  /** Calls one agent made; `null` for the operator's own calls. */
  agent: CallerAgentName.nullable().optional(),
  /** Calls one replica (Tooldeck process) recorded. */
  replica: ReplicaName.optional(),
  /** Case-insensitive substring of the tool name, arguments, result preview or error message. */
  text: z.string().max(500).optional(),
});
export type InvocationFilter = z.infer<typeof InvocationFilter>;

export const InvocationListQuery = InvocationFilter.extend({
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional(),
  /** `nextCursor` of the previous page. */
  cursor: z.string().optional(),
});
export type InvocationListQuery = z.infer<typeof InvocationListQuery>;

export interface InvocationPage {
  items: InvocationRecord[];
  /** Absent on the last page. */
  nextCursor?: string;
}

export const ExportFormat = z.enum(['json', 'csv']);
export type ExportFormat = z.infer<typeof ExportFormat>;

/** `replica`: per Tooldeck process, for a history several replicas share. */
export const MetricGroupBy = z.enum(['tool', 'source', 'replica']);
export type MetricGroupBy = z.infer<typeof MetricGroupBy>;

/** Metric queries take their window separately. */
export const MetricFilter = InvocationFilter.omit({ since: true, until: true });
export type MetricFilter = z.infer<typeof MetricFilter>;

const timeWindow = { since: z.number(), until: z.number() };

export const TimeSeriesQuery = z.object({
  ...timeWindow,
  /** Buckets align to the epoch (not to `since`), so a refreshed chart keeps its bucket edges. */
  bucketMs: z.number().int().min(1),
  groupBy: MetricGroupBy.optional(),
  filter: MetricFilter.optional(),
});
export type TimeSeriesQuery = z.infer<typeof TimeSeriesQuery>;

export const BreakdownQuery = z.object({ ...timeWindow, by: MetricGroupBy, filter: MetricFilter.optional() });
export type BreakdownQuery = z.infer<typeof BreakdownQuery>;

export const LatencyHistogramQuery = z.object({
  ...timeWindow,
  /** Ascending upper bounds in ms; the tool latency boundaries when absent. */
  buckets: z.array(z.number().positive()).max(200).optional(),
  filter: MetricFilter.optional(),
});
export type LatencyHistogramQuery = z.infer<typeof LatencyHistogramQuery>;

/** Percentiles are exact nearest-rank values; null when there were no calls. */
export interface LatencySummary {
  count: number;
  /** Calls whose status is not `ok`. */
  errors: number;
  errorRate: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** A group of calls: `mcp:everything` by source, `mcp:everything/echo` by tool. */
export interface MetricGroup {
  key: string;
  /** Empty when grouped by replica. */
  source: string;
  tool?: string;
  /** Grouped by replica: the replica (empty for calls recorded before replicas were kept). */
  replica?: string;
}

export interface TimeSeriesPoint extends LatencySummary {
  /** Bucket start, epoch ms. */
  t: number;
}

export interface TimeSeries {
  /** Absent when the query was not grouped. */
  group?: MetricGroup;
  /** Every bucket of the window, empty ones included. */
  points: TimeSeriesPoint[];
}

export interface TimeSeriesResult {
  since: number;
  until: number;
  bucketMs: number;
  series: TimeSeries[];
}

export interface BreakdownRow extends LatencySummary {
  group: MetricGroup;
}

export interface HistogramBucket {
  /** Exclusive lower bound, ms (0 for the first bucket). */
  lowerMs: number;
  /** Inclusive upper bound, ms; null for the overflow bucket. */
  upperMs: number | null;
  count: number;
}

export interface LatencyHistogram {
  total: number;
  buckets: HistogramBucket[];
}
