import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvocationRecord } from '../../../shared/invocation';
import { freePort } from '../../../e2e/support/postgres.mjs';
import { DATABASE_FILE_NAME } from '../../../main/store/InvocationStore';
import { openInvocationStore } from '../../../main/store/openInvocationStore';
import { PostgresHistory } from '../../../main/store/PostgresHistory';
import { startPostgresRig, type PostgresRig } from '../../../main/store/testing/postgresHistoryRig';
import { invocation } from '../../../main/store/testing/testRecords';
import { runCli } from '../program';

/**
 * The fleet's record from the command line: `history`, `history export` and `metrics` read one
 * PostgreSQL that two replicas wrote (--history-url or TOOLDECK_HISTORY_URL), filter by replica,
 * and a history URL that cannot be used is one sentence, exit 2, with no password anywhere.
 */
const PASSWORD = 'fleet-s3cret:/@pw';
let rig: PostgresRig;
let url: string;
let notPostgres: Server;
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-history-fleet-'));
const startedAt = Date.now() - 60_000;

async function tooldeck(argv: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--data-dir', dataDir, ...argv], { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) }, env);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  rig = await startPostgresRig({ password: PASSWORD });
  url = await rig.database();
  // Two replicas of a gateway, each writing its agents' calls.
  for (const [replica, offset] of [
    ['gateway-5c7d-a', 0],
    ['gateway-5c7d-b', 1],
  ] as const) {
    const store = await PostgresHistory.open({ url, retention: false });
    for (let i = 0; i < 3; i++) store.record(invocation({ id: `${replica}-${i}`, startedAt: startedAt + i * 10 + offset, tool: i === 2 ? 'get-sum' : 'echo', via: 'gateway', agent: 'planner-bot', replica }));
    await store.close();
  }
  notPostgres = createServer((_req, res) => res.end('not a database')).listen(0, '127.0.0.1');
  await new Promise((resolve) => notPostgres.once('listening', resolve));
}, 120_000);

afterAll(async () => {
  notPostgres?.close();
  await rig?.stop();
}, 60_000);

const ids = (stdout: string) => (JSON.parse(stdout) as InvocationRecord[]).map((r) => r.id);

