import { describe, expect, it } from 'vitest';
import { DeadlineWatch, type Deadline } from './DeadlineWatch';
import { FakeClock } from '../platform/testing/FakeClock';
import type { Clock, HoldableTimer } from '../platform/Clock';

function deadline(dueAt: number, expired: string[], name: string): Deadline {
  return { dueAt, expire: () => expired.push(name) };
}

describe('DeadlineWatch', () => {
  it('expires each deadline once, at its time, in due order, on one timer', async () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const expired: string[] = [];
    watch.watch(deadline(300, expired, 'c'));
    watch.watch(deadline(100, expired, 'a'));
    watch.watch(deadline(200, expired, 'b'));
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(99);
    expect(expired).toEqual([]);
    await clock.advance(1);
    expect(expired).toEqual(['a']);
    await clock.advance(200);
    expect(expired).toEqual(['a', 'b', 'c']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('finds a deadline that moved later not due yet, and expires it at its new time', async () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const expired: string[] = [];
    const moving = deadline(100, expired, 'moving');
    watch.watch(moving);
    await clock.advance(90);
    moving.dueAt = 190;
    watch.watch(moving);
    await clock.advance(99);
    expect(expired).toEqual([]);
    await clock.advance(1);
    expect(expired).toEqual(['moving']);
  });

  it('never expires a deadline that was unwatched, and leaves no timer on a clock that cannot release one', async () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const expired: string[] = [];
    const done = deadline(100, expired, 'done');
    watch.watch(done);
    watch.unwatch(done);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(1_000);
    expect(expired).toEqual([]);
  });

  it('keeps its timer while idle but lets the process exit (released), holding it again when a deadline is watched', () => {
    const events: string[] = [];
    const clock: Clock = {
      now: () => 0,
      setTimeout: () => () => undefined,
      holdableTimeout(): HoldableTimer {
        events.push('armed');
        return { cancel: () => events.push('cancelled'), hold: (held) => events.push(held ? 'held' : 'released') };
      },
    };
    const watch = new DeadlineWatch(clock);
    const first = deadline(100, [], 'first');
    watch.watch(first);
    watch.unwatch(first);
    const second = deadline(150, [], 'second');
    watch.watch(second);
    watch.unwatch(second);
    // One timer for both calls: armed once, never cancelled, released whenever nothing waits on it.
    expect(events).toEqual(['armed', 'released', 'held', 'released']);
  });
});
