import type {
  BreakdownQuery,
  BreakdownRow,
  ExportFormat,
  InvocationFilter,
  InvocationListQuery,
  InvocationPage,
  LatencyHistogram,
  LatencyHistogramQuery,
  TimeSeriesQuery,
  TimeSeriesResult,
} from '../../shared/history';
import type { InvocationRecord } from '../../shared/invocation';
import type { RunListItem, RunListQuery, StoredRun } from '../../shared/runs';
import type { TaskStatus } from '../../shared/tasks';
import type { RetentionPolicy, RetentionResult, StoreHealth, StoreWriteError } from './InvocationStore';

/** How `history export` writes records: one JSON object per line, or CSV with a header row. */
export type StreamFormat = 'jsonl' | 'csv';

/**
 * Invocation history as the rest of main/ sees it, whichever database keeps it: SQLite in the data
 * dir (the embedded default, `SqliteHistory`) or one PostgreSQL shared by every replica
 * (`PostgresHistory`). `record` only queues and never throws or waits; reads see every record this
 * process accepted before them.
 */
export interface HistoryStore {
  /** Which adapter: for `info` and the History view's status line. */
  readonly kind: 'sqlite' | 'postgres';
  /** Where the history lives, safe to show: a file path, or the database URL with its password masked. */
  readonly location: string;
  record(rec: InvocationRecord): void;
  /** Writes everything queued now (as far as the database allows; see `health()`). */
  flush(): Promise<void>;
  onWriteError(listener: (error: StoreWriteError) => void): () => void;
  /**
   * Calls other processes recorded into the same history, as they land: only PostgreSQL has other
   * writers, and only when opened with `live`.
   */
  onOtherReplicas(listener: (rec: InvocationRecord) => void): () => void;
  health(): StoreHealth;
  list(query?: InvocationListQuery): Promise<InvocationPage>;
  get(id: string): Promise<InvocationRecord | undefined>;
  count(filter?: InvocationFilter): Promise<number>;
  /** Newest first, at most MAX_EXPORT_ROWS records in one string (the console's download). */
  export(filter: InvocationFilter & { limit?: number }, format: ExportFormat): Promise<string>;
  /** Every matching record, newest first, a chunk of text at a time: `tooldeck history export`. */
  exportStream(filter: InvocationFilter, format: StreamFormat): AsyncIterable<string>;
  timeSeries(query: TimeSeriesQuery): Promise<TimeSeriesResult>;
  breakdown(query: BreakdownQuery): Promise<BreakdownRow[]>;
  latencyHistogram(query: LatencyHistogramQuery): Promise<LatencyHistogram>;
  /** A detached task's final status reaches its record; never throws. */
  setTaskStatus(server: string, taskId: string, status: TaskStatus): void;
  saveRun(run: Pick<StoredRun, 'kind' | 'summary'>): Promise<void>;
  listRuns(query?: RunListQuery): Promise<RunListItem[]>;
  getRun(runId: string): Promise<StoredRun | undefined>;
  applyRetention(policy?: Partial<RetentionPolicy>, now?: number): Promise<RetentionResult>;
  /** Writes what is queued (PostgreSQL: what it cannot write goes to the spool file), then lets go of the database. */
  close(): Promise<void>;
}
