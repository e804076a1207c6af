import type { EvalCaseResult, EvalReport } from '../../shared/evals';

const percent = (rate: number) => `${Math.round(rate * 100)}%`;
const passedRuns = (result: EvalCaseResult) => result.runs.filter((run) => run.passed).length;

/** The report for a person: one line per case × model, why each failing run failed, then the totals. */
export function prettyReport(report: EvalReport): string {
  const lines: string[] = [];
  const runs = report.cases.reduce((total, result) => total + result.runs.length, 0);
  lines.push(`${report.suite}${report.agent ? ` (agent ${report.agent})` : ''}: ${report.cases.length} case × model result(s), ${runs} run(s), tools ${report.executed ? 'executed through the pipeline' : 'not executed (placeholder results)'}`);
  const nameWidth = Math.min(40, Math.max(...report.cases.map((result) => result.name.length), 4));
  const modelWidth = Math.min(40, Math.max(...report.cases.map((result) => result.model.length), 5));
  for (const result of report.cases) {
    lines.push(`${result.passed ? 'PASS' : 'FAIL'}  ${result.name.padEnd(nameWidth)}  ${result.model.padEnd(modelWidth)}  ${passedRuns(result)}/${result.runs.length}  ${percent(result.pass_rate).padStart(4)}`);
    for (const run of result.runs) {
      if (run.passed) continue;
      for (const failure of run.failures) lines.push(`      run ${run.iteration}: ${oneLine(failure, 400)}`);
    }
  }
  const below = report.cases.filter((result) => !result.passed).length;
  lines.push(`accuracy ${percent(report.accuracy)} (${report.cases.reduce((total, result) => total + passedRuns(result), 0)}/${runs} runs), threshold ${percent(report.threshold)}: ${below === 0 ? 'every case passed' : `${below} case × model result(s) below the threshold`}`);
  return `${lines.join('\n')}\n`;
}

export function jsonReport(report: EvalReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * Text as XML 1.0 character data or an attribute value: markup characters as entities, and every
 * character XML 1.0 cannot carry (C0 controls but tab, line feed and carriage return; lone
 * surrogates; U+FFFE, U+FFFF) — and the C1 controls, which a CI log would act on — spelled `\uXXXX`.
 */
export function xmlText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '&') out += '&amp;';
    else if (char === '<') out += '&lt;';
    else if (char === '>') out += '&gt;';
    else if (char === '"') out += '&quot;';
    else if (char === "'") out += '&apos;';
    else if (char === '\r') out += '&#13;';
    else if ((code < 0x20 && char !== '\t' && char !== '\n') || (code >= 0x7f && code <= 0x9f) || (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return out;
}

/** Text as an attribute value: also tab and line feed as references, which a parser would otherwise read as spaces. */
export function xmlAttribute(text: string): string {
  return xmlText(text).replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}

/** JUnit XML (as CI systems read it): a testsuite per suite, a testcase per case × model, a failure per case below the threshold. */
export function junitReport(report: EvalReport): string {
  const failures = report.cases.filter((result) => !result.passed).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="tooldeck eval" tests="${report.cases.length}" failures="${failures}" time="${seconds(report.duration_ms)}">`,
    `  <testsuite name="${xmlAttribute(report.suite)}" tests="${report.cases.length}" failures="${failures}" errors="0" time="${seconds(report.duration_ms)}" timestamp="${xmlAttribute(report.started_at)}">`,
  ];
  for (const result of report.cases) {
    const time = seconds(result.runs.reduce((total, run) => total + run.latency_ms, 0));
    lines.push(`    <testcase classname="${xmlAttribute(`${report.suite}.${result.model}`)}" name="${xmlAttribute(`${result.name} [${result.model}]`)}" time="${time}">`);
    if (!result.passed) {
      const detail = result.runs.filter((run) => !run.passed).flatMap((run) => [...run.failures.map((failure) => `run ${run.iteration}: ${failure}`), ...(run.answer !== undefined ? [`run ${run.iteration} answered: ${run.answer}`] : [])]);
      lines.push(`      <failure message="${xmlAttribute(`pass rate ${percent(result.pass_rate)} (${passedRuns(result)}/${result.runs.length}) is below the threshold ${percent(report.threshold)}`)}" type="EvalBelowThreshold">${xmlText(detail.join('\n'))}</failure>`);
    }
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

export type EvalReporter = 'pretty' | 'json' | 'junit';

export function renderReport(report: EvalReport, reporter: EvalReporter): string {
  return reporter === 'json' ? jsonReport(report) : reporter === 'junit' ? junitReport(report) : prettyReport(report);
}

/** Each case × model's pass rate against an earlier report: better, worse, the same, new, or gone. */
export function baselineChanges(report: EvalReport, baseline: EvalReport): string {
  const key = (result: EvalCaseResult) => `${result.name}\u0000${result.model}`;
  const before = new Map(baseline.cases.map((result) => [key(result), result]));
  const lines = [`against the baseline of ${baseline.started_at} (accuracy ${percent(baseline.accuracy)} → ${percent(report.accuracy)}):`];
  for (const result of report.cases) {
    const earlier = before.get(key(result));
    before.delete(key(result));
    const label = `${result.name} [${result.model}]`;
    if (!earlier) lines.push(`  new        ${label}: ${percent(result.pass_rate)}`);
    else {
      const delta = result.pass_rate - earlier.pass_rate;
      const word = delta > 0 ? 'better' : delta < 0 ? 'worse' : 'same';
      lines.push(`  ${word.padEnd(10)} ${label}: ${percent(earlier.pass_rate)} → ${percent(result.pass_rate)}${delta === 0 ? '' : ` (${delta > 0 ? '+' : '−'}${percent(Math.abs(delta))})`}`);
    }
  }
  for (const gone of before.values()) lines.push(`  gone       ${gone.name} [${gone.model}]: was ${percent(gone.pass_rate)}`);
  return `${lines.join('\n')}\n`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
