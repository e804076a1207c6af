import { describe, expect, it } from 'vitest';
import { durationMs, formatDuration, parseDuration } from './duration';

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

describe('formatDuration (a spec ttl as Orloj writes it)', () => {
  it('leaves out zero units and reads back as the same duration', () => {
    expect(formatDuration(10 * 60_000)).toBe('10m');
    expect(formatDuration(90 * 60_000)).toBe('1h30m');
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(1500)).toBe('1500ms');
    expect(formatDuration(0)).toBe('0s');
    for (const ms of [1, 999, 61_000, 3_600_000, 3_723_000]) expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});
