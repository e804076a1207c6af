import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Client, Pool, PoolClient, PoolConfig } from 'pg';
import { AppError } from '../../shared/errors';
import {
  DEFAULT_PAGE_SIZE,
  MAX_EXPORT_ROWS,
  MAX_PAGE_SIZE,
  type BreakdownQuery,
  type BreakdownRow,
  type ExportFormat,
  type InvocationFilter,
  type InvocationListQuery,
  type InvocationPage,
  type LatencyHistogram,
  type LatencyHistogramQuery,
  type TimeSeriesQuery,
  type TimeSeriesResult,
} from '../../shared/history';
import type { InvocationRecord } from '../../shared/invocation';
import { runListItem, type RunListItem, type RunListQuery, type StoredRun } from '../../shared/runs';
import type { TaskStatus } from '../../shared/tasks';
import { Emitter } from '../platform/Emitter';
import { DurableWriter } from './DurableWriter';
import { formatRecords } from './exportStream';
import type { HistoryStore, StreamFormat } from './HistoryStore';
import { displayHistoryUrl, redactHistoryText } from './historyUrl';
import { invocationsToCsv } from './invocationCsv';
import { clampLimit, decodeCursor, encodeCursor, type RetentionPolicy, type RetentionResult, type StoreHealth, type StoreWriteError } from './InvocationStore';
import { fromRow, SELECT_COLUMNS, storableProblem } from './invocationRow';
import { describePgError, isPermanentPgError } from './pgErrors';
import { migratePg, pgMigrations, type PgMigration } from './pgMigrations';
import { CHANNEL, INVOCATIONS, insertStatement, noticeStatement, pgFilter, RUNS, sqliteShaped } from './pgSql';
import { chunkOfRow, PgRollupWriter, rebuildChunks, ROLLUP, upsert } from './PgLatencyRollup';
import { MINUTE_MS, type RollupEntry } from './LatencyRollup';
import { addRollupChunk, breakdownWindow, finishBreakdown, finishHistogram, finishTimeSeries, histogramWindow, newCollector, scanSteps, timeSeriesWindow, type Collector, type ScanWindow } from './MetricQueries';
import { SpoolFile } from './SpoolFile';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const DELETE_CHUNK_ROWS = 10_000;
const MAX_RUNS = 5_000;
/** Rows read per round trip by the streaming export. */
const EXPORT_PAGE_ROWS = 2_000;
/** Any constant the replicas agree on: only one of them prunes at a time. */
const RETENTION_LOCK_KEY = 7_466_742_172;
export const SPOOL_FILE_NAME = 'history-spool.jsonl';

export interface PostgresHistoryOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Where the spool file lives (the data dir); absent: records wait in memory only. */
  spoolDir?: string;
  /** Subscribe to the other replicas' records (`serve`, the desktop app): `onOtherReplicas`. */
  live?: boolean;
  /** Deletes calls older than this many days, hourly, in batches; `false` keeps everything. */
  retention?: Pick<RetentionPolicy, 'maxAgeDays'> | false;
  retentionIntervalMs?: number;
  flushIntervalMs?: number;
  maxBatchRows?: number;
  maxMemoryRows?: number;
  maxSpoolBytes?: number;
  /** How long `close` waits for the database before the rest goes to the spool file. */
  closeTimeoutMs?: number;
  poolSize?: number;
  connectTimeoutMs?: number;
  /** Tests: another migration list. */
  migrations?: readonly PgMigration[];
}

/** The history database could not be opened: one sentence, the password masked. */
export class HistoryOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistoryOpenError';
  }
}

export const HISTORY_DEFAULTS = {
  flushIntervalMs: 100,
  maxBatchRows: 1_000,
  maxMemoryRows: 20_000,
  maxSpoolBytes: 256 * 1024 * 1024,
  closeTimeoutMs: 5_000,
};

