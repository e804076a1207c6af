import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InvocationRecord } from '../../shared/invocation';
import { LATEST_PG_SCHEMA_VERSION, pgMigrations, type PgMigration } from './pgMigrations';
import { PostgresHistory, SPOOL_FILE_NAME } from './PostgresHistory';
import { startPostgresRig, type PostgresRig } from './testing/postgresHistoryRig';
import { invocation } from './testing/testRecords';

let rig: PostgresRig;
const open: PostgresHistory[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  rig = await startPostgresRig();
}, 120_000);
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await rig?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function history(url: string, options: Partial<Parameters<typeof PostgresHistory.open>[0]> = {}) {
  const store = await PostgresHistory.open({ url, retention: false, ...options });
  open.push(store);
  return store;
}

async function sql<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-pg-spool-'));
  dirs.push(dir);
  return dir;
};

describe('PostgreSQL history migrations', { timeout: 60_000 }, () => {
  it('bring an empty database to the latest version, and a second start finds nothing to do', async () => {
    const url = await rig.database();
    await (await history(url)).close();
    await (await history(url)).close();
    expect(await sql(url, 'SELECT version FROM tooldeck_history_migrations ORDER BY version')).toEqual(pgMigrations.map((m) => ({ version: m.version })));
  });

  it('are safe with several replicas starting at once (one migrates under the advisory lock, the others wait)', async () => {
    const url = await rig.database();
    const replicas = await Promise.all(Array.from({ length: 6 }, () => history(url)));
    expect(replicas).toHaveLength(6);
    expect(await sql(url, 'SELECT count(*)::int AS n FROM tooldeck_history_migrations')).toEqual([{ n: pgMigrations.length }]);
  });

  it('move a database of the previous schema forward and keep its rows', async () => {
    const url = await rig.database();
    const older = await history(url, { migrations: pgMigrations });
    older.record(invocation({ id: 'before', replica: 'gw-a' }));
    await older.close();
    const next: PgMigration = { version: LATEST_PG_SCHEMA_VERSION + 1, description: 'test: a column added later', sql: 'ALTER TABLE tooldeck_invocations ADD COLUMN note text' };
    await history(url, { migrations: [...pgMigrations, next] });
    expect(await sql(url, 'SELECT id, replica, note FROM tooldeck_invocations')).toEqual([{ id: 'before', replica: 'gw-a', note: null }]);
    expect(await sql(url, 'SELECT max(version) AS v FROM tooldeck_history_migrations')).toEqual([{ v: LATEST_PG_SCHEMA_VERSION + 1 }]);
  });

  it('refuse a database a newer Tooldeck migrated, in one sentence', async () => {
    const url = await rig.database();
    await (await history(url)).close();
    await sql(url, `INSERT INTO tooldeck_history_migrations (version, description) VALUES (${LATEST_PG_SCHEMA_VERSION + 5}, 'from the future')`);
    await expect(PostgresHistory.open({ url, retention: false })).rejects.toThrow(
      `cannot be used: the history database has schema version ${LATEST_PG_SCHEMA_VERSION + 5}, newer than this Tooldeck understands (${LATEST_PG_SCHEMA_VERSION}).`,
    );
  });
});

describe('the fleet in one PostgreSQL', { timeout: 60_000 }, () => {
  it("hands a listening console every other replica's calls as they land, and never its own", async () => {
    const url = await rig.database();
    const console = await history(url, { live: true });
    const gatewayA = await history(url);
    const gatewayB = await history(url);
    const heard: InvocationRecord[] = [];
    console.onOtherReplicas((rec) => heard.push(rec));
    gatewayA.record(invocation({ id: 'a-1', replica: 'gw-a', agent: 'planner-bot', via: 'gateway', traceId: 'ab'.repeat(16) }));
    for (let i = 0; i < 900; i++) gatewayB.record(invocation({ id: `b-${i}`, replica: 'gw-b' }));
    console.record(invocation({ id: 'own', replica: 'console' }));
    await Promise.all([gatewayA.flush(), gatewayB.flush(), console.flush()]);
    await expect.poll(() => heard.length, { timeout: 10_000 }).toBe(901);
    expect(heard.find((rec) => rec.id === 'a-1')).toEqual(invocation({ id: 'a-1', replica: 'gw-a', agent: 'planner-bot', via: 'gateway', traceId: 'ab'.repeat(16), startedAt: heard.find((rec) => rec.id === 'a-1')!.startedAt }));
    expect(heard.some((rec) => rec.id === 'own')).toBe(false);
    // Every writer's rollup chunks count: the 24 h figures see all three processes' calls.
    const [row] = await console.breakdown({ since: Date.now() - 86_400_000, until: Date.now() + 60_000, by: 'source' });
    expect(row).toMatchObject({ count: 902 });
  });

  it('stores a text with NUL characters (which PostgreSQL text cannot hold) instead of failing the batch', async () => {
    const url = await rig.database();
    const store = await history(url);
    store.record(invocation({ id: 'nul', resultPreview: 'a\u0000b' }));
    store.record(invocation({ id: 'fine' }));
    await store.flush();
    expect((await store.get('nul'))?.resultPreview).toBe('a\uFFFDb');
    expect(await store.count()).toBe(2);
  });
});

describe('PostgreSQL history durability', { timeout: 90_000 }, () => {
  it('a database that is down never blocks record(): rows wait (on disk past one flush window) and land once it returns', async () => {
    const url = await rig.database();
    const spoolDir = tempDir();
    const store = await history(url, { spoolDir, flushIntervalMs: 20, connectTimeoutMs: 1_000 });
    store.record(invocation({ id: 'before-outage' }));
    await store.flush();
    await rig.pause();
    try {
      for (let i = 0; i < 3_000; i++) store.record(invocation({ id: `during-${i}` }));
      await expect.poll(() => store.health().ok, { timeout: 20_000 }).toBe(false);
      await expect.poll(() => existsSync(join(spoolDir, SPOOL_FILE_NAME)) || existsSync(join(spoolDir, `${SPOOL_FILE_NAME}.replaying`)), { timeout: 20_000 }).toBe(true);
      expect(store.health().lastError?.message).toMatch(/^Could not save \d+ invocation records? to postgres:\/\/postgres@127\.0\.0\.1:\d+\/history_\d+_\d+\?sslmode=disable: /);
    } finally {
      await rig.resume();
    }
    for (let i = 0; i < 100; i++) store.record(invocation({ id: `after-${i}` }));
    await expect.poll(async () => {
      await store.flush();
      return store.health().ok ? await store.count() : -1;
    }, { timeout: 30_000, interval: 200 }).toBe(3_101);
    expect(store.spooledBytes()).toBe(0);
  });

  it('closing while the database is down keeps every queued row in the spool file, and the next start writes them', async () => {
    const url = await rig.database();
    const spoolDir = tempDir();
    const first = await PostgresHistory.open({ url, retention: false, spoolDir, closeTimeoutMs: 500, connectTimeoutMs: 500 });
    await rig.pause();
    try {
      for (let i = 0; i < 250; i++) first.record(invocation({ id: `queued-${i}` }));
      await first.close();
      expect(existsSync(join(spoolDir, SPOOL_FILE_NAME))).toBe(true);
    } finally {
      await rig.resume();
    }
    const second = await history(url, { spoolDir });
    await second.flush();
    expect(await second.count()).toBe(250);
    expect(existsSync(join(spoolDir, SPOOL_FILE_NAME))).toBe(false);
  });
});
