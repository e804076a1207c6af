import { describe, expect, it } from 'vitest';
import { sleep } from './Clock';
import { FakeClock } from './testing/FakeClock';

describe('sleep', () => {
  it('resolves once the clock has moved on by the delay', async () => {
    const clock = new FakeClock();
    let woke = false;
    void sleep(clock, 1_000).then(() => (woke = true));
    await clock.advance(999);
    expect(woke).toBe(false);
    await clock.advance(1);
    expect(woke).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('resolves at once on abort and leaves no timer behind', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const slept = sleep(clock, 60_000, stop.signal);
    expect(clock.pendingTimers).toBe(1);
    stop.abort();
    await slept;
    expect(clock.pendingTimers).toBe(0);
    expect(clock.now()).toBe(0);
  });

  it('never arms a timer when the signal has already aborted', async () => {
    const clock = new FakeClock();
    await sleep(clock, 60_000, AbortSignal.abort());
    expect(clock.pendingTimers).toBe(0);
  });
});
