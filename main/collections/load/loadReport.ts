import type { LatencyFigures, LoadSummary } from '../../../shared/loadRuns';
import { attrs, seconds, text, timestamp } from '../junitReport';

const ms = (figures: LatencyFigures, prefix = '') => ({
  [`${prefix}p50_ms`]: figures.p50,
  [`${prefix}p75_ms`]: figures.p75,
  [`${prefix}p90_ms`]: figures.p90,
  [`${prefix}p95_ms`]: figures.p95,
  [`${prefix}p99_ms`]: figures.p99,
  [`${prefix}p999_ms`]: figures.p999,
  [`${prefix}max_ms`]: figures.max,
  [`${prefix}mean_ms`]: figures.mean,
});

/**
 * The machine-readable report of a load run (`--reporter json`): the headline figures at the top
 * level in snake_case (`achieved_rps`, `requests`, `errors`, `p50_ms` … `p999_ms`, `thresholds`),
 * then the detail. Latencies run from each call's intended send time; `service_time` from the
 * actual send.
 */
export function loadJsonReport(summary: LoadSummary): Record<string, unknown> {
  return {
    collection: summary.collection,
    run_id: summary.runId,
    started_at: new Date(summary.startedAt).toISOString(),
    duration_s: Math.round(summary.durationMs) / 1000,
    asked_rps: summary.askedRps,
    achieved_rps: summary.achievedRps,
    scheduled: summary.scheduled,
    sent: summary.sent,
    requests: summary.requests,
    dropped: summary.dropped,
    errors: summary.errors,
    error_rate: summary.requests ? summary.errors / summary.requests : 0,
    errors_by_code: summary.errorsByCode,
    ...ms(summary.latency),
    service_time: ms(summary.serviceTime),
    thresholds: summary.thresholds.map((t) => ({ threshold: t.expression, passed: t.passed, actual: t.actual, message: t.message })),
    settings: {
      rps: summary.settings.rps,
      duration_s: summary.settings.durationMs / 1000,
      ramp_up_s: summary.settings.rampUpMs / 1000,
      concurrency: summary.settings.concurrency,
    },
    per_request: summary.perRequest.map((r) => ({ name: r.name, tool: r.tool, requests: r.requests, errors: r.errors, ...ms(r.latency) })),
    ...(summary.replicas
      ? {
          replicas: summary.replicas.map((r) => ({
            replica: r.replica,
            ...(r.address ? { address: r.address } : {}),
            requests: r.requests,
            errors: r.errors,
            errors_by_code: r.errorsByCode,
            achieved_rps: r.achievedRps,
            ...ms(r.latency),
          })),
          replica_differences: summary.replicaDifferences ?? [],
        }
      : {}),
    timeline: summary.timeline.map((t) => ({
      second: t.second,
      asked: t.asked,
      sent: t.sent,
      completed: t.completed,
      errors: t.errors,
      p50_ms: t.p50,
      p95_ms: t.p95,
      p99_ms: t.p99,
      in_flight: t.inFlight,
      waiting: t.waiting,
    })),
    connect_failures: summary.connectFailures.map((f) => ({ target: f.target, code: f.error.code, message: f.error.message })),
    canceled: summary.canceled,
    ok: summary.ok,
  };
}

/**
 * JUnit XML for CI: one suite per load run, one test case per threshold (a `failure` when it does
 * not hold), one per replica difference and one `error` per target that could not be connected;
 * the headline figures are suite properties.
 */
export function loadJunitReport(summary: LoadSummary, name = 'tooldeck'): string {
  const suite = `${summary.collection} (load)`;
  const figures = [
    `${summary.requests} calls, ${summary.achievedRps}/s achieved of ${summary.askedRps}/s asked, ${summary.dropped} not sent`,
    `errors: ${summary.errors}${Object.keys(summary.errorsByCode).length ? ` (${Object.entries(summary.errorsByCode).map(([code, n]) => `${code} ${n}`).join(', ')})` : ''}`,
    `latency from the intended send time: p50 ${summary.latency.p50} ms, p95 ${summary.latency.p95} ms, p99 ${summary.latency.p99} ms, p99.9 ${summary.latency.p999} ms`,
  ].join('\n');
  const runCase = `    <testcase${attrs({ name: 'load run', classname: suite, time: seconds(summary.durationMs) })}>\n${
    summary.canceled ? `      <failure${attrs({ message: 'The run was stopped before its duration ended', type: 'Canceled' })}/>\n` : ''
  }      <system-out>${text(figures)}</system-out>\n    </testcase>`;
  const cases: string[] = [runCase];
  for (const t of summary.thresholds) {
    const open = `    <testcase${attrs({ name: `threshold ${t.expression}`, classname: suite, time: seconds(summary.durationMs) })}`;
    cases.push(t.passed ? `${open}/>` : `${open}>\n      <failure${attrs({ message: t.message, type: 'ThresholdFailed' })}>${text(t.message)}</failure>\n    </testcase>`);
  }
  for (const d of summary.replicaDifferences ?? []) {
    const body = d.answers.map((a) => `${a.replicas.join(', ')}: ${a.answer}`).join('\n');
    cases.push(
      `    <testcase${attrs({ name: `replicas answer "${d.request}" alike`, classname: suite, time: '0.000' })}>\n      <failure${attrs({ message: `${d.answers.length} different answers`, type: 'ReplicasDiffer' })}>${text(body)}</failure>\n    </testcase>`,
    );
  }
  for (const f of summary.connectFailures) {
    cases.push(
      `    <testcase${attrs({ name: `connect ${f.target}`, classname: suite, time: '0.000' })}>\n      <error${attrs({ message: f.error.message, type: f.error.code })}>${text(`${f.error.code}: ${f.error.message}`)}</error>\n    </testcase>`,
    );
  }
  const failures = summary.thresholds.filter((t) => !t.passed).length + (summary.replicaDifferences?.length ?? 0) + (summary.canceled ? 1 : 0);
  const errors = summary.connectFailures.length;
  const tests = cases.length;
  const properties: Record<string, string | number | null> = {
    runId: summary.runId,
    askedRps: summary.askedRps,
    achievedRps: summary.achievedRps,
    requests: summary.requests,
    errors: summary.errors,
    dropped: summary.dropped,
    p50Ms: summary.latency.p50,
    p95Ms: summary.latency.p95,
    p99Ms: summary.latency.p99,
    p999Ms: summary.latency.p999,
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name, tests, failures, errors, skipped: 0, time: seconds(summary.durationMs) })}>`,
    `  <testsuite${attrs({ name: suite, tests, failures, errors, skipped: 0, time: seconds(summary.durationMs), timestamp: timestamp(summary.startedAt), id: 0 })}>`,
    '    <properties>',
    ...Object.entries(properties).map(([key, value]) => `      <property${attrs({ name: key, value: value === null ? '' : value })}/>`),
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