/**
 * Invocation history in one PostgreSQL database that every replica writes: batches written off the
 * caller's path (DurableWriter), each one transaction holding the rows, their latencies in the
 * rollup and a notification for the consoles listening (LISTEN/NOTIFY); versioned migrations under
 * an advisory lock; the same queries and answers as the SQLite file.
 */
export class PostgresHistory implements HistoryStore {
  readonly kind = 'postgres';
  readonly location: string;
  private readonly writer: DurableWriter;
  private readonly writeErrors = new Emitter<StoreWriteError>();
  private readonly others = new Emitter<InvocationRecord>();
  /** Tells this process's own notifications from the other replicas'. */
  private readonly writerId = randomUUID();
  private readonly rollup = new PgRollupWriter(this.writerId);
  private lastError: StoreWriteError | undefined;
  private listener: Client | undefined;
  private listenerRetry: NodeJS.Timeout | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  private closed = false;

  static async open(options: PostgresHistoryOptions): Promise<PostgresHistory> {
    const location = displayHistoryUrl(options.url);
    const pg = await loadPg();
    let pool: Pool;
    try {
      pool = new pg.Pool(poolConfig(options, pg));
    } catch (error) {
      throw new HistoryOpenError(`The history URL ${location} is not valid (${redactHistoryText((error as Error).message, options.url)}).`);
    }
    // An idle connection the server closed (a restart) must not end the process; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      const client = await checkOut(pool);
      try {
        await migratePg(client, options.migrations ?? pgMigrations);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new HistoryOpenError(`The history database at ${location} cannot be used: ${describePgError(error, options.url)}.`);
    }
    const store = new PostgresHistory(pool, options, location);
    if (options.live) {
      try {
        await store.listen();
      } catch (error) {
        await store.close();
        throw new HistoryOpenError(`The history database at ${location} cannot be used: ${describePgError(error, options.url)}.`);
      }
    }
    if (options.retention !== false) {
      const maxAgeDays = options.retention?.maxAgeDays ?? 90;
      void store.applyRetention({ maxAgeDays }).catch(() => undefined);
      store.retentionTimer = setInterval(() => void store.applyRetention({ maxAgeDays }).catch(() => undefined), options.retentionIntervalMs ?? HOUR_MS);
      store.retentionTimer.unref();
    }
    return store;
  }

  private constructor(
    private readonly pool: Pool,
    private readonly options: PostgresHistoryOptions,
    location: string,
  ) {
    this.location = location;
    this.writer = new DurableWriter({
      write: (batch) => this.writeBatch(batch),
      flushIntervalMs: options.flushIntervalMs ?? HISTORY_DEFAULTS.flushIntervalMs,
      maxBatch: options.maxBatchRows ?? HISTORY_DEFAULTS.maxBatchRows,
      maxMemoryRows: options.maxMemoryRows ?? HISTORY_DEFAULTS.maxMemoryRows,
      ...(options.spoolDir ? { spool: new SpoolFile(join(options.spoolDir, SPOOL_FILE_NAME), options.maxSpoolBytes ?? HISTORY_DEFAULTS.maxSpoolBytes) } : {}),
      isPermanent: isPermanentPgError,
      onError: (error, { rows, retrying }) =>
        this.report({
          message: `Could not save ${rows} invocation record${rows === 1 ? '' : 's'} to ${this.location}: ${describePgError(error, options.url)}.${retrying ? ' They are kept (on disk while the database is down) and written when it answers.' : ' They were dropped.'}`,
          rows,
          retrying,
          at: Date.now(),
        }),
      onRecovered: () => (this.lastError = undefined),
    });
  }

  record(rec: InvocationRecord): void {
    const problem = storableProblem(rec);
    if (problem) {
      this.writer.countDropped(1);
      this.report({ message: `Dropped an invocation record that cannot be stored: ${problem}.`, rows: 1, retrying: false, at: Date.now() });
      return;
    }
    this.writer.push(rec);
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  onWriteError(listener: (error: StoreWriteError) => void): () => void {
    return this.writeErrors.on(listener);
  }

