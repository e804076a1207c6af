import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const runner = join(root, 'node_modules/.bin/conformance');
const baseline = join(root, 'e2e/conformance/expected-failures.yaml');

/** The scenarios each revision requires of a client, besides auth/* (see expected-failures.yaml). */
const REQUIRED = {
  '2025-11-25': ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'],
  '2026-07-28': ['tools_call', 'request-metadata', 'sep-2322-client-request-state', 'http-standard-headers', 'http-custom-headers', 'http-invalid-tool-headers', 'json-schema-ref-no-deref'],
} as const;

function runSuite(revision: keyof typeof REQUIRED) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-conformance-'));
  const run = spawnSync(
    runner,
    ['client', '--command', `${process.execPath} ${cli} --data-dir ${dataDir} mcp conformance-client`, '--requirements', revision, '--expected-failures', baseline, '-o', mkdtempSync(join(tmpdir(), 'conformance-results-'))],
    { cwd: tmpdir(), encoding: 'utf8', timeout: 600_000, env: { ...process.env, NODE_NO_WARNINGS: '1' } },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  const results = new Map<string, { passed: number; failed: number }>();
  for (const match of output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)) {
    results.set(match[1]!, { passed: Number(match[2]), failed: Number(match[3]) });
  }
  return { status: run.status, output, results };
}

describe.each(Object.keys(REQUIRED) as Array<keyof typeof REQUIRED>)('MCP conformance suite, requirements %s', (revision) => {
  it('passes every required client scenario except the auth/* ones listed as expected failures', () => {
    const { status, output, results } = runSuite(revision);
    const table = [...results].map(([name, r]) => `${r.failed === 0 ? 'pass' : 'FAIL'}  ${name} (${r.passed} passed, ${r.failed} failed)`).join('\n');
    console.log(`conformance ${revision}:\n${table}`);
    for (const scenario of REQUIRED[revision]) {
      expect(results.get(scenario), `${scenario}\n${output.slice(-3000)}`).toMatchObject({ failed: 0 });
      expect(results.get(scenario)!.passed).toBeGreaterThan(0);
    }
    // Exit 0: everything required passed, or failed only where the baseline expects it.
    expect(status, output.slice(-3000)).toBe(0);
  }, 600_000);
});
