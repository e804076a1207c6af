import { describe, expect, it } from 'vitest';
import { summarizeInPlace } from './latencySummary';

/** The definition, by sorting: the value at rank ceil(p/100 * n). */
function byDefinition(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
}

describe('summarizeInPlace', () => {
  it('matches the nearest-rank definition on sorted, reversed, constant, tied and random inputs of every small size', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const shapes: ((n: number) => number[])[] = [
      (n) => Array.from({ length: n }, (_, i) => i),
      (n) => Array.from({ length: n }, (_, i) => n - i),
      (n) => Array.from({ length: n }, () => 7),
      (n) => Array.from({ length: n }, () => Math.floor(random() * 4)),
      (n) => Array.from({ length: n }, () => random() * 1_000),
    ];
    for (const shape of shapes) {
      for (let n = 1; n <= 120; n++) {
        const values = shape(n);
        const summary = summarizeInPlace(Float64Array.from(values), 0);
        expect([summary.p50, summary.p95, summary.p99]).toEqual([byDefinition(values, 50), byDefinition(values, 95), byDefinition(values, 99)]);
      }
    }
  });

  it('reports no percentiles and a zero error rate when there were no calls', () => {
    expect(summarizeInPlace(new Float64Array(0), 0)).toEqual({ count: 0, errors: 0, errorRate: 0, p50: null, p95: null, p99: null });
  });
});