  onOtherReplicas(listener: (rec: InvocationRecord) => void): () => void {
    return this.others.on(listener);
  }

  health(): StoreHealth {
    const stats = this.writer.stats();
    return {
      ok: !stats.failing,
      ...(stats.failing && this.lastError ? { lastError: this.lastError } : {}),
      pendingRows: stats.pending,
      droppedRows: stats.dropped,
    };
  }

  /** Bytes waiting in the spool file (the database was down). */
  spooledBytes(): number {
    return this.writer.stats().spooledBytes;
  }

  async list(query: InvocationListQuery = {}): Promise<InvocationPage> {
    await this.writer.flush();
    const limit = clampLimit(query.limit, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const { where, params } = pgFilter(query, cursor ? [{ sql: '(started_at, seq) < (?, ?)', params: [cursor.startedAt, cursor.seq] }] : []);
    const rows = await this.rows(`SELECT ${SELECT_COLUMNS} FROM ${INVOCATIONS} ${where} ORDER BY started_at DESC, seq DESC LIMIT ${limit + 1}`, params);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => fromRow(sqliteShaped(row))),
      ...(rows.length > limit && last ? { nextCursor: encodeCursor({ startedAt: last.started_at as number, seq: last.seq as number }) } : {}),
    };
  }

  async get(id: string): Promise<InvocationRecord | undefined> {
    await this.writer.flush();
    const [row] = await this.rows(`SELECT ${SELECT_COLUMNS} FROM ${INVOCATIONS} WHERE id = $1`, [id]);
    return row ? fromRow(sqliteShaped(row)) : undefined;
  }

  async count(filter: InvocationFilter = {}): Promise<number> {
    await this.writer.flush();
    const { where, params } = pgFilter(filter);
    const [row] = await this.rows(`SELECT count(*) AS n FROM ${INVOCATIONS} ${where}`, params);
    return Number(row?.n ?? 0);
  }

  async export(filter: InvocationFilter & { limit?: number }, format: ExportFormat): Promise<string> {
    await this.writer.flush();
    const limit = clampLimit(filter.limit, MAX_EXPORT_ROWS, MAX_EXPORT_ROWS);
    const { where, params } = pgFilter(filter);
    const rows = await this.rows(`SELECT ${SELECT_COLUMNS} FROM ${INVOCATIONS} ${where} ORDER BY started_at DESC, seq DESC LIMIT ${limit}`, params);
    const records = rows.map((row) => fromRow(sqliteShaped(row)));
    return format === 'csv' ? invocationsToCsv(records) : JSON.stringify(records);
  }

  exportStream(filter: InvocationFilter, format: StreamFormat): AsyncIterable<string> {
    return formatRecords(this.iterate(filter), format);
  }

  /** Keyset pages (started_at, seq) newest first: no server-side cursor holds a connection between reads. */
  async *iterate(filter: InvocationFilter = {}): AsyncGenerator<InvocationRecord> {
    await this.writer.flush();
    let cursor: { startedAt: number; seq: number } | undefined;
    for (;;) {
      const { where, params } = pgFilter(filter, cursor ? [{ sql: '(started_at, seq) < (?, ?)', params: [cursor.startedAt, cursor.seq] }] : []);
      const rows = await this.rows(`SELECT ${SELECT_COLUMNS} FROM ${INVOCATIONS} ${where} ORDER BY started_at DESC, seq DESC LIMIT ${EXPORT_PAGE_ROWS}`, params);
      for (const row of rows) yield fromRow(sqliteShaped(row));
      if (rows.length < EXPORT_PAGE_ROWS) return;
      const last = rows.at(-1)!;
      cursor = { startedAt: last.started_at as number, seq: last.seq as number };
    }
  }

  async timeSeries(query: TimeSeriesQuery): Promise<TimeSeriesResult> {
    const window = timeSeriesWindow(query);
    return 'series' in window ? window : finishTimeSeries(query, await this.scan(window));
  }

