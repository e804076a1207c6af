import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../platform/Clock';

describe('systemClock', () => {
  afterEach(() => vi.useRealTimers());

  it('waits out a delay longer than a Node timer can hold (2^31−1 ms) instead of firing at once', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const thirtyDays = 30 * 86_400_000;
    systemClock.setTimeout(fired, thirtyDays);
    vi.advanceTimersByTime(thirtyDays - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('a canceled long delay never fires, whichever link of the chain is waiting', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const cancel = systemClock.setTimeout(fired, 60 * 86_400_000);
    vi.advanceTimersByTime(2 ** 31);
    cancel();
    vi.advanceTimersByTime(60 * 86_400_000);
    expect(fired).not.toHaveBeenCalled();
  });
});
