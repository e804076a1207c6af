import type { Logger } from '../platform/Logger';
import type { BackoffOptions } from './ExponentialBackoff';
import { WorkQueue } from './WorkQueue';

export interface ReconcileResult {
  /** Come back after this long even without an event (e.g. to poll something that sends none). */
  requeueAfterMs?: number;
}

export type ReconcileFn = (key: string) => Promise<ReconcileResult | void>;

export interface ReconcileLoopOptions {
  reconcile: ReconcileFn;
  workers?: number;
  backoff?: BackoffOptions;
  logger: Logger;
}

export interface KeyFailure {
  attempts: number;
  message: string;
}

/**
 * Level-triggered loop shared by the reconcile targets: events only enqueue keys; workers compute
 * desired state for a key and converge it. A thrown error retries the key with exponential backoff.
 */
export class ReconcileLoop {
  readonly queue: WorkQueue;
  private readonly lastErrors = new Map<string, string>();
  private workers: Promise<void>[] = [];
  private running = false;
  private passes = 0;

  constructor(private readonly options: ReconcileLoopOptions) {
    this.queue = new WorkQueue(options.backoff);
  }

  enqueue(key: string) {
    this.queue.add(key);
  }

  start() {
    if (this.running) return;
    this.running = true;
    const count = this.options.workers ?? 4;
    this.workers = Array.from({ length: count }, () => this.work());
  }

  async stop() {
    this.running = false;
    this.queue.shutDown();
    await Promise.all(this.workers);
  }

  /** Resolves when no key is queued, running or waiting for a retry. */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /** Reconcile passes started so far. */
  get runs(): number {
    return this.passes;
  }

  /** Keys whose last attempt failed, with the error. */
  failures(): Map<string, KeyFailure> {
    const result = new Map<string, KeyFailure>();
    for (const key of this.queue.retrying()) {
      result.set(key, { attempts: this.queue.failures(key), message: this.lastErrors.get(key) ?? '' });
    }
    return result;
  }

  private async work() {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.passes++;
      try {
        const result = await this.options.reconcile(key);
        this.queue.forget(key);
        this.lastErrors.delete(key);
        if (result?.requeueAfterMs !== undefined && this.running) this.queue.addAfter(key, result.requeueAfterMs);
      } catch (error) {
        const message = (error as Error)?.message ?? String(error);
        this.lastErrors.set(key, message);
        if (this.running) {
          const delay = this.queue.addRateLimited(key);
          this.options.logger.warn('reconcile failed', { key, error: message, retryInMs: delay, attempt: this.queue.failures(key) });
        }
      } finally {
        this.queue.done(key);
      }
    }
  }
}
