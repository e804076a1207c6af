import type { InvocationRecord } from '../../shared/invocation';
import { AsyncQueue } from '../platform/AsyncQueue';

export interface LiveFeedOptions {
  /** Items a slow subscriber may fall behind by before the oldest are dropped. */
  bufferSize?: number;
}

export interface LiveFeedStats {
  subscribers: number;
  /** Items dropped across all subscribers because they fell behind. */
  dropped: number;
}

/**
 * Fans new items (finished invocations) out to live subscribers such as tRPC subscriptions. Each
 * subscriber has its own bounded AsyncQueue (the oldest items dropped first), so a stalled client
 * costs a fixed amount of memory and never slows the publisher.
 */
export class LiveFeed<T = InvocationRecord> {
  private readonly subscriptions = new Set<AsyncQueue<T>>();
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
    const abort = () => subscription.end();
    const subscription: AsyncQueue<T> = new AsyncQueue<T>({
      capacity: this.bufferSize,
      onDrop: () => this.dropped++,
      onEnd: () => {
        this.subscriptions.delete(subscription);
        signal?.removeEventListener('abort', abort);
      },
    });
    if (signal?.aborted) {
      subscription.end();
      return subscription;
    }
    signal?.addEventListener('abort', abort, { once: true });
    this.subscriptions.add(subscription);
    return subscription;
  }

  stats(): LiveFeedStats {
    return { subscribers: this.subscriptions.size, dropped: this.dropped };
  }
}
