export const SECOND_MS = 1_000;
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export type RangePreset = '15m' | '1h' | '24h' | '7d';
export type RangeKey = RangePreset | 'all' | 'custom';

/** A preset is relative to now; a custom range is fixed; `all` has no lower bound. */
export type TimeRange = { key: RangePreset | 'all' } | { key: 'custom'; from: number; to: number };

export const PRESET_SPAN_MS: Record<RangePreset, number> = { '15m': 15 * MINUTE_MS, '1h': HOUR_MS, '24h': DAY_MS, '7d': 7 * DAY_MS };

export const RANGE_LABEL: Record<RangeKey, string> = {
  '15m': 'Last 15 minutes',
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  all: 'All time',
  custom: 'Custom range',
};

/** Bucket sizes a chart may use; every one from a minute up divides into whole minutes. */
const BUCKET_LADDER_MS = [
  SECOND_MS,
  5 * SECOND_MS,
  15 * SECOND_MS,
  30 * SECOND_MS,
  MINUTE_MS,
  5 * MINUTE_MS,
  15 * MINUTE_MS,
  30 * MINUTE_MS,
  HOUR_MS,
  2 * HOUR_MS,
  6 * HOUR_MS,
  12 * HOUR_MS,
  DAY_MS,
  7 * DAY_MS,
  30 * DAY_MS,
];

/** Enough points for a readable line, few enough that each bar stays visible. */
const MAX_POINTS = 100;

/** The smallest ladder step that splits `spanMs` into at most 100 buckets: 15 min → 15 s, 1 h → 1 min, 24 h → 15 min, 7 d → 2 h. */
export function bucketFor(spanMs: number): number {
  return BUCKET_LADDER_MS.find((step) => spanMs / step <= MAX_POINTS) ?? BUCKET_LADDER_MS[BUCKET_LADDER_MS.length - 1]!;
}

/**
 * One bucket covering a whole window that ends at `until`: buckets align to the epoch, so a size of
 * at least `until` puts every call of the window in bucket 0, and whole minutes let the store answer
 * from its per-minute rollup. This is how the totals (count, error rate, percentiles) are asked for.
 */
export function wholeWindowBucketMs(until: number): number {
  return Math.ceil(until / MINUTE_MS) * MINUTE_MS;
}

export interface TimeWindow {
  /** Absent for `all`. */
  since?: number;
  until: number;
}

export function windowOf(range: TimeRange, now: number): TimeWindow {
  if (range.key === 'custom') return { since: range.from, until: range.to };
  if (range.key === 'all') return { until: now };
  return { since: now - PRESET_SPAN_MS[range.key], until: now };
}

/** Whether calls made from now on fall inside the range (so live updates matter). */
export function includesNow(range: TimeRange, now: number): boolean {
  return range.key !== 'custom' || range.to > now;
}

export function rangeLabel(range: TimeRange): string {
  if (range.key !== 'custom') return RANGE_LABEL[range.key];
  const format = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });
  return `${format.format(range.from)} – ${format.format(range.to)}`;
}
