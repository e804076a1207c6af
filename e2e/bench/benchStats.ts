/** Small statistics for the benchmarks: they print figures, they never assert timings. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, median: percentile(sorted, 50), p99: percentile(sorted, 99), mean: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1) };
}

export const round = (value: number, digits = 3) => Number(value.toFixed(digits));

export function fmt(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(3)} ms`;
}

/**
 * `BENCH_SMOKE=1` (`npm run bench -- --smoke`, CI's smoke run): each bench runs once with tiny
 * counts, so one that no longer runs is noticed; its figures mean nothing then.
 */
export const BENCH_SMOKE = process.env.BENCH_SMOKE === '1';

/** A bench's count: the full one, or the tiny one of a smoke run. */
export const benchCount = (full: number, smoke: number) => (BENCH_SMOKE ? smoke : full);