describe('tooldeck history against the fleet’s PostgreSQL', { timeout: 60_000 }, () => {
  it('lists both replicas’ calls, filters by replica, and prints each row’s replica', async () => {
    const all = await tooldeck(['history', '--history-url', url, '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(ids(all.stdout).sort()).toEqual(['gateway-5c7d-a-0', 'gateway-5c7d-a-1', 'gateway-5c7d-a-2', 'gateway-5c7d-b-0', 'gateway-5c7d-b-1', 'gateway-5c7d-b-2']);
    const one = await tooldeck(['history', '--history-url', url, '--replica', 'gateway-5c7d-b', '--json']);
    expect(ids(one.stdout)).toEqual(['gateway-5c7d-b-2', 'gateway-5c7d-b-1', 'gateway-5c7d-b-0']);
    const rows = (await tooldeck(['history', '--history-url', url, '--tool', 'get-sum'])).stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/get-sum {2}via gateway by planner-bot {2}on gateway-5c7d-b$/);
    expect(rows[1]).toMatch(/on gateway-5c7d-a$/);
  });

  it('info names the shared history with its password masked', async () => {
    const result = await tooldeck(['info'], { TOOLDECK_HISTORY_URL: url });
    expect(result.stdout).toMatch(/^History {4}PostgreSQL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/history_\d+_\d+\?sslmode=disable$/m);
    expect(result.stdout).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('reads the URL from TOOLDECK_HISTORY_URL as well', async () => {
    const result = await tooldeck(['history', '--replica', 'gateway-5c7d-a', '--json'], { TOOLDECK_HISTORY_URL: url });
    expect(result.code, result.stderr).toBe(0);
    expect(ids(result.stdout)).toHaveLength(3);
  });

  it('streams any filter as JSON lines or CSV, and splits metrics by replica', async () => {
    const jsonl = await tooldeck(['history', 'export', '--history-url', url, '--replica', 'gateway-5c7d-a', '--tool', 'echo', '--format', 'jsonl']);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    expect(jsonl.stdout.trim().split('\n').map((line) => (JSON.parse(line) as InvocationRecord).id)).toEqual(['gateway-5c7d-a-1', 'gateway-5c7d-a-0']);
    const csv = await tooldeck(['history', 'export', '--history-url', url, '--format', 'csv']);
    const lines = csv.stdout.split('\r\n');
    expect(lines[0]).toMatch(/^id,startedAt,.*,via,agent,replica$/);
    expect(lines.filter((line) => line.endsWith(',gateway,planner-bot,gateway-5c7d-b'))).toHaveLength(3);
    const metrics = await tooldeck(['metrics', '--history-url', url, '--replica', 'gateway-5c7d-a', '--since', '1h', '--json']);
    expect((JSON.parse(metrics.stdout) as { group: { key: string }; count: number }[]).map((g) => [g.group.key, g.count])).toEqual([
      ['mcp:everything/echo', 2],
      ['mcp:everything/get-sum', 1],
    ]);
    const byReplica = await tooldeck(['metrics', '--history-url', url, '--by', 'replica', '--since', '1h']);
    expect(byReplica.stdout).toMatch(/^gateway-5c7d-a {30} +3 /m);
    expect(byReplica.stdout).toMatch(/^gateway-5c7d-b {30} +3 /m);
  });

  it('a history URL that cannot be used is one sentence and exit 2, with no password printed', async () => {
    const wrongPassword = new URL(url);
    wrongPassword.password = 'not-the-password';
    const cases: [string, RegExp][] = [
      [wrongPassword.toString(), /^The history database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/history_\d+_\d+\?sslmode=disable cannot be used: it refused the login \(password authentication failed for user "postgres"\)\.\n$/],
      [`postgres://postgres:${encodeURIComponent(PASSWORD)}@127.0.0.1:${await freePort()}/postgres`, /^The history database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres cannot be used: it cannot be reached \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)\.\n$/],
      [`postgres://postgres:${encodeURIComponent(PASSWORD)}@127.0.0.1:${(notPostgres.address() as { port: number }).port}/postgres`, /^The history database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres cannot be used: it did not answer as PostgreSQL \(.+\)\.\n$/],
      [`mysql://root:${encodeURIComponent(PASSWORD)}@127.0.0.1/db`, /^The history URL must be a PostgreSQL URL \(postgres:\/\/user:password@host:5432\/database\); --history-url is not one\.\n$/],
    ];
    for (const [hostile, sentence] of cases) {
      const result = await tooldeck(['history', '--history-url', hostile]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(sentence);
      for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), 'not-the-password']) expect(result.stderr).not.toContain(secret);
    }
  });
});

describe('tooldeck kube install --history-postgres-secret', () => {
  it('goes with --gateway and takes a Secret’s name, or says so with exit 2 before any cluster is contacted', async () => {
    const alone = await tooldeck(['kube', 'install', '--kubeconfig', join(dataDir, 'no-kubeconfig'), '--history-postgres-secret', 'tooldeck-history']);
    expect(alone).toMatchObject({ code: 2, stderr: '--history-postgres-secret goes with --gateway\n' });
    const badName = await tooldeck(['kube', 'install', '--gateway', '--history-postgres-secret', 'Not A Name']);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain("Give a Secret's name: lowercase letters, digits, dashes and dots (e.g. tooldeck-history).");
  });
});

describe('tooldeck history export on the embedded SQLite history', () => {
  it('streams every matching call (no row limit), newest first', async () => {
    const sqliteDir = mkdtempSync(join(tmpdir(), 'tooldeck-history-export-'));
    const { store } = openInvocationStore(join(sqliteDir, DATABASE_FILE_NAME), { retention: false });
    for (let i = 0; i < 1_500; i++) store.record(invocation({ id: `call-${i}`, startedAt: startedAt + i, tool: i % 2 ? 'echo' : 'get-sum' }));
    await store.close();
    let stdout = '';
    const code = await runCli(['--data-dir', sqliteDir, 'history', 'export', '--tool', 'echo'], { stdout: (t) => void (stdout += t), stderr: () => undefined }, {});
    expect(code).toBe(0);
    const exported = stdout.trim().split('\n').map((line) => (JSON.parse(line) as InvocationRecord).id);
    expect(exported).toHaveLength(750);
    expect(exported[0]).toBe('call-1499');
  });
});
