import type { DatabaseSync } from 'node:sqlite';

export interface Migration {
  /** Written to `PRAGMA user_version` once the migration commits. */
  version: number;
  description: string;
  up(db: DatabaseSync): void;
}

/** Append only: a shipped migration never changes, a new version fixes what an old one did. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'invocation history and per-minute latency rollup',
    up(db) {
      db.exec(`
        CREATE TABLE invocations (
          seq INTEGER PRIMARY KEY,
          id TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          source_kind TEXT NOT NULL,
          source_name TEXT NOT NULL,
          tool TEXT NOT NULL,
          arguments_json TEXT NOT NULL,
          status TEXT NOT NULL,
          error_code TEXT,
          error_message TEXT,
          latency_ms REAL NOT NULL,
          request_bytes INTEGER NOT NULL,
          response_bytes INTEGER NOT NULL,
          result_preview TEXT NOT NULL,
          truncated INTEGER NOT NULL,
          replay_of TEXT,
          run_id TEXT,
          is_error INTEGER,
          attempts INTEGER
        );
        CREATE UNIQUE INDEX invocations_id ON invocations (id);
        CREATE INDEX invocations_started_at ON invocations (started_at);
        CREATE INDEX invocations_tool ON invocations (tool, started_at);
        CREATE INDEX invocations_source ON invocations (source_kind, source_name, started_at);
        CREATE INDEX invocations_status ON invocations (status, started_at);
        CREATE INDEX invocations_run_id ON invocations (run_id, started_at) WHERE run_id IS NOT NULL;

        -- Exact percentiles need every latency; reading them from invocations costs a row lookup
        -- each. Packing one minute's latencies into a blob, segmented by group and status, lets a
        -- 24-hour query read ~1,440 rows instead of up to millions. See LatencyRollup.
        CREATE TABLE latency_rollup (
          minute INTEGER NOT NULL,
          chunk INTEGER NOT NULL,
          entries INTEGER NOT NULL,
          groups TEXT NOT NULL,
          segments BLOB NOT NULL,
          latencies BLOB NOT NULL,
          PRIMARY KEY (minute, chunk)
        );
      `);
    },
  },
  {
    version: 2,
    description: 'the MCP task a task-augmented call ran as, and its status',
    up(db) {
      db.exec(`
        ALTER TABLE invocations ADD COLUMN task_id TEXT;
        ALTER TABLE invocations ADD COLUMN task_status TEXT;
        CREATE INDEX invocations_task_id ON invocations (task_id) WHERE task_id IS NOT NULL;
      `);
    },
  },
  {
    version: 3,
    description: 'the W3C trace id of each call',
    up(db) {
      db.exec(`
        ALTER TABLE invocations ADD COLUMN trace_id TEXT;
        CREATE INDEX invocations_trace_id ON invocations (trace_id) WHERE trace_id IS NOT NULL;
      `);
    },
  },
  {
    version: 4,
    description: 'runs of collections (passes and load runs) with their summaries',
    up(db) {
      db.exec(`
        CREATE TABLE runs (
          run_id TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          collection TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          item_json TEXT NOT NULL,
          summary_json TEXT NOT NULL
        );
        CREATE INDEX runs_started_at ON runs (started_at);
      `);
    },
  },
  {
    version: 5,
    description: 'who made each call (the agent, null for the operator) and through which way in',
    up(db) {
      // Calls recorded before this version keep a null `via`: which way they came in was not kept.
      db.exec(`
        ALTER TABLE invocations ADD COLUMN via TEXT;
        ALTER TABLE invocations ADD COLUMN agent TEXT;
      `);
    },
  },
  {
    version: 6,
    description: 'the replica (Tooldeck process) that recorded each call',
    up(db) {
      // Calls recorded before this version keep a null replica: which process wrote them was not kept.
      db.exec(`
        ALTER TABLE invocations ADD COLUMN replica TEXT;
        CREATE INDEX invocations_replica ON invocations (replica, started_at) WHERE replica IS NOT NULL;
      `);
    },
  },
];

export const LATEST_SCHEMA_VERSION = Math.max(...migrations.map((m) => m.version));

/** The file was written by a newer Tooldeck; migrating down is not possible and writing could damage it. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`the history database has schema version ${found}, newer than this Tooldeck understands (${supported})`);
    this.name = 'SchemaTooNewError';
  }
}

export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  return row.user_version;
}

/** Runs each pending migration in its own transaction, so a failure leaves the last good version. */
export function migrate(db: DatabaseSync, list: readonly Migration[] = migrations): { from: number; to: number } {
  const from = schemaVersion(db);
  const latest = Math.max(0, ...list.map((m) => m.version));
  if (from > latest) throw new SchemaTooNewError(from, latest);
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    if (migration.version <= schemaVersion(db)) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      migration.up(db);
      db.exec(`PRAGMA user_version = ${Math.trunc(migration.version)}`);
      db.exec('COMMIT');
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }
  return { from, to: schemaVersion(db) };
}
