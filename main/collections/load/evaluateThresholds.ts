import { parseThreshold, type LatencyFigures, type Threshold, type ThresholdResult } from '../../../shared/loadRuns';

export interface MeasuredFigures {
  latency: LatencyFigures;
  requests: number;
  errors: number;
  achievedRps: number;
}

const LATENCY_KEY: Record<string, keyof LatencyFigures> = { p50: 'p50', p75: 'p75', p90: 'p90', p95: 'p95', p99: 'p99', 'p99.9': 'p999', max: 'max', mean: 'mean' };

function actualOf(threshold: Threshold, figures: MeasuredFigures): number | null {
  switch (threshold.metric) {
    case 'error_rate':
      return figures.requests === 0 ? null : figures.errors / figures.requests;
    case 'errors':
      return figures.errors;
    case 'rps':
      return figures.achievedRps;
    default:
      return figures.latency[LATENCY_KEY[threshold.metric]!];
  }
}

function holds(actual: number, threshold: Threshold): boolean {
  switch (threshold.operator) {
    case '<':
      return actual < threshold.value;
    case '<=':
      return actual <= threshold.value;
    case '>':
      return actual > threshold.value;
    case '>=':
      return actual >= threshold.value;
  }
}

function show(metric: Threshold['metric'], value: number): string {
  if (metric === 'error_rate') return `${Number((value * 100).toFixed(3))}%`;
  if (metric === 'errors') return String(value);
  if (metric === 'rps') return `${Number(value.toFixed(2))}/s`;
  return value >= 1000 ? `${Number((value / 1000).toFixed(3))} s` : `${Number(value.toFixed(3))} ms`;
}

/** Each threshold against what the run measured; one with nothing measured fails (nothing shows it held). */
export function evaluateThresholds(expressions: readonly string[], figures: MeasuredFigures): ThresholdResult[] {
  return expressions.map((expression) => {
    const threshold = parseThreshold(expression);
    if ('error' in threshold) return { expression, passed: false, actual: null, message: threshold.error };
    const actual = actualOf(threshold, figures);
    if (actual === null) return { expression, passed: false, actual: null, message: `${threshold.metric}: nothing was measured` };
    const passed = holds(actual, threshold);
    return {
      expression: threshold.expression,
      passed,
      actual,
      message: `${threshold.metric} ${show(threshold.metric, actual)} ${passed ? 'meets' : 'fails'} ${threshold.operator} ${show(threshold.metric, threshold.value)}`,
    };
  });
}