  async breakdown(query: BreakdownQuery): Promise<BreakdownRow[]> {
    const window = breakdownWindow(query);
    return finishBreakdown(window && (await this.scan(window)));
  }

  async latencyHistogram(query: LatencyHistogramQuery): Promise<LatencyHistogram> {
    const window = histogramWindow(query);
    return finishHistogram(query, window && (await this.scan(window)));
  }

  setTaskStatus(server: string, taskId: string, status: TaskStatus): void {
    if (this.closed) return;
    void this.writer
      .flush()
      .then(() => this.pool.query(`UPDATE ${INVOCATIONS} SET task_status = $1 WHERE task_id = $2 AND source_kind = 'mcp' AND source_name = $3`, [status, taskId, server]))
      .catch((error: unknown) => this.report({ message: `Could not save the final status of task ${taskId}: ${describePgError(error, this.options.url)}.`, rows: 0, retrying: false, at: Date.now() }));
  }

  async saveRun(run: Pick<StoredRun, 'kind' | 'summary'>): Promise<void> {
    const item = runListItem(run as StoredRun);
    await this.query(
      `INSERT INTO ${RUNS} (run_id, kind, collection, started_at, item_json, summary_json) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (run_id) DO UPDATE SET kind = EXCLUDED.kind, collection = EXCLUDED.collection, started_at = EXCLUDED.started_at, item_json = EXCLUDED.item_json, summary_json = EXCLUDED.summary_json`,
      [item.runId, item.kind, item.collection, Math.trunc(item.startedAt), JSON.stringify(item), JSON.stringify(run.summary)],
    );
  }

