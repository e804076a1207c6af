import type { RequestResult, RunSummary } from '../../shared/collections';

/**
 * A JUnit XML report, the format CI systems read: one `testsuite` per collection run, one
 * `testcase` per request, a `failure` per failed assertion (its message and the actual value),
 * `error` for a request that could not be sent, `skipped` for one that did not run. Follows the
 * common (Jenkins/Ant) schema: counts on every suite, times in seconds, timestamps without a zone.
 */
export function junitReport(runs: RunSummary[], name = 'tooldeck'): string {
  const totals = runs.reduce(
    (t, run) => ({
      tests: t.tests + run.requests.total,
      failures: t.failures + run.requests.failed,
      errors: t.errors + run.requests.errored,
      skipped: t.skipped + run.requests.skipped,
      time: t.time + run.durationMs,
    }),
    { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 },
  );
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(`<testsuites${attrs({ name, tests: totals.tests, failures: totals.failures, errors: totals.errors, skipped: totals.skipped, time: seconds(totals.time) })}>`);
  runs.forEach((run, id) => {
    lines.push(
      `  <testsuite${attrs({ name: run.collection, tests: run.requests.total, failures: run.requests.failed, errors: run.requests.errored, skipped: run.requests.skipped, time: seconds(run.durationMs), timestamp: timestamp(run.startedAt), id })}>`,
    );
    lines.push('    <properties>');
    lines.push(`      <property${attrs({ name: 'runId', value: run.runId })}/>`);
    for (const failure of run.connectFailures) lines.push(`      <property${attrs({ name: `connectFailure.${failure.target}`, value: `${failure.error.code}: ${failure.error.message}` })}/>`);
    lines.push('    </properties>');
    for (const result of run.results) lines.push(...testcase(run.collection, result));
    lines.push('  </testsuite>');
  });
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

function testcase(suite: string, result: RequestResult): string[] {
  const open = `    <testcase${attrs({ name: result.name, classname: suite, time: seconds(result.durationMs) })}`;
  const inner: string[] = [];
  if (result.status === 'skipped') inner.push(`      <skipped${attrs({ message: result.reason ?? 'not run' })}/>`);
  if (result.status === 'errored' && result.error) {
    inner.push(`      <error${attrs({ message: result.error.message, type: result.error.code })}>${text(`${result.error.code}: ${result.error.message}`)}</error>`);
  }
  for (const assertion of result.assertions) {
    if (assertion.passed) continue;
    const body = [assertion.description, assertion.message, `actual: ${assertion.actual === undefined ? '(nothing)' : JSON.stringify(assertion.actual, null, 2)}`].join('\n');
    inner.push(`      <failure${attrs({ message: `${assertion.description}: ${assertion.message}`, type: 'AssertionFailed' })}>${text(body)}</failure>`);
  }
  if (result.status !== 'skipped') inner.push(`      <system-out>${text(systemOut(result))}</system-out>`);
  return inner.length ? [`${open}>`, ...inner, '    </testcase>'] : [`${open}/>`];
}

function systemOut(result: RequestResult): string {
  const lines = [`tool: ${result.tool}`];
  if (result.recordId) lines.push(`history record: ${result.recordId}${result.duplicate ? ' (duplicate call, not executed again)' : ''}`);
  if (result.latencyMs !== undefined) lines.push(`latency: ${result.latencyMs} ms`);
  if (result.arguments) lines.push(`arguments: ${JSON.stringify(result.arguments)}`);
  for (const a of result.assertions) lines.push(`${a.passed ? 'PASS' : 'FAIL'} ${a.description} — ${a.message}`);
  for (const [name, value] of Object.entries(result.captured)) lines.push(`captured ${name} = ${JSON.stringify(value)}`);
  return lines.join('\n');
}

export function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${attr(String(v))}"`)
    .join('');
}

/** XML 1.0 cannot carry some characters at all (most C0 controls, lone surrogates): they become U+FFFD. */
function xmlSafe(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}

export function text(value: string): string {
  return xmlSafe(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

export function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

export function timestamp(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19);
}
