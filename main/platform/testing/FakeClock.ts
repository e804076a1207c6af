import type { Clock } from '../Clock';

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A clock that moves only when the test says so: timers fire in due order as it advances, letting
 * promise chains settle before and after each, so timings of seconds run in microseconds and never
 * depend on load.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): () => void {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const due = this.next();
      if (!due || due.at > target) break;
      this.fire(due);
    }
    this.current = target;
    await settle();
  }

  /** Fires due timers, in order, until `condition` holds; returns the fake time that took. Fails past `maxMs`. */
  async advanceUntil(condition: () => boolean, maxMs = 120_000): Promise<number> {
    const start = this.current;
    for (;;) {
      await settle();
      if (condition()) return this.current - start;
      const due = this.next();
      if (!due || due.at - start > maxMs) throw new Error(`condition not met within ${maxMs} ms of fake time`);
      this.fire(due);
    }
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  private next(): Timer | undefined {
    return this.timers.reduce<Timer | undefined>((a, b) => (!a || b.at < a.at || (b.at === a.at && b.seq < a.seq) ? b : a), undefined);
  }

  private fire(timer: Timer): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.current = Math.max(this.current, timer.at);
    timer.callback();
  }
}

/** Lets every pending promise chain run (the fakes the tests use answer without I/O). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}
