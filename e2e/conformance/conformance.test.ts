import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const runner = join(root, 'node_modules/.bin/conformance');
const baseline = join(root, 'e2e/conformance/expected-failures.yaml');

/** Scenarios each revision requires of a client, checked by name (auth/* included: the runner's exit code covers them). */
const REQUIRED = {
  '2025-11-25': ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'],
  '2026-07-28': ['tools_call', 'request-metadata', 'sep-2322-client-request-state', 'http-standard-headers', 'http-custom-headers', 'http-invalid-tool-headers', 'json-schema-ref-no-deref'],
} as const;

/**
 * Scenarios the runner runs but does not score for the revision (extensions, added after release):
 * real features all the same (SEP-1046 client credentials, SEP-990, RFC 9449 DPoP, SEP-1933, SEP-1613/2106), so they must pass too.
 */
const UNSCORED = ['auth/client-credentials-jwt', 'auth/client-credentials-basic', 'auth/enterprise-managed-authorization', 'auth/dpop', 'auth/dpop-nonce', 'auth/wif-jwt-bearer', 'json-schema-2020-12-preservation'];

const REQUIRED_AUTH: Record<keyof typeof REQUIRED, string[]> = {
  '2025-11-25': ['auth/metadata-default', 'auth/metadata-var1', 'auth/metadata-var2', 'auth/metadata-var3', 'auth/basic-cimd', 'auth/scope-from-www-authenticate', 'auth/scope-from-scopes-supported', 'auth/scope-omitted-when-undefined', 'auth/scope-step-up', 'auth/scope-retry-limit', 'auth/token-endpoint-auth-basic', 'auth/token-endpoint-auth-post', 'auth/token-endpoint-auth-none', 'auth/pre-registration'],
  '2026-07-28': ['auth/metadata-default', 'auth/resource-mismatch', 'auth/iss-wrong-issuer', 'auth/metadata-issuer-mismatch', 'auth/scope-step-up', 'auth/offline-access-scope', 'auth/authorization-server-migration'],
};

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
  it('passes every client scenario it runs, scored or not, authorization included', () => {
    const { status, output, results } = runSuite(revision);
    const table = [...results].map(([name, r]) => `${r.failed === 0 ? 'pass' : 'FAIL'}  ${name} (${r.passed} passed, ${r.failed} failed)`).join('\n');
    console.log(`conformance ${revision}:\n${table}`);
    for (const scenario of REQUIRED[revision]) {
      expect(results.get(scenario), `${scenario}\n${output.slice(-3000)}`).toMatchObject({ failed: 0 });
      expect(results.get(scenario)!.passed).toBeGreaterThan(0);
    }
    for (const scenario of UNSCORED) {
      expect(results.get(scenario), `${scenario} (not scored, run all the same)\n${output.slice(-3000)}`).toMatchObject({ failed: 0 });
      expect(results.get(scenario)!.passed).toBeGreaterThan(0);
    }
    // Nothing fails anywhere: the baseline of expected failures is empty and stays so.
    for (const [name, result] of results) expect(result.failed, name).toBe(0);
    // Exit 0: every required scenario passed (the baseline of expected failures is empty).
    for (const [name, result] of results) if (name.startsWith('auth/') && REQUIRED_AUTH[revision].includes(name)) expect(result.failed, name).toBe(0);
    expect(status, output.slice(-3000)).toBe(0);
  }, 600_000);
});
