export interface BatchWriterOptions<T> {
  /** Writes one batch atomically; throws if nothing was written. */
  write(batch: readonly T[]): void;
  flushIntervalMs?: number;
  maxBatch?: number;
  /** Beyond this many waiting items the oldest are dropped (and counted). */
  maxQueued?: number;
  /** Retryable failures keep the batch queued and retry with backoff; others drop it. */
  isRetryable?(error: unknown): boolean;
  onError?(error: unknown, info: { rows: number; retrying: boolean }): void;
  maxRetryDelayMs?: number;
}

export interface BatchWriterStats {
  pending: number;
  dropped: number;
  lastError?: unknown;
  lastErrorAt?: number;
}

/**
 * Collects items off the caller's path and writes them in batches: when `maxBatch` items wait, or
 * `flushIntervalMs` after the first one. A failed batch never reaches the caller that queued it.
 */
export class BatchWriter<T> {
  private readonly queue: T[] = [];
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  private readonly maxRetryDelayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private failures = 0;
  private closed = false;
  private dropped = 0;
  private lastError: unknown;
  private lastErrorAt: number | undefined;

  constructor(private readonly options: BatchWriterOptions<T>) {
    this.flushIntervalMs = options.flushIntervalMs ?? 200;
    this.maxBatch = Math.max(1, options.maxBatch ?? 500);
    this.maxQueued = Math.max(this.maxBatch, options.maxQueued ?? 20_000);
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
  }

  push(item: T): void {
    if (this.closed) {
      this.dropped++;
      return;
    }
    this.queue.push(item);
    if (this.queue.length > this.maxQueued) {
      this.queue.shift();
      this.dropped++;
    }
    if (this.failures > 0) return;
    if (this.queue.length >= this.maxBatch) {
      this.immediate ??= setImmediate(() => {
        this.immediate = undefined;
        this.drain();
      });
    } else if (!this.timer) {
      // Kept referenced: a short-lived CLI run waits the interval for its last rows to land.
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.drain();
      }, this.flushIntervalMs);
    }
  }

  /** Counts items dropped before they were queued (e.g. rejected as unstorable). */
  countDropped(count: number): void {
    this.dropped += count;
  }

  /**
   * Writes everything queued, batch by batch, and stops at the first failure (the failed batch
   * stays queued if retryable). Returns whether the queue is now empty.
   */
  drain(): boolean {
    this.cancelTimers();
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.maxBatch);
      try {
        this.options.write(batch);
      } catch (error) {
        const retrying = this.options.isRetryable?.(error) ?? false;
        this.lastError = error;
        this.lastErrorAt = Date.now();
        if (retrying) {
          this.failures++;
        } else {
          this.queue.splice(0, batch.length);
          this.dropped += batch.length;
        }
        this.options.onError?.(error, { rows: batch.length, retrying });
        if (retrying) {
          this.scheduleRetry();
          return false;
        }
        continue;
      }
      this.queue.splice(0, batch.length);
      this.failures = 0;
      this.lastError = undefined;
      this.lastErrorAt = undefined;
    }
    return true;
  }

  async flush(): Promise<void> {
    this.drain();
  }

  /** Writes what it can; whatever is still queued afterwards is lost and counted as dropped. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.drain();
    this.closed = true;
    this.cancelTimers();
    this.dropped += this.queue.length;
    this.queue.length = 0;
  }

  stats(): BatchWriterStats {
    return {
      pending: this.queue.length,
      dropped: this.dropped,
      ...(this.lastError !== undefined ? { lastError: this.lastError, lastErrorAt: this.lastErrorAt } : {}),
    };
  }

  private scheduleRetry(): void {
    const delay = Math.min(this.maxRetryDelayMs, this.flushIntervalMs * 2 ** Math.min(this.failures - 1, 16));
    // Unreferenced: a store that cannot write (read-only disk) must not keep the process alive.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, delay);
    this.timer.unref();
  }

  private cancelTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }
}
