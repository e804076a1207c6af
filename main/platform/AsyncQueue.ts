export interface AsyncQueueOptions {
  /** Items a slow consumer may fall behind by before the oldest are dropped. */
  capacity?: number;
  /** Told each time an item is dropped because the consumer fell behind. */
  onDrop?: () => void;
  /** Told once when the queue ends, by `close()`, `end()` or the consumer stopping (`return()`). */
  onEnd?: () => void;
}

/**
 * Bridges callback-style producers (progress callbacks, event listeners) to the async generators
 * that tRPC subscriptions are written as. Bounded: when a slow consumer falls behind, the oldest
 * items are dropped (and counted) rather than growing memory without limit.
 *
 * The queue is its own iterator: several `next()` calls may be in flight at once, and each gets
 * its own item, in order.
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private readonly waiting: ((result: IteratorResult<T>) => void)[] = [];
  private readonly capacity: number;
  private readonly onDrop?: () => void;
  private onEnd?: () => void;
  private done = false;
  private droppedCount = 0;

  constructor(capacityOrOptions: number | AsyncQueueOptions = {}) {
    const options = typeof capacityOrOptions === 'number' ? { capacity: capacityOrOptions } : capacityOrOptions;
    this.capacity = Math.max(1, options.capacity ?? 1_000);
    this.onDrop = options.onDrop;
    this.onEnd = options.onEnd;
  }

  /** Items dropped so far because the consumer fell behind. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Whether the queue takes no more items. */
  get ended(): boolean {
    return this.done;
  }

  push(item: T): void {
    if (this.done) return;
    const resolve = this.waiting.shift();
    if (resolve) {
      resolve({ value: item, done: false });
      return;
    }
    this.items.push(item);
    if (this.items.length > this.capacity) {
      this.items.shift();
      this.droppedCount++;
      this.onDrop?.();
    }
  }

  /** No more items: the consumer still reads those already queued, then the iteration ends. */
  close(): void {
    this.finish();
  }

  /** Ends the iteration now, discarding what was queued (the consumer has gone). */
  end(): void {
    this.items.length = 0;
    this.finish();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
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

  private finish(): void {
    if (this.done) return;
    this.done = true;
    const onEnd = this.onEnd;
    this.onEnd = undefined;
    onEnd?.();
    for (const resolve of this.waiting.splice(0)) resolve({ value: undefined, done: true });
  }
}

/**
 * Yields `snapshot()` now and again after each `subscribe` notification, at most once per
 * `coalesceMs`: the first change after a quiet spell goes out at once (a click's effect shows
 * without a delay), later ones in the same spell are coalesced into one.
 */
export async function* watch<T>(subscribe: (notify: () => void) => () => void, snapshot: () => T, signal?: AbortSignal, coalesceMs = 50): AsyncGenerator<T> {
  const queue = new AsyncQueue<true>(1);
  let timer: NodeJS.Timeout | undefined;
  let lastSent = 0;
  const unsubscribe = subscribe(() => {
    if (timer) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        lastSent = Date.now();
        queue.push(true);
      },
      Math.max(0, lastSent + coalesceMs - Date.now()),
    );
  });
  const stop = () => queue.close();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    yield snapshot();
    for await (const _ of queue) yield snapshot();
  } finally {
    unsubscribe();
    if (timer) clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}
