import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { AppError } from '../../shared/errors';
import type { InvocationRecord } from '../../shared/invocation';
import { BatchWriter } from './BatchWriter';
import { filterSql } from './filterSql';
import { invocationsToCsv } from './invocationCsv';
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
import type { TaskStatus } from '../../shared/tasks';
import { fromRow, INSERT_SQL, SELECT_COLUMNS, storableProblem, toParams, type InvocationRow } from './invocationRow';
import { LatencyRollup, MINUTE_MS } from './LatencyRollup';
import { loadSqlite } from './loadSqlite';
import { MetricQueries, type MetricQueryOptions } from './MetricQueries';
import { migrate } from './migrations';
import { runListItem, type RunListItem, type RunListQuery, type StoredRun } from '../../shared/runs';
import { describeSqliteError, isTransientWriteError, sqliteCode } from './sqliteErrors';
import { Emitter } from '../platform/Emitter';

export const DATABASE_FILE_NAME = 'tooldeck.db';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const DELETE_CHUNK_ROWS = 10_000;
/** Runs are few and small next to calls; past this many the oldest go. */
const MAX_RUNS = 5_000;

export interface RetentionPolicy {
  maxAgeDays: number;
  maxRows: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = { maxAgeDays: 90, maxRows: 1_000_000 };

export interface InvocationStoreOptions {
  /** Flush queued records after this long (ms). */
  flushIntervalMs?: number;
  /** Flush as soon as this many records wait. */
  maxBatchRows?: number;
  /** Records waiting beyond this (while writes fail) drop oldest first. */
  maxQueuedRows?: number;
  /** Applied on open and every `retentionIntervalMs`; `false` leaves pruning to the caller. */
  retention?: Partial<RetentionPolicy> | false;
  retentionIntervalMs?: number;
  /** Caps the database file; writes past it fail like a full disk until retention frees space. */
  maxDatabaseBytes?: number;
  /** How long a write waits for another process's lock before it is retried later. */
  busyTimeoutMs?: number;
}

export interface StoreWriteError {
  message: string;
  /** Records in the batch that failed. */
  rows: number;
  /** True when the records stay queued and are written once the condition clears. */
  retrying: boolean;
  sqliteCode?: number;
  at: number;
}

export interface StoreHealth {
  ok: boolean;
  lastError?: StoreWriteError;
  /** Accepted records not yet on disk. */
  pendingRows: number;
  /** Records lost: invalid, pushed out of a full queue, or unwritable at close. */
  droppedRows: number;
}

export interface RetentionResult {
  deleted: number;
}

export interface Cursor {
  startedAt: number;
  seq: number;
}

/**
 * Invocation history in one SQLite file. `record()` only queues; batches are written in one
 * transaction each, together with the per-minute latency rollup the metric queries read. Reads see
 * every record accepted before them (the queue is written first).
 */
export class InvocationStore {
  private readonly db: DatabaseSync;
  private readonly writer: BatchWriter<InvocationRecord>;
  private readonly rollup: LatencyRollup;
  private readonly metrics: MetricQueries;
  private readonly insert: StatementSync;
  private readonly statements = new Map<string, StatementSync>();
  private readonly writeErrors = new Emitter<StoreWriteError>();
  private readonly retention: RetentionPolicy | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  private lastError: StoreWriteError | undefined;
  private closed = false;

