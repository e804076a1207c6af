import { describe, expect, it } from 'vitest';
import { durationMs, parseDuration } from './duration';

describe('parseDuration (Orloj: runtime durations are Go duration strings)', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['250ms', 250],
    ['2h', 7_200_000],
    ['1.5h', 5_400_000],
    ['1h2m3s4ms', 3_723_004],
    ['.5s', 500],
    ['500us', 0.5],
    ['500µs', 0.5],
    ['1500ns', 0.0015],
    ['0', 0],
    ['-1m', -60_000],
    [' 45s ', 45_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each(['', '10', '1d', 's', '1m-30s', '1.2.3s', 'thirty seconds', '1 m'])('rejects %j with an example of what works', (text) => {
    expect(() => parseDuration(text)).toThrow(/Invalid duration .*e\.g\. "30s"/);
  });

  it('names the field when reading config', () => {
    expect(() => durationMs('soon', 'runtime.timeout')).toThrow(/^runtime\.timeout: Invalid duration "soon"/);
    expect(durationMs(1200, 'runtime.timeout')).toBe(1200);
  });
});