  async listRuns(query: RunListQuery = {}): Promise<RunListItem[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.kind) where.push(`kind = $${params.push(query.kind)}`);
    if (query.collection) where.push(`collection = $${params.push(query.collection)}`);
    const rows = await this.rows(`SELECT item_json FROM ${RUNS} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC LIMIT ${clampLimit(query.limit, 100, 500)}`, params);
    return rows.map((row) => JSON.parse(row.item_json as string) as RunListItem);
  }

  async getRun(runId: string): Promise<StoredRun | undefined> {
    const [row] = await this.rows(`SELECT item_json, summary_json FROM ${RUNS} WHERE run_id = $1`, [runId]);
    return row ? ({ ...(JSON.parse(row.item_json as string) as RunListItem), summary: JSON.parse(row.summary_json as string) } as StoredRun) : undefined;
  }

  /**
   * Deletes calls older than `maxAgeDays` in batches of 10,000 rows (each its own short statement,
   * so writers are never held up behind one long delete). One replica prunes at a time. `maxRows`
   * is not applied: a shared record is bounded by age.
   */
  async applyRetention(policy: Partial<RetentionPolicy> = {}, now = Date.now()): Promise<RetentionResult> {
    const maxAgeDays = policy.maxAgeDays ?? 90;
    const client = await checkOut(this.pool);
    try {
      const [lock] = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [RETENTION_LOCK_KEY])).rows;
      if (!lock?.locked) return { deleted: 0 };
      try {
        const cutoff = now - maxAgeDays * DAY_MS;
        let deleted = 0;
        for (;;) {
          const { rowCount } = await client.query(`DELETE FROM ${INVOCATIONS} WHERE seq IN (SELECT seq FROM ${INVOCATIONS} WHERE started_at < $1 LIMIT ${DELETE_CHUNK_ROWS})`, [cutoff]);
          deleted += rowCount ?? 0;
          if ((rowCount ?? 0) < DELETE_CHUNK_ROWS) break;
        }
        if (deleted > 0) await trimRollup(client, cutoff);
        await client.query(`DELETE FROM ${RUNS} WHERE started_at < $1`, [cutoff]);
        await client.query(`DELETE FROM ${RUNS} WHERE run_id IN (SELECT run_id FROM ${RUNS} ORDER BY started_at DESC OFFSET ${MAX_RUNS})`);
        return { deleted };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    if (this.listenerRetry) clearTimeout(this.listenerRetry);
    await this.writer.close(this.options.closeTimeoutMs ?? HISTORY_DEFAULTS.closeTimeoutMs);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    // A query stuck on a database that stopped answering must not hold the process past its close.
    await Promise.race([this.pool.end().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  }

  private async writeBatch(batch: readonly InvocationRecord[]): Promise<void> {
    try {
      await this.insert(batch);
    } catch (error) {
      if (!isPermanentPgError(error) || batch.length === 1) throw error;
      // One record the database refuses must not take the rest of its batch with it.
      for (const rec of batch) {
        try {
          await this.insert([rec]);
        } catch (rowError) {
          if (!isPermanentPgError(rowError)) throw rowError;
          this.writer.countDropped(1);
          this.report({ message: `Dropped invocation record ${rec.id}: ${describePgError(rowError, this.options.url)}.`, rows: 1, retrying: false, at: Date.now() });
        }
      }
    }
  }

  /** The rows, their latencies in the rollup and the notification to the consoles: one transaction. */
  private async insert(batch: readonly InvocationRecord[]): Promise<void> {
    const client = await checkOut(this.pool);
    let broken = false;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ seq: number; id: string }>(insertStatement(batch));
      // Only the calls inserted now count (an id stored before, or twice in the batch, once).
      const fresh = new Set(rows.map((row) => row.id));
      const inserted = batch.filter((rec) => fresh.delete(rec.id));
      const plan = this.rollup.plan(inserted);
      if (plan.statement) await client.query(plan.statement);
      if (rows.length) await client.query(noticeStatement(rows.map((row) => row.seq).sort((a, b) => a - b), this.writerId));
      await client.query('COMMIT');
      this.rollup.commit(plan);
    } catch (error) {
      broken = true;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      // A connection that failed mid-transaction is not handed to the next batch.
      client.release(broken);
    }
  }

  /** Whole minutes from the rollup, the edges and what it cannot answer from rows (scanSteps), into one collector. */
  private async scan(window: ScanWindow): Promise<Collector> {
    await this.writer.flush();
    const collector = newCollector(window);
    for (const step of scanSteps(window)) {
      if ('rows' in step) {
        const { where, params } = pgFilter({ ...window.filter, since: step.rows[0], until: step.rows[1] });
        const rows = await this.arrays(`SELECT started_at, latency_ms, status, source_kind, source_name, tool, replica FROM ${INVOCATIONS} ${where}`, params);
        for (const [startedAt, latency, status, kind, name, tool, replica] of rows as [number, number, string, string, string, string, string | null][]) {
          collector.addRow(collector.slot(collector.series(kind, name, tool, replica), startedAt), latency, status !== 'ok');
        }
      } else {
        const rows = await this.arrays(`SELECT minute, chunk, entries, groups, segments, latencies FROM ${ROLLUP} WHERE minute >= $1 AND minute < $2`, step.rollup);
        for (const row of rows) addRollupChunk(collector, chunkOfRow(row), window.filter);
      }
    }
    return collector;
  }

  /** Rows as arrays: no object per row on a scan of a day. */
  private async arrays(text: string, params: unknown[]): Promise<unknown[][]> {
    try {
      return (await this.pool.query<unknown[]>({ text, values: params, rowMode: 'array' })).rows;
    } catch (error) {
      throw new AppError('ConnectionFailed', `The history database at ${this.location} could not answer: ${describePgError(error, this.options.url)}.`);
    }
  }

  /** LISTEN on a connection of its own; reconnects (with backoff) after the database restarts. */
  private async listen(attempt = 0): Promise<void> {
    if (this.closed) return;
    const pg = await loadPg();
    const client = new pg.Client(poolConfig(this.options, pg));
    const retry = () => {
      if (this.closed || this.listener !== client) return;
      this.listener = undefined;
      void client.end().catch(() => undefined);
      this.listenerRetry = setTimeout(() => void this.listen(attempt + 1).catch(() => undefined), Math.min(5_000, 100 * 2 ** Math.min(attempt, 6)));
      this.listenerRetry.unref();
    };
    this.listener = client;
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) void this.announce(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      attempt = 0;
    } catch (error) {
      if (attempt === 0 && this.listener === client) {
        this.listener = undefined;
        await client.end().catch(() => undefined);
        throw error;
      }
      retry();
    }
  }

  /** Another replica's rows, read by sequence number and handed to the live feed. */
  private async announce(payload: string): Promise<void> {
    const space = payload.indexOf(' ');
    if (space < 0 || payload.slice(0, space) === this.writerId) return;
    const seqs = payload
      .slice(space + 1)
      .split(',')
      .map(Number)
      .filter((n) => Number.isSafeInteger(n));
    if (seqs.length === 0) return;
    try {
      const rows = await this.rows(`SELECT ${SELECT_COLUMNS} FROM ${INVOCATIONS} WHERE seq = ANY($1::bigint[]) ORDER BY seq`, [seqs]);
      for (const row of rows) this.others.emit(fromRow(sqliteShaped(row)));
    } catch {
      // The rows are in the database; the History list shows them when it next reads.
    }
  }

  private async rows(text: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    return (await this.query(text, params)).rows;
  }

  private async query(text: string, params: unknown[]) {
    try {
      return await this.pool.query<Record<string, unknown>>(text, params);
    } catch (error) {
      throw new AppError('ConnectionFailed', `The history database at ${this.location} could not answer: ${describePgError(error, this.options.url)}.`);
    }
  }

  private report(error: StoreWriteError): void {
    this.lastError = error;
    this.writeErrors.emit(error);
  }
}

