import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoadOptions, parseThreshold, THRESHOLD_METRICS } from './loadRuns';

describe('parseThreshold', () => {
  it('reads latencies in ms (the default), s and us, rates in % and counts as numbers', () => {
    expect(parseThreshold('p95<200ms')).toEqual({ expression: 'p95<200ms', metric: 'p95', operator: '<', value: 200 });
    expect(parseThreshold(' p99.9 <= 1.5s ')).toMatchObject({ metric: 'p99.9', operator: '<=', value: 1_500 });
    expect(parseThreshold('p999<800us')).toMatchObject({ metric: 'p99.9', value: 0.8 });
    expect(parseThreshold('p50<20')).toMatchObject({ value: 20 });
    expect(parseThreshold('error_rate<1%')).toMatchObject({ metric: 'error_rate', value: 0.01 });
    expect(parseThreshold('error_rate<=0.05')).toMatchObject({ value: 0.05 });
    expect(parseThreshold('rps>=45')).toMatchObject({ metric: 'rps', operator: '>=', value: 45 });
    expect(parseThreshold('errors<1')).toMatchObject({ metric: 'errors', value: 1 });
  });

  it('says in one sentence what is wrong', () => {
    expect(parseThreshold('p95 under 200')).toEqual({ error: expect.stringContaining('write <metric><op><value>') });
    expect(parseThreshold('p42<1ms')).toEqual({ error: expect.stringContaining('"p42" is not a metric') });
    expect(parseThreshold('p95<5%')).toEqual({ error: expect.stringContaining('is a latency') });
    expect(parseThreshold('error_rate<5ms')).toEqual({ error: expect.stringContaining('share of the requests') });
    expect(parseThreshold('error_rate<150%')).toEqual({ error: expect.stringContaining('above 100%') });
    expect(parseThreshold('rps>10ms')).toEqual({ error: expect.stringContaining('plain number') });
  });

  it('property: any text either parses into a known metric with a finite value or gets a message, never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.tuple(fc.constantFrom(...THRESHOLD_METRICS, 'p999', 'P95'), fc.constantFrom('<', '<=', '>', '>=', '=', '=='), fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom('', 'ms', 's', 'us', '%', 'x')).map(([m, o, v, u]) => `${m}${o}${v}${u}`)), (text) => {
        const parsed = parseThreshold(text);
        if ('error' in parsed) expect(parsed.error.length).toBeGreaterThan(10);
        else {
          expect(THRESHOLD_METRICS).toContain(parsed.metric);
          expect(Number.isFinite(parsed.value)).toBe(true);
        }
      }),
    );
  });
});

describe('LoadOptions', () => {
  it('defaults the concurrency and ramp-up and refuses a ramp-up as long as the run', () => {
    expect(LoadOptions.parse({ rps: 5, durationMs: 30_000 })).toMatchObject({ concurrency: 100, rampUpMs: 0, thresholds: [] });
    expect(LoadOptions.safeParse({ rps: 5, durationMs: 10_000, rampUpMs: 10_000 }).error?.issues[0]?.message).toBe('the ramp-up must be shorter than the duration');
    expect(LoadOptions.safeParse({ rps: 5, durationMs: 10_000, thresholds: ['p95 < fast'] }).error?.issues[0]?.message).toContain('is not a threshold');
  });
});
