import type { Clock } from '../Clock';

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when a test moves it: `advanceUntil` fires timers in order until a
 * condition holds, so lease timings of seconds run in microseconds and never depend on load.
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((x) => x !== timer);
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Fires due timers, in order, until `condition` holds; returns the fake time that took. Fails past `maxMs`. */
  async advanceUntil(condition: () => boolean, maxMs = 120_000): Promise<number> {
    const start = this.t;
    for (;;) {
      await settle();
      if (condition()) return this.t - start;
      const next = this.timers.reduce<Timer | undefined>((a, b) => (!a || b.at < a.at || (b.at === a.at && b.seq < a.seq) ? b : a), undefined);
      if (!next || next.at - start > maxMs) throw new Error(`condition not met within ${maxMs} ms of fake time`);
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
  }

  /** Moves time forward by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await this.advanceUntil(() => !this.timers.some((x) => x.at <= target), ms);
    this.t = target;
    await settle();
  }
}

/** Lets every pending promise chain run (the fake lock answers without I/O). */
async function settle() {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}
