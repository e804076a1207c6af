import type { InvocationRecord } from '../../shared/invocation';
import type { SpoolFile } from './SpoolFile';

export interface DurableWriterOptions {
  /** Writes one batch; throws if it was not written (the batch is then kept). */
  write(batch: readonly InvocationRecord[]): Promise<void>;
  /** A record waits at most this long before its batch is written (ms). */
  flushIntervalMs?: number;
  maxBatch?: number;
  /** Records held in memory beyond this go to the spool file (or, without one, the oldest are dropped). */
  maxMemoryRows?: number;
  /** Where records wait while the database is down; absent: memory only. */
  spool?: SpoolFile;
  /** Errors that no retry can fix (the data itself): the batch is dropped instead of blocking the queue. */
  isPermanent?(error: unknown): boolean;
  onError?(error: unknown, info: { rows: number; retrying: boolean }): void;
  /** Called once writes succeed again after a failure. */
  onRecovered?(): void;
  maxRetryDelayMs?: number;
}

export interface DurableWriterStats {
  /** Records in memory, not yet written. */
  pending: number;
  /** Bytes of records waiting in the spool file. */
  spooledBytes: number;
  dropped: number;
  failing: boolean;
}

/**
 * The PostgreSQL store's writer: records are taken off the caller's path and written in batches,
 * one batch in flight at a time (what arrives meanwhile forms the next batch). While the database
 * cannot be written, records go to the spool file every flush interval (so a process killed then
 * loses at most one interval), and the spool is written back first once the database answers.
 */
export class DurableWriter {
  private readonly queue: InvocationRecord[] = [];
  private inflight: readonly InvocationRecord[] = [];
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxMemoryRows: number;
  private readonly maxRetryDelayMs: number;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private spillTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private dropped = 0;
  private closed = false;

  constructor(private readonly options: DurableWriterOptions) {
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    this.maxBatch = Math.max(1, options.maxBatch ?? 1000);
    this.maxMemoryRows = Math.max(this.maxBatch, options.maxMemoryRows ?? 20_000);
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
  }

  push(rec: InvocationRecord): void {
    if (this.closed) {
      this.toDisk([rec], true);
      return;
    }
    this.queue.push(rec);
    if (this.queue.length > this.maxMemoryRows) this.spill(this.queue.length - this.maxMemoryRows + this.maxBatch);
    if (this.failures > 0) {
      this.spillTimer ??= setTimeout(() => {
        this.spillTimer = undefined;
        if (this.failures > 0) this.spill(this.queue.length);
      }, this.flushIntervalMs);
      return;
    }
    if (this.queue.length >= this.maxBatch) this.kick();
    // Kept referenced: a short-lived command waits the interval for its last rows to land.
    else this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, this.flushIntervalMs);
  }

  countDropped(count: number): void {
    this.dropped += count;
  }

  /** Writes what is queued now (trying at once even while backing off); resolves when written or failed. */
  async flush(): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      await this.kick();
      if ((this.queue.length === 0 && !this.options.spool?.pending) || this.failures > 0) return;
    }
  }

  /**
   * Writes what it can within `timeoutMs`; everything still unwritten then goes to the spool file
   * (or is counted as dropped without one). Records pushed afterwards go straight to the spool.
   */
  async close(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise<void>((resolve) => (timeout = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timeout);
    this.closed = true;
    this.cancelTimers();
    // A write still in flight may land too: the store ignores an id it already has.
    const left = [...this.inflight, ...this.queue.splice(0)];
    // Rows already on their way to the spool file land before the process may exit.
    await this.options.spool?.idle();
    if (left.length) this.toDisk(left, true);
  }

  stats(): DurableWriterStats {
    return { pending: this.queue.length + this.inflight.length, spooledBytes: this.options.spool?.size ?? 0, dropped: this.dropped, failing: this.failures > 0 };
  }

  private kick(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.running ??= this.run().finally(() => {
      this.running = undefined;
      if (this.queue.length > 0 && this.failures === 0 && !this.closed) this.timer ??= setTimeout(() => ((this.timer = undefined), void this.kick()), this.flushIntervalMs);
    });
    return this.running;
  }

  private async run(): Promise<void> {
    const spool = this.options.spool;
    for (;;) {
      if (spool?.pending) {
        try {
          await spool.replay(this.maxBatch, (batch) => this.options.write(batch));
        } catch (error) {
          this.failed(error, 0);
          return;
        }
        this.succeeded();
        continue;
      }
      if (this.queue.length === 0) return;
      const batch = this.queue.splice(0, this.maxBatch);
      this.inflight = batch;
      try {
        await this.options.write(batch);
        this.inflight = [];
        this.succeeded();
      } catch (error) {
        this.inflight = [];
        if (this.options.isPermanent?.(error)) {
          this.dropped += batch.length;
          this.options.onError?.(error, { rows: batch.length, retrying: false });
          continue;
        }
        this.queue.unshift(...batch);
        this.failed(error, batch.length);
        return;
      }
    }
  }

  private succeeded(): void {
    if (this.failures === 0) return;
    this.failures = 0;
    this.options.onRecovered?.();
  }

  private failed(error: unknown, rows: number): void {
    this.failures++;
    this.options.onError?.(error, { rows: rows || this.queue.length, retrying: true });
    if (this.closed) return;
    this.spill(this.queue.length);
    const delay = Math.min(this.maxRetryDelayMs, this.flushIntervalMs * 2 ** Math.min(this.failures - 1, 16));
    if (this.timer) clearTimeout(this.timer);
    // Unreferenced: a database that stays down must not keep a finished command alive.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.kick();
    }, delay);
    this.timer.unref();
  }

  /** Moves the oldest `count` queued records to the spool (memory only without one: the oldest are dropped past the bound). */
  private spill(count: number): void {
    if (count <= 0) return;
    if (!this.options.spool) {
      const over = this.queue.length - this.maxMemoryRows;
      if (over > 0) {
        this.queue.splice(0, over);
        this.dropped += over;
      }
      return;
    }
    this.toDisk(this.queue.splice(0, count), false);
  }

  private toDisk(records: readonly InvocationRecord[], sync: boolean): void {
    const spool = this.options.spool;
    if (!spool) {
      this.dropped += records.length;
      return;
    }
    if (sync) {
      try {
        this.dropped += spool.appendSync(records);
      } catch (error) {
        this.dropped += records.length;
        this.options.onError?.(error, { rows: records.length, retrying: false });
      }
      return;
    }
    spool.append(records).then(
      (notKept) => (this.dropped += notKept),
      (error: unknown) => {
        this.dropped += records.length;
        this.options.onError?.(error, { rows: records.length, retrying: false });
      },
    );
  }

  private cancelTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.spillTimer) clearTimeout(this.spillTimer);
    this.timer = undefined;
    this.spillTimer = undefined;
  }
}
