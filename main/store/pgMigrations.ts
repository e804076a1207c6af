import type { PoolClient } from 'pg';

export interface PgMigration {
  /** Recorded in tooldeck_history_migrations once the migration commits. */
  version: number;
  description: string;
  sql: string;
}

/** Any constant both replicas agree on: the key of the advisory lock migrations run under. */
export const MIGRATION_LOCK_KEY = 7_466_742_171;

/** Append only: a shipped migration never changes, a new version fixes what an old one did. */
export const pgMigrations: readonly PgMigration[] = [
  {
    version: 1,
    description: 'invocation history (every replica) and collection runs',
    // Same columns as the SQLite file (invocationRow.ts), so one row mapping serves both. Tables are
    // prefixed: the database may be shared with other applications.
    sql: `
      CREATE TABLE tooldeck_invocations (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        started_at double precision NOT NULL,
        source_kind text NOT NULL,
        source_name text NOT NULL,
        tool text NOT NULL,
        arguments_json text NOT NULL,
        status text NOT NULL,
        error_code text,
        error_message text,
        latency_ms double precision NOT NULL,
        request_bytes bigint NOT NULL,
        response_bytes bigint NOT NULL,
        result_preview text NOT NULL,
        truncated boolean NOT NULL,
        replay_of text,
        run_id text,
        is_error boolean,
        attempts integer,
        task_id text,
        task_status text,
        trace_id text,
        via text,
        agent text,
        replica text
      );
      CREATE INDEX tooldeck_invocations_started_at ON tooldeck_invocations (started_at);
      CREATE INDEX tooldeck_invocations_tool ON tooldeck_invocations (tool, started_at);
      CREATE INDEX tooldeck_invocations_source ON tooldeck_invocations (source_kind, source_name, started_at);
      CREATE INDEX tooldeck_invocations_status ON tooldeck_invocations (status, started_at);
      CREATE INDEX tooldeck_invocations_agent ON tooldeck_invocations (agent, started_at);
      CREATE INDEX tooldeck_invocations_replica ON tooldeck_invocations (replica, started_at);
      CREATE INDEX tooldeck_invocations_run_id ON tooldeck_invocations (run_id) WHERE run_id IS NOT NULL;
      CREATE INDEX tooldeck_invocations_task_id ON tooldeck_invocations (task_id) WHERE task_id IS NOT NULL;
      CREATE INDEX tooldeck_invocations_trace_id ON tooldeck_invocations (trace_id) WHERE trace_id IS NOT NULL;
      CREATE TABLE tooldeck_runs (
        run_id text PRIMARY KEY,
        kind text NOT NULL,
        collection text NOT NULL,
        started_at double precision NOT NULL,
        item_json text NOT NULL,
        summary_json text NOT NULL
      );
      CREATE INDEX tooldeck_runs_started_at ON tooldeck_runs (started_at);
      -- Exact percentiles without sorting a day of rows: each writer (process) packs the latencies
      -- of its calls per minute into chunks, in the transaction that inserts them, in the SQLite
      -- file's format (LatencyRollup.ts). Keyed by writer, so replicas never update the same row.
      CREATE TABLE tooldeck_latency_rollup (
        minute bigint NOT NULL,
        writer text NOT NULL,
        chunk integer NOT NULL,
        entries integer NOT NULL,
        groups text NOT NULL,
        segments bytea NOT NULL,
        latencies bytea NOT NULL,
        PRIMARY KEY (minute, writer, chunk)
      );
    `,
  },
];

export const LATEST_PG_SCHEMA_VERSION = Math.max(...pgMigrations.map((m) => m.version));

/** The database was migrated by a newer Tooldeck: this one refuses to write into it. */
export class PgSchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`the history database has schema version ${found}, newer than this Tooldeck understands (${supported})`);
    this.name = 'PgSchemaTooNewError';
  }
}

/**
 * Runs each pending migration in its own transaction, under a session advisory lock: replicas that
 * start at once wait for the first one, then find nothing left to do.
 */
export async function migratePg(client: PoolClient, list: readonly PgMigration[] = pgMigrations): Promise<{ from: number; to: number }> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS tooldeck_history_migrations (
      version integer PRIMARY KEY,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const current = async () => Number((await client.query<{ v: number | null }>('SELECT max(version) AS v FROM tooldeck_history_migrations')).rows[0]?.v ?? 0);
    const from = await current();
    const latest = Math.max(0, ...list.map((m) => m.version));
    if (from > latest) throw new PgSchemaTooNewError(from, latest);
    for (const migration of [...list].sort((a, b) => a.version - b.version)) {
      if (migration.version <= from) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO tooldeck_history_migrations (version, description) VALUES ($1, $2)', [migration.version, migration.description]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
    return { from, to: await current() };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}
