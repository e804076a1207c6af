import type { LatencySummary } from '../../shared/history';

/**
 * Puts the k-th smallest of values[lo..hi] at index k, smaller ones before it and larger ones
 * after (Hoare partitioning, so runs of equal latencies stay linear). Linear on average, against
 * n log n for a sort, which is what makes exact percentiles over a million calls affordable.
 */
function selectInPlace(values: Float64Array, k: number, lo: number, hi: number): number {
  while (hi > lo) {
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swap;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}

/** 0-based index of the nearest-rank p-th percentile: the smallest value with at least p% at or below it. */
export function nearestRankIndex(count: number, p: number): number {
  return Math.min(count, Math.max(1, Math.ceil((p / 100) * count))) - 1;
}

/** Exact count, errors and nearest-rank p50/p95/p99. Reorders `latencies`. */
export function summarizeInPlace(latencies: Float64Array, errors: number): LatencySummary {
  const count = latencies.length;
  if (count === 0) return { count, errors, errorRate: 0, p50: null, p95: null, p99: null };
  const last = count - 1;
  const k50 = nearestRankIndex(count, 50);
  const k95 = nearestRankIndex(count, 95);
  const k99 = nearestRankIndex(count, 99);
  // Each selection leaves everything above its rank to the right, so the next one searches only there.
  const p50 = selectInPlace(latencies, k50, 0, last);
  const p95 = selectInPlace(latencies, k95, k50, last);
  const p99 = selectInPlace(latencies, k99, k95, last);
  return { count, errors, errorRate: errors / count, p50, p95, p99 };
}
