import type { InvocationRecord } from '../../shared/invocation';

export interface LiveFeedOptions {
  /** Items a slow subscriber may fall behind by before the oldest are dropped. */
  bufferSize?: number;
}

export interface LiveFeedStats {
  subscribers: number;
  /** Items dropped across all subscribers because they fell behind. */
  dropped: number;
}

class Subscription<T> implements AsyncIterableIterator<T> {
  private readonly buffer: T[] = [];
  /** Consumers may call next() again before the previous call resolved; each gets its own item. */
  private readonly waiting: ((result: IteratorResult<T>) => void)[] = [];
  private done = false;

  constructor(
    private readonly capacity: number,
    private readonly onDrop: () => void,
    private readonly onEnd: (subscription: Subscription<T>) => void,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', this.abort, { once: true });
  }

  push(item: T): void {
    if (this.done) return;
    const resolve = this.waiting.shift();
    if (resolve) {
      resolve({ value: item, done: false });
      return;
    }
    this.buffer.push(item);
    if (this.buffer.length > this.capacity) {
      this.buffer.shift();
      this.onDrop();
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift()!, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private readonly abort = () => this.end();

  private end(): void {
    if (this.done) return;
    this.done = true;
    this.buffer.length = 0;
    this.signal?.removeEventListener('abort', this.abort);
    this.onEnd(this);
    for (const resolve of this.waiting.splice(0)) resolve({ value: undefined, done: true });
  }
}

/**
 * Fans new items (finished invocations) out to live subscribers such as tRPC subscriptions. Each
 * subscriber has its own bounded buffer, so a stalled client costs a fixed amount of memory and
 * never slows the publisher.
 */
export class LiveFeed<T = InvocationRecord> {
  private readonly subscriptions = new Set<Subscription<T>>();
  private readonly bufferSize: number;
  private dropped = 0;

  constructor(options: LiveFeedOptions = {}) {
    this.bufferSize = Math.max(1, options.bufferSize ?? 1_000);
  }

  publish(item: T): void {
    for (const subscription of this.subscriptions) subscription.push(item);
  }

  /**
   * Receives every item published from this call on, until the signal aborts or the consumer stops
   * iterating (`break`, `return()`).
   */
  subscribe(signal?: AbortSignal): AsyncIterableIterator<T> {
    const subscription = new Subscription<T>(
      this.bufferSize,
      () => this.dropped++,
      (ended) => this.subscriptions.delete(ended),
      signal,
    );
    if (signal?.aborted) {
      void subscription.return();
      return subscription;
    }
    this.subscriptions.add(subscription);
    return subscription;
  }

  stats(): LiveFeedStats {
    return { subscribers: this.subscriptions.size, dropped: this.dropped };
  }
}
