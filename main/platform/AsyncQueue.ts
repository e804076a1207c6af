/**
 * Bridges callback-style producers (progress callbacks, event listeners) to the async generators
 * that tRPC subscriptions are written as. Bounded: when a slow consumer falls behind, the oldest
 * items are dropped rather than growing memory without limit.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting?: (result: IteratorResult<T>) => void;
  private done = false;

  constructor(private readonly capacity = 1_000) {}

  push(item: T) {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: item, done: false });
      return;
    }
    this.items.push(item);
    if (this.items.length > this.capacity) this.items.shift();
  }

  close() {
    this.done = true;
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.({ value: undefined as never, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
        if (this.done) return Promise.resolve({ value: undefined as never, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined as never, done: true });
      },
    };
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
