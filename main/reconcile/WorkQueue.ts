import { ExponentialBackoff, type BackoffOptions } from './ExponentialBackoff';

/**
 * A queue of object keys with the guarantees a reconciler needs: a key is queued at most once, is
 * never handed to two workers at the same time (a key added while it is being processed runs again
 * afterwards), and failing keys come back after a per-key exponential backoff.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly backoffs = new Map<string, ExponentialBackoff>();
  private readonly waiters: Array<(key: string | undefined) => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private shuttingDown = false;

  constructor(private readonly backoff: BackoffOptions = {}) {}

  add(key: string) {
    if (this.shuttingDown) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.clearTimer(key);
    const waiter = this.waiters.shift();
    if (waiter) {
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queued.add(key);
    this.queue.push(key);
  }

  /** Adds the key after `ms`; an earlier pending add for the same key wins. */
  addAfter(key: string, ms: number) {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
      this.checkIdle();
    }, ms);
    this.timers.set(key, { at, timer });
  }

  /** Re-adds a failed key after its next backoff delay; returns the delay. */
  addRateLimited(key: string): number {
    let backoff = this.backoffs.get(key);
    if (!backoff) {
      backoff = new ExponentialBackoff(this.backoff);
      this.backoffs.set(key, backoff);
    }
    const delay = backoff.next();
    this.addAfter(key, delay);
    return delay;
  }

  /** The key succeeded: its next failure starts from the base delay again. */
  forget(key: string) {
    this.backoffs.delete(key);
  }

  failures(key: string): number {
    return this.backoffs.get(key)?.attempts ?? 0;
  }

  /** Keys that are waiting for a retry after a failure. */
  retrying(): string[] {
    return [...this.backoffs.keys()];
  }

  /** Resolves with the next key to process, or undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string) {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
    this.checkIdle();
  }

  /** Keys waiting for a worker. */
  get depth(): number {
    return this.queue.length;
  }

  /** Nothing queued, nothing in progress and no retry or delayed add pending. */
  isIdle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0 && this.timers.size === 0;
  }

  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  shutDown() {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
    this.queue.length = 0;
    this.queued.clear();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private clearTimer(key: string) {
    const existing = this.timers.get(key);
    if (existing) {
      clearTimeout(existing.timer);
      this.timers.delete(key);
    }
  }

  private checkIdle() {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
