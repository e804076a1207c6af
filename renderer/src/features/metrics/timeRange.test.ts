import { describe, expect, it } from 'vitest';
import { bucketFor, DAY_MS, HOUR_MS, MINUTE_MS, PRESET_SPAN_MS, wholeWindowBucketMs, windowOf } from './timeRange';

describe('bucketFor', () => {
  it('gives each preset its bucket and keeps custom ranges at 100 points or fewer', () => {
    expect(bucketFor(PRESET_SPAN_MS['15m'])).toBe(15_000);
    expect(bucketFor(PRESET_SPAN_MS['1h'])).toBe(MINUTE_MS);
    expect(bucketFor(PRESET_SPAN_MS['24h'])).toBe(15 * MINUTE_MS);
    expect(bucketFor(PRESET_SPAN_MS['7d'])).toBe(2 * HOUR_MS);
    expect(bucketFor(5 * MINUTE_MS)).toBe(5_000);
    expect(bucketFor(30 * DAY_MS)).toBe(12 * HOUR_MS);
    for (const span of [90_000, 7 * HOUR_MS, 3 * DAY_MS, 400 * DAY_MS]) expect(span / bucketFor(span)).toBeLessThanOrEqual(100);
  });
});

describe('windows', () => {
  it('anchors presets at now, keeps custom ranges, and sizes one bucket to span the whole window', () => {
    const now = 1_763_800_000_123;
    expect(windowOf({ key: '1h' }, now)).toEqual({ since: now - HOUR_MS, until: now });
    expect(windowOf({ key: 'all' }, now)).toEqual({ until: now });
    expect(windowOf({ key: 'custom', from: 5, to: 9 }, now)).toEqual({ since: 5, until: 9 });
    const bucket = wholeWindowBucketMs(now);
    expect(bucket % MINUTE_MS).toBe(0);
    expect(Math.floor((now - 1) / bucket)).toBe(Math.floor((now - 7 * DAY_MS) / bucket));
  });
});
