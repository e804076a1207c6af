/** Time as Tooldeck's services see it, injected so tests decide when timers fire (see testing/FakeClock). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` after `ms`; the returned function cancels it. */
  setTimeout(callback: () => void, ms: number): () => void;
  /**
   * Optional: a timer that can be told whether it keeps the process alive (Node's ref/unref), so
   * one timer may stay armed while nothing waits on it without holding the process open. `ms` is
   * at most LONGEST_TIMER_MS. Clocks without it (test clocks) have their timers cancelled instead.
   */
  holdableTimeout?(callback: () => void, ms: number): HoldableTimer;
}

export interface HoldableTimer {
  cancel(): void;
  /** Whether the timer keeps the process alive; it does when made. */
  hold(held: boolean): void;
}

/** Node fires a timer of more than 2^31−1 ms at once (with a warning); longer delays are chained. */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    let handle: NodeJS.Timeout;
    const arm = (left: number) => {
      handle = left > LONGEST_TIMER_MS ? setTimeout(() => arm(left - LONGEST_TIMER_MS), LONGEST_TIMER_MS) : setTimeout(callback, left);
    };
    arm(ms);
    return () => clearTimeout(handle);
  },
  holdableTimeout(callback, ms) {
    const handle = setTimeout(callback, Math.min(ms, LONGEST_TIMER_MS));
    return {
      cancel: () => clearTimeout(handle),
      hold: (held) => void (held ? handle.ref() : handle.unref()),
    };
  },
};

/** Resolves after `ms` on `clock`, or as soon as `signal` aborts (it never rejects); an abort cancels the timer. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
