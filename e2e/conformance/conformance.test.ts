import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const suiteDir = join(root, 'node_modules/@modelcontextprotocol/conformance');
// The runner's entry itself, run with this process's Node: its `#!/usr/bin/env node` would pick
// whatever `node` is first on PATH, and the suite needs Node 22 (it imports fs.globSync).
const runner = join(suiteDir, 'dist/index.js');
const baseline = join(root, 'e2e/conformance/expected-failures.yaml');

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];

interface Requirements {
  client: string[];
  notScored: Array<{ scenario: string; reason: string }>;
}

/**
 * What the installed suite runs against a client for `--requirements <revision>`, read from its own
 * requirements file rather than copied here: the scored `client` list plus every `not_scored`
 * entry of the client leg (extensions, added after release, pending). Copying the names would let a
 * scenario the suite adds in an update go unchecked; reading them makes a new one fail this test
 * until Tooldeck passes it.
 */
function requirementsOf(revision: Revision): Requirements {
  const raw = parse(readFileSync(join(suiteDir, 'requirements', `${revision}.yaml`), 'utf8')) as {
    client?: string[];
    not_scored?: Array<{ scenario: string; leg: string; reason: string }>;
  };
  return {
    client: raw.client ?? [],
    notScored: (raw.not_scored ?? []).filter((entry) => entry.leg === 'client').map(({ scenario, reason }) => ({ scenario, reason })),
  };
}

interface ScenarioResult {
  passed: number;
  failed: number;
  warnings: number;
  skipped: boolean;
}

function runSuite(revision: Revision) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-conformance-'));
  const run = spawnSync(
    process.execPath,
    [runner, 'client', '--command', `${process.execPath} ${cli} --data-dir ${dataDir} mcp conformance-client`, '--requirements', revision, '--expected-failures', baseline, '-o', mkdtempSync(join(tmpdir(), 'conformance-results-'))],
    { cwd: tmpdir(), encoding: 'utf8', timeout: 600_000, env: { ...process.env, NODE_NO_WARNINGS: '1' } },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  // The runner's suite summary: "✓ name: 3 passed, 0 failed", "✗ name: 2 passed, 0 failed, 1 warnings"
  // (a warning marks the scenario ✗ too), or "- name: skipped".
  const results = new Map<string, ScenarioResult>();
  for (const match of output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/gm)) {
    results.set(match[1]!, { passed: Number(match[2]), failed: Number(match[3]), warnings: Number(match[4] ?? 0), skipped: false });
  }
  for (const match of output.matchAll(/^- (\S+): skipped$/gm)) results.set(match[1]!, { passed: 0, failed: 0, warnings: 0, skipped: true });
  const planned = Number(/^Running requirements \S+ \((\d+) scenarios\)/m.exec(output)?.[1] ?? NaN);
  return { status: run.status, output, results, planned };
}

const verdictOf = (result: ScenarioResult | undefined): string => {
  if (!result) return 'MISSING';
  if (result.skipped) return 'SKIPPED';
  return result.failed === 0 && result.warnings === 0 && result.passed > 0 ? 'pass' : 'FAIL';
};

describe.each(REVISIONS)('MCP conformance suite, requirements %s', (revision) => {
  it('passes every client scenario it runs, scored or not: each with a passed check, no failure, no warning', () => {
    const requirements = requirementsOf(revision);
    const expected = [
      ...requirements.client.map((scenario) => ({ scenario, scoring: 'scored' })),
      ...requirements.notScored.map(({ scenario, reason }) => ({ scenario, scoring: `not scored: ${reason}` })),
    ];
    const { status, output, results, planned } = runSuite(revision);

    // The whole table, scenario → result, so a run can be quoted (issue #17 asks for every scenario with its result).
    const width = Math.max(...expected.map((e) => e.scenario.length), ...[...results.keys()].map((name) => name.length));
    const row = (scenario: string, scoring: string) => {
      const result = results.get(scenario);
      const counts = result && !result.skipped ? ` ${result.passed} passed, ${result.failed} failed, ${result.warnings} warnings` : '';
      return `  ${verdictOf(result).padEnd(7)} ${scenario.padEnd(width)}  (${scoring})${counts}`;
    };
    const unexpected = [...results.keys()].filter((name) => !expected.some((e) => e.scenario === name));
    const table = [...expected.map((e) => row(e.scenario, e.scoring)), ...unexpected.map((name) => row(name, 'not in the requirements file'))].join('\n');
    const passing = expected.filter((e) => verdictOf(results.get(e.scenario)) === 'pass').length;
    console.log(`conformance ${revision}: ${passing}/${expected.length} client scenarios pass (${requirements.client.length} scored, ${requirements.notScored.length} not scored)\n${table}`);

    const tail = output.slice(-3000);
    // The suite ran exactly the scenarios its requirements file lists for the client: none dropped
    // because this build lacks it, none extra that this test would not know to check.
    expect(planned, `scenario count the runner announced\n${tail}`).toBe(expected.length);
    expect(unexpected, `scenarios the runner reported beyond its requirements file\n${tail}`).toEqual([]);
    for (const { scenario, scoring } of expected) {
      const result = results.get(scenario);
      // Present and not skipped: a scenario that never ran proves nothing.
      expect(result, `${scenario} (${scoring}) is missing from the runner's summary\n${tail}`).toBeDefined();
      expect(result!.skipped, `${scenario} (${scoring}) was skipped`).toBe(false);
      // At least one passed check: an empty scenario (no checks at all) is not a pass.
      expect(result!.passed, `${scenario} (${scoring}) has no passed check\n${tail}`).toBeGreaterThan(0);
      expect(result!.failed, `${scenario} (${scoring}) has failed checks\n${tail}`).toBe(0);
      // Warnings count as failures: the runner's own exit code does so for scored scenarios, and the
      // not-scored ones are held to the same bar.
      expect(result!.warnings, `${scenario} (${scoring}) has warnings\n${tail}`).toBe(0);
    }
    // The baseline of expected failures stays empty, so the runner's exit code (scored scenarios
    // against that baseline) is an independent second opinion on the same run.
    expect((parse(readFileSync(baseline, 'utf8')) as { client?: unknown[] }).client).toEqual([]);
    expect(status, tail).toBe(0);
  }, 600_000);
});