/**
 * After retention: the rollup of minutes wholly before the cutoff goes, and the minute the cutoff
 * falls in is built again from the rows left in it (under a writer name of its own).
 */
async function trimRollup(client: PoolClient, cutoff: number): Promise<void> {
  const minute = Math.floor(cutoff / MINUTE_MS);
  await client.query(`DELETE FROM ${ROLLUP} WHERE minute < $1`, [minute]);
  await client.query('BEGIN');
  try {
    await client.query(`DELETE FROM ${ROLLUP} WHERE minute = $1`, [minute]);
    const { rows } = await client.query<RollupEntry>(
      `SELECT started_at AS "startedAt", source_kind AS "sourceKind", source_name AS "sourceName", tool, status, latency_ms AS "latencyMs" FROM ${INVOCATIONS} WHERE started_at >= $1 AND started_at < $2 ORDER BY seq`,
      [minute * MINUTE_MS, (minute + 1) * MINUTE_MS],
    );
    if (rows.length) await client.query(upsert(rebuildChunks(minute, rows), `retention-${randomUUID()}`));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Connections given a listener for their errors (once each). */
const guarded = new WeakSet<PoolClient>();

/**
 * A connection of the pool for a transaction. While it is checked out, the pool does not listen
 * for its errors, and the server going away (a restart) would end the process: the query in
 * progress fails instead, and the caller releases the connection as broken.
 */
async function checkOut(pool: Pool): Promise<PoolClient> {
  const client = await pool.connect();
  if (!guarded.has(client)) {
    guarded.add(client);
    client.on('error', () => undefined);
  }
  return client;
}

type PgModule = typeof import('pg');
let pgModule: Promise<PgModule> | undefined;

/** Loaded only when a PostgreSQL history is used: the embedded default never pays for the driver. */
function loadPg(): Promise<PgModule> {
  pgModule ??= import('pg').then((m) => (m as unknown as { default?: PgModule }).default ?? (m as unknown as PgModule));
  return pgModule;
}

function poolConfig(options: PostgresHistoryOptions, pg: PgModule): PoolConfig {
  return {
    connectionString: options.url,
    max: options.poolSize ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    application_name: 'tooldeck',
    // bigint columns (seq, byte counts) as numbers: every value Tooldeck stores fits in 2^53.
    types: {
      getTypeParser: ((oid: number, format?: string) => (oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'))) as never,
    },
  };
}