  constructor(
    readonly path: string,
    options: InvocationStoreOptions = {},
  ) {
    const { DatabaseSync } = loadSqlite();
    this.db = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 2_000 });
    this.writer = new BatchWriter<InvocationRecord>({
      write: (batch) => this.writeBatch(batch),
      flushIntervalMs: options.flushIntervalMs,
      maxBatch: options.maxBatchRows,
      maxQueued: options.maxQueuedRows,
      isRetryable: isTransientWriteError,
      onError: (error, { rows, retrying }) =>
        this.report({
          message: `Could not save ${rows} invocation record${rows === 1 ? '' : 's'}: ${describeSqliteError(error)}.${retrying ? ' They stay queued and are retried.' : ' They were dropped.'}`,
          rows,
          retrying,
          ...(sqliteCode(error) !== undefined ? { sqliteCode: sqliteCode(error) } : {}),
          at: Date.now(),
        }),
    });
    try {
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec('PRAGMA synchronous = NORMAL');
      this.db.exec('PRAGMA temp_store = MEMORY');
      // Ids are random, so every batch dirties pages all over the id index. A larger cache (~16 MB)
      // keeps more of it in memory, and a longer WAL between checkpoints (~40 MB) lets the same
      // pages be rewritten many times before one checkpoint copies them: measured 1.5x the insert
      // rate at a million rows. The size limit hands the WAL's disk space back after a checkpoint.
      this.db.exec('PRAGMA cache_size = -16000');
      this.db.exec('PRAGMA wal_autocheckpoint = 10000');
      this.db.exec('PRAGMA journal_size_limit = 67108864');
      migrate(this.db);
      if (options.maxDatabaseBytes !== undefined) this.setMaxDatabaseBytes(options.maxDatabaseBytes);
      this.insert = this.db.prepare(INSERT_SQL);
      this.rollup = new LatencyRollup(this.db);
      this.metrics = new MetricQueries(this.rollup, (sql) => this.prepare(sql));
      this.retention = options.retention === false ? undefined : { ...DEFAULT_RETENTION, ...options.retention };
      if (this.retention) {
        try {
          this.applyRetention(this.retention);
        } catch (error) {
          // A damaged file must fail the open (so it can be moved aside); a full or busy one can still record.
          if (!isTransientWriteError(error)) throw error;
          this.report({ message: `Could not prune old history: ${describeSqliteError(error)}.`, rows: 0, retrying: true, at: Date.now() });
        }
      }
    } catch (error) {
      this.db.close();
      throw error;
    }
    if (this.retention) {
      const policy = this.retention;
      this.retentionTimer = setInterval(() => this.runScheduledRetention(policy), options.retentionIntervalMs ?? HOUR_MS);
      this.retentionTimer.unref();
    }
  }

  /** Queues a finished call. Never throws: problems surface through `onWriteError` and `health()`. */
  record(rec: InvocationRecord): void {
    const problem = storableProblem(rec);
    if (problem) {
      this.writer.countDropped(1);
      this.report({ message: `Dropped an invocation record that cannot be stored: ${problem}.`, rows: 1, retrying: false, at: Date.now() });
      return;
    }
    this.writer.push(rec);
  }

  /** Writes everything queued now. Resolves even when the write fails (see `health()`). */
  async flush(): Promise<void> {
    await this.writer.flush();
  }

  onWriteError(listener: (error: StoreWriteError) => void): () => void {
    return this.writeErrors.on(listener);
  }

  health(): StoreHealth {
    const stats = this.writer.stats();
    const failing = stats.lastError !== undefined;
    return {
      ok: !failing,
      ...(failing && this.lastError ? { lastError: this.lastError } : {}),
      pendingRows: stats.pending,
      droppedRows: stats.dropped,
    };
  }

  /** Deletes calls older than `maxAgeDays` and, beyond that, the oldest calls past `maxRows`. */
  applyRetention(policy: Partial<RetentionPolicy> = {}, now = Date.now()): RetentionResult {
    const { maxAgeDays, maxRows } = { ...DEFAULT_RETENTION, ...policy };
    this.writer.drain();
    let deleted = this.deleteInChunks('started_at < ?', [now - maxAgeDays * DAY_MS]);
    const { total } = this.db.prepare('SELECT count(*) AS total FROM invocations').get() as { total: number };
    if (total > maxRows) {
      const boundary = this.db
        .prepare('SELECT started_at, seq FROM invocations ORDER BY started_at DESC, seq DESC LIMIT 1 OFFSET ?')
        .get(Math.max(0, maxRows)) as { started_at: number; seq: number };
      deleted += this.deleteInChunks('(started_at, seq) <= (?, ?)', [boundary.started_at, boundary.seq]);
    }
    if (deleted > 0) this.trimRollup();
    this.prepare('DELETE FROM runs WHERE started_at < ?').run(now - maxAgeDays * DAY_MS);
    this.prepare('DELETE FROM runs WHERE run_id IN (SELECT run_id FROM runs ORDER BY started_at DESC LIMIT -1 OFFSET ?)').run(MAX_RUNS);
    return { deleted };
  }

  /** Keeps a finished run with its summary (one row; a run saved again replaces its row). */
  saveRun(run: Pick<StoredRun, 'kind' | 'summary'>): void {
    const item = runListItem(run as StoredRun);
    this.prepare('INSERT OR REPLACE INTO runs (run_id, kind, collection, started_at, item_json, summary_json) VALUES (?, ?, ?, ?, ?, ?)').run(
      item.runId,
      item.kind,
      item.collection,
      Math.trunc(item.startedAt),
      JSON.stringify(item),
      JSON.stringify(run.summary),
    );
  }

  /** Runs, newest first. */
  listRuns(query: RunListQuery = {}): RunListItem[] {
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    if (query.kind) {
      where.push('kind = ?');
      params.push(query.kind);
    }
    if (query.collection) {
      where.push('collection = ?');
      params.push(query.collection);
    }
    const rows = this.prepare(`SELECT item_json FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC LIMIT ?`).all(
      ...params,
      clampLimit(query.limit, 100, 500),
    ) as { item_json: string }[];
    return rows.map((row) => JSON.parse(row.item_json) as RunListItem);
  }

  getRun(runId: string): StoredRun | undefined {
    const row = this.prepare('SELECT item_json, summary_json FROM runs WHERE run_id = ?').get(runId) as { item_json: string; summary_json: string } | undefined;
    return row ? ({ ...(JSON.parse(row.item_json) as RunListItem), summary: JSON.parse(row.summary_json) } as StoredRun) : undefined;
  }

  list(query: InvocationListQuery = {}): InvocationPage {
    this.writer.drain();
    const limit = clampLimit(query.limit, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const { where, params } = filterSql(query, cursor ? [{ sql: '(started_at, seq) < (?, ?)', params: [cursor.startedAt, cursor.seq] }] : []);
    const rows = this.prepare(`SELECT ${SELECT_COLUMNS} FROM invocations ${where} ORDER BY started_at DESC, seq DESC LIMIT ?`).all(
      ...params,
      limit + 1,
    ) as InvocationRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(fromRow),
      ...(rows.length > limit && last ? { nextCursor: encodeCursor({ startedAt: last.started_at as number, seq: last.seq as number }) } : {}),
    };
  }

  get(id: string): InvocationRecord | undefined {
    this.writer.drain();
    const row = this.prepare(`SELECT ${SELECT_COLUMNS} FROM invocations WHERE id = ?`).get(id) as InvocationRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  count(filter: InvocationFilter = {}): number {
    this.writer.drain();
    const { where, params } = filterSql(filter);
    return (this.prepare(`SELECT count(*) AS n FROM invocations ${where}`).get(...params) as { n: number }).n;
  }

  /** Newest first, up to `limit` (at most MAX_EXPORT_ROWS) records; CSV times are ISO 8601 UTC. */
  export(filter: InvocationFilter & { limit?: number }, format: ExportFormat): string {
    this.writer.drain();
    const limit = clampLimit(filter.limit, MAX_EXPORT_ROWS, MAX_EXPORT_ROWS);
    const { where, params } = filterSql(filter);
    const rows = this.prepare(`SELECT ${SELECT_COLUMNS} FROM invocations ${where} ORDER BY started_at DESC, seq DESC LIMIT ?`).all(...params, limit) as InvocationRow[];
    const records = rows.map(fromRow);
    return format === 'csv' ? invocationsToCsv(records) : JSON.stringify(records);
  }

  /** Every matching record, newest first, read a row at a time (no limit): the streaming export. */
  *iterate(filter: InvocationFilter = {}): Generator<InvocationRecord> {
    this.writer.drain();
    const { where, params } = filterSql(filter);
    // Its own statement, not the cache's: the cached one may be iterated again before this ends.
    const statement = this.db.prepare(`SELECT ${SELECT_COLUMNS} FROM invocations ${where} ORDER BY started_at DESC, seq DESC`);
    for (const row of statement.iterate(...params) as Iterable<InvocationRow>) yield fromRow(row);
  }

  timeSeries(query: TimeSeriesQuery, options?: MetricQueryOptions): TimeSeriesResult {
    this.writer.drain();
    return this.metrics.timeSeries(query, options);
  }

  breakdown(query: BreakdownQuery, options?: MetricQueryOptions): BreakdownRow[] {
    this.writer.drain();
    return this.metrics.breakdown(query, options);
  }

  latencyHistogram(query: LatencyHistogramQuery, options?: MetricQueryOptions): LatencyHistogram {
    this.writer.drain();
    return this.metrics.latencyHistogram(query, options);
  }

  /**
   * A detached task-augmented call ended after it was recorded: its record gets the task's final
   * status (the one change history allows to a record).
   */
  setTaskStatus(server: string, taskId: string, status: TaskStatus): void {
    if (this.closed) return;
    this.writer.drain();
    this.prepare("UPDATE invocations SET task_status = ? WHERE task_id = ? AND source_kind = 'mcp' AND source_name = ?").run(status, taskId, server);
  }

  /** SQLite cannot shrink below the current size, so a cap under it takes effect at the current size. */
  setMaxDatabaseBytes(bytes: number | undefined): void {
    const { page_size: pageSize } = this.db.prepare('PRAGMA page_size').get() as { page_size: number };
    const pages = bytes === undefined ? 0xfffffffe : Math.max(1, Math.floor(bytes / pageSize));
    this.db.exec(`PRAGMA max_page_count = ${pages}`);
  }

  /** Writes what is queued, then closes the file. Records that still cannot be written are counted as dropped. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    await this.writer.close();
    try {
      this.db.exec('PRAGMA optimize');
    } catch {
      // Only a planner hint; a full or read-only disk must not keep the file from closing.
    }
    this.db.close();
  }

  private writeBatch(batch: readonly InvocationRecord[]): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const inserted: InvocationRecord[] = [];
      for (const rec of batch) {
        // A changes count of 0 is a repeated id (the same call recorded twice): the first one stays.
        if (Number(this.insert.run(...toParams(rec)).changes) > 0) inserted.push(rec);
      }
      this.rollup.append(inserted);
      this.db.exec('COMMIT');
    } catch (error) {
      // SQLite rolls back by itself on some errors (SQLITE_FULL among them).
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  private deleteInChunks(condition: string, params: SQLInputValue[]): number {
    const statement = this.prepare(`DELETE FROM invocations WHERE seq IN (SELECT seq FROM invocations WHERE ${condition} LIMIT ${DELETE_CHUNK_ROWS})`);
    let deleted = 0;
    for (;;) {
      const changes = Number(statement.run(...params).changes);
      deleted += changes;
      if (changes < DELETE_CHUNK_ROWS) return deleted;
    }
  }

  /** Rows are only ever deleted oldest first, so only the oldest remaining minute can be partial. */
  private trimRollup(): void {
    const { oldest } = this.db.prepare('SELECT min(started_at) AS oldest FROM invocations').get() as { oldest: number | null };
    this.db.exec('BEGIN IMMEDIATE');
    try {
      if (oldest === null) {
        this.db.exec('DELETE FROM latency_rollup');
      } else {
        const minute = Math.floor(oldest / MINUTE_MS);
        this.rollup.deleteBefore(minute);
        this.rollup.rebuildMinute(minute);
      }
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  private runScheduledRetention(policy: RetentionPolicy): void {
    try {
      this.applyRetention(policy);
    } catch (error) {
      this.report({ message: `Could not prune old history: ${describeSqliteError(error)}.`, rows: 0, retrying: true, at: Date.now() });
    }
  }

  private report(error: StoreWriteError): void {
    this.lastError = error;
    // A failing listener stops neither the others nor the writer (the Emitter's promise).
    this.writeErrors.emit(error);
  }

  private prepare(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      // Filter shapes are finite but numerous; a bounded cache keeps the common ones prepared.
      if (this.statements.size >= 200) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  return limit !== undefined && Number.isFinite(limit) ? Math.min(max, Math.max(1, Math.trunc(limit))) : fallback;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.startedAt, cursor.seq])).toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  try {
    const [startedAt, seq] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof startedAt === 'number' && typeof seq === 'number') return { startedAt, seq };
  } catch {
    // Reported below like any other malformed cursor.
  }
  throw new AppError('InvalidInput', 'That page cursor is not valid; start again from the first page.');
}
