import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrivalSchedule } from './ArrivalSchedule';

const schedules = fc
  .record({ rps: fc.double({ min: 0.5, max: 5_000, noNaN: true }), durationMs: fc.integer({ min: 1_000, max: 120_000 }), rampShare: fc.double({ min: 0, max: 0.95, noNaN: true }) })
  .map(({ rps, durationMs, rampShare }) => new ArrivalSchedule(rps, durationMs, Math.floor(durationMs * rampShare)));

describe('ArrivalSchedule', () => {
  it('spaces a constant rate evenly, the first arrival at 0', () => {
    const s = new ArrivalSchedule(10, 2_000);
    expect(s.total).toBe(20);
    expect([0, 1, 2, 19].map((k) => s.offset(k))).toEqual([0, 100, 200, 1_900]);
    expect(s.dueBy(0)).toBe(1);
    expect(s.dueBy(99.9)).toBe(1);
    expect(s.dueBy(100)).toBe(2);
    expect(s.dueBy(10_000)).toBe(20);
  });

  it('climbs linearly during the ramp-up: half the arrivals of the same time at full rate', () => {
    const s = new ArrivalSchedule(100, 2_000, 1_000);
    expect(s.total).toBe(150);
    expect(s.dueBy(999.999)).toBe(50);
    expect(s.dueBy(1_999.999)).toBe(150);
    expect(s.dueBy(500)).toBe(13); // 100·0.5²/2 = 12.5 → arrivals 0…12
  });

  it('property: offsets rise, every arrival is due within the duration, and the count matches the rate asked', () => {
    fc.assert(
      fc.property(schedules, (s) => {
        for (let k = 1; k < Math.min(s.total, 2_000); k++) expect(s.offset(k)).toBeGreaterThan(s.offset(k - 1));
        expect(s.offset(s.total - 1)).toBeLessThan(s.durationMs);
        expect(s.offset(s.total)).toBeGreaterThanOrEqual(s.durationMs);
        expect(Math.abs(s.total - s.cumulative(s.durationMs))).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('property: dueBy counts exactly the arrivals whose offset is at or before the time', () => {
    fc.assert(
      fc.property(schedules, fc.double({ min: 0, max: 1, noNaN: true }), (s, share) => {
        const t = s.durationMs * share;
        const due = s.dueBy(t);
        if (due > 0) expect(s.offset(due - 1)).toBeLessThanOrEqual(t);
        if (due < s.total) expect(s.offset(due)).toBeGreaterThan(t);
      }),
    );
  });
});
