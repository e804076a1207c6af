import { describe, expect, it } from 'vitest';
import { loadSqlite } from './loadSqlite';
import { LATEST_SCHEMA_VERSION, migrate, migrations, SchemaTooNewError, schemaVersion, type Migration } from './migrations';

function memoryDb() {
  const { DatabaseSync } = loadSqlite();
  return new DatabaseSync(':memory:');
}

const tables = (db: ReturnType<typeof memoryDb>) =>
  (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

describe('migrate', () => {
  it('brings an empty database to the latest version and is a no-op the second time', () => {
    const db = memoryDb();
    expect(migrate(db)).toEqual({ from: 0, to: LATEST_SCHEMA_VERSION });
    expect(tables(db)).toEqual(['invocations', 'latency_rollup', 'runs']);
    const indexes = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'invocations' AND sql IS NOT NULL").all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(indexes.sort()).toEqual(['invocations_id', 'invocations_replica', 'invocations_run_id', 'invocations_source', 'invocations_started_at', 'invocations_status', 'invocations_task_id', 'invocations_tool', 'invocations_trace_id']);
    expect(migrate(db)).toEqual({ from: LATEST_SCHEMA_VERSION, to: LATEST_SCHEMA_VERSION });
  });

  it('adds the runs table to a version-1 database and keeps its calls', () => {
    const db = memoryDb();
    migrate(db, migrations.slice(0, 1));
    db.exec("INSERT INTO invocations (id, started_at, source_kind, source_name, tool, arguments_json, status, latency_ms, request_bytes, response_bytes, result_preview, truncated) VALUES ('a', 1, 'mcp', 's', 't', '{}', 'ok', 1, 2, 3, '', 0)");
    expect(migrate(db)).toEqual({ from: 1, to: LATEST_SCHEMA_VERSION });
    expect(tables(db)).toContain('runs');
    expect(db.prepare('SELECT count(*) AS n FROM invocations').get()).toEqual({ n: 1 });
  });

  it('gives a version-5 database (the schema before replicas) the replica column and keeps its calls, whose replica stays unknown', () => {
    const db = memoryDb();
    migrate(db, migrations.filter((m) => m.version <= 5));
    db.exec("INSERT INTO invocations (id, started_at, source_kind, source_name, tool, arguments_json, status, latency_ms, request_bytes, response_bytes, result_preview, truncated, via) VALUES ('old', 1, 'mcp', 's', 't', '{}', 'ok', 1, 2, 3, '', 0, 'cli')");
    expect(migrate(db)).toEqual({ from: 5, to: LATEST_SCHEMA_VERSION });
    expect(db.prepare('SELECT id, via, replica FROM invocations').all()).toEqual([{ id: 'old', via: 'cli', replica: null }]);
  });

  it('gives a version-4 database the caller columns and keeps its calls, whose way in stays unknown', () => {
    const db = memoryDb();
    migrate(db, migrations.filter((m) => m.version <= 4));
    db.exec("INSERT INTO invocations (id, started_at, source_kind, source_name, tool, arguments_json, status, latency_ms, request_bytes, response_bytes, result_preview, truncated) VALUES ('old', 1, 'mcp', 's', 't', '{}', 'ok', 1, 2, 3, '', 0)");
    expect(migrate(db)).toEqual({ from: 4, to: LATEST_SCHEMA_VERSION });
    const columns = (db.prepare('PRAGMA table_info(invocations)').all() as { name: string }[]).map((c) => c.name);
    expect(columns).toEqual(expect.arrayContaining(['via', 'agent']));
    expect(db.prepare('SELECT id, via, agent FROM invocations').all()).toEqual([{ id: 'old', via: null, agent: null }]);
    db.exec("INSERT INTO invocations (id, started_at, source_kind, source_name, tool, arguments_json, status, latency_ms, request_bytes, response_bytes, result_preview, truncated, via, agent) VALUES ('new', 2, 'mcp', 's', 't', '{}', 'ok', 1, 2, 3, '', 0, 'gateway', 'planner-bot')");
    expect(db.prepare("SELECT id FROM invocations WHERE agent = 'planner-bot' AND via = 'gateway'").all()).toEqual([{ id: 'new' }]);
  });

  it('rolls a failing migration back entirely and keeps the last good version', () => {
    const db = memoryDb();
    const broken: Migration = {
      version: LATEST_SCHEMA_VERSION + 1,
      description: 'fails halfway',
      up(d) {
        d.exec('CREATE TABLE half_done (x)');
        d.exec('ALTER TABLE no_such_table ADD COLUMN y');
      },
    };
    expect(() => migrate(db, [...migrations, broken])).toThrow(/no such table/);
    expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    expect(tables(db)).not.toContain('half_done');
  });

  it('refuses a database from a newer schema', () => {
    const db = memoryDb();
    db.exec(`PRAGMA user_version = ${LATEST_SCHEMA_VERSION + 5}`);
    expect(() => migrate(db)).toThrow(SchemaTooNewError);
  });
});
