import { describe, expect, it } from 'vitest';
import { formatClock } from './format';

describe('formatClock', () => {
  const at = new Date(2026, 0, 2, 3, 4, 5, 42).getTime();

  it('writes a fixed HH:MM:SS.mmm in local time whatever the locale', () => {
    expect(formatClock(at, 'fixed')).toBe('03:04:05.042');
    expect(formatClock(at, 'fixed').slice(0, 8)).toBe('03:04:05');
  });

  it("writes the locale's 24-hour time by default, with the milliseconds padded to three digits", () => {
    expect(formatClock(at)).toBe(`${new Date(at).toLocaleTimeString(undefined, { hour12: false })}.042`);
    expect(formatClock(at + 958)).toMatch(/\.000$/);
  });
});
