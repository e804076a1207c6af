import type { InvocationFilter, InvocationListQuery, ExportFormat, TimeSeriesQuery, BreakdownQuery, LatencyHistogramQuery } from '../../shared/history';
import type { InvocationRecord } from '../../shared/invocation';
import type { RunListQuery, StoredRun } from '../../shared/runs';
import type { TaskStatus } from '../../shared/tasks';
import { formatRecords } from './exportStream';
import type { HistoryStore, StreamFormat } from './HistoryStore';
import type { InvocationStore, RetentionPolicy, StoreWriteError } from './InvocationStore';

/**
 * The embedded default: history in the data dir's SQLite file (`InvocationStore`, whose reads are
 * synchronous and stay so for its own tests), behind the port every other folder uses.
 */
export class SqliteHistory implements HistoryStore {
  readonly kind = 'sqlite';

  constructor(readonly store: InvocationStore) {}

  get location(): string {
    return this.store.path;
  }

  record(rec: InvocationRecord): void {
    this.store.record(rec);
  }

  flush(): Promise<void> {
    return this.store.flush();
  }

  onWriteError(listener: (error: StoreWriteError) => void): () => void {
    return this.store.onWriteError(listener);
  }

  /** One file has one writer's records only as far as the console can tell: the live feed already carries them. */
  onOtherReplicas(): () => void {
    return () => undefined;
  }

  health() {
    return this.store.health();
  }

  async list(query?: InvocationListQuery) {
    return this.store.list(query);
  }

  async get(id: string) {
    return this.store.get(id);
  }

  async count(filter?: InvocationFilter) {
    return this.store.count(filter);
  }

  async export(filter: InvocationFilter & { limit?: number }, format: ExportFormat) {
    return this.store.export(filter, format);
  }

  exportStream(filter: InvocationFilter, format: StreamFormat): AsyncIterable<string> {
    return formatRecords(this.store.iterate(filter), format);
  }

  async timeSeries(query: TimeSeriesQuery) {
    return this.store.timeSeries(query);
  }

  async breakdown(query: BreakdownQuery) {
    return this.store.breakdown(query);
  }

  async latencyHistogram(query: LatencyHistogramQuery) {
    return this.store.latencyHistogram(query);
  }

  setTaskStatus(server: string, taskId: string, status: TaskStatus): void {
    this.store.setTaskStatus(server, taskId, status);
  }

  async saveRun(run: Pick<StoredRun, 'kind' | 'summary'>) {
    this.store.saveRun(run);
  }

  async listRuns(query?: RunListQuery) {
    return this.store.listRuns(query);
  }

  async getRun(runId: string) {
    return this.store.getRun(runId);
  }

  async applyRetention(policy?: Partial<RetentionPolicy>, now?: number) {
    return this.store.applyRetention(policy, now);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
