import { DAY_MS, HOUR_MS, MINUTE_MS } from './timeRange';

const countFormat = new Intl.NumberFormat('en-US');

/** 12 · 1,234 */
export function formatCount(n: number): string {
  return countFormat.format(n);
}

/** Sub-millisecond stdio calls keep their precision: 0.21 ms, 4.2 ms, 85 ms, 1.24 s, 2.5 min. */
export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms === 0) return '0';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** A 0..1 rate as 0%, 0.4%, 12.5%, 100%. */
export function formatPercent(rate: number): string {
  if (rate === 0) return '0%';
  const pct = rate * 100;
  if (pct < 0.1) return '<0.1%';
  return `${Number(pct.toFixed(1))}%`;
}

/** A bucket's start as the axis shows it: seconds for short buckets, the day for long windows. */
export function formatBucketTime(t: number, bucketMs: number, spanMs: number): string {
  const options: Intl.DateTimeFormatOptions =
    spanMs > 2 * DAY_MS
      ? { month: 'short', day: 'numeric', ...(bucketMs < DAY_MS ? { hour: '2-digit', minute: '2-digit' } : {}) }
      : bucketMs < MINUTE_MS
        ? { hour: '2-digit', minute: '2-digit', second: '2-digit' }
        : { hour: '2-digit', minute: '2-digit' };
  return new Intl.DateTimeFormat(undefined, { ...options, hour12: false }).format(t);
}

/** "15 s", "1 min", "2 h", "1 d" — the size of one bucket. */
export function formatBucketSize(ms: number): string {
  if (ms < MINUTE_MS) return `${ms / 1000} s`;
  if (ms < HOUR_MS) return `${ms / MINUTE_MS} min`;
  if (ms < DAY_MS) return `${ms / HOUR_MS} h`;
  return `${ms / DAY_MS} d`;
}

/** Histogram bucket label from its upper bound: ≤0.5 ms, ≤250 ms, ≤2.5 s, >300 s. */
export function formatBound(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${ms / 1000} s`;
  return `${ms / 60_000} min`;
}
