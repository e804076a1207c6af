import fc from 'fast-check';
import { Counter, Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { readPrometheusText } from './prometheusText';

const WANTED = new Set(['calls_total', 'held']);
const labelsOf = (reading: ReturnType<typeof readPrometheusText>) => reading.samples.map((s) => ({ name: s.name, labels: Object.fromEntries(s.labels), value: s.value }));

describe('readPrometheusText', () => {
  it('reads the wanted series of prom-client output back, label escapes included, and nothing else', async () => {
    const registry = new Registry();
    const calls = new Counter({ name: 'calls_total', help: 'calls', labelNames: ['agent'], registers: [registry] });
    const held = new Gauge({ name: 'held', help: 'held "now"\nsecond line', labelNames: ['agent'], registers: [registry] });
    new Counter({ name: 'other_total', help: 'not wanted', registers: [registry] }).inc(5);
    const hostile = 'a"b\\c\nd}{,=';
    calls.inc({ agent: 'builder' }, 3);
    calls.inc({ agent: hostile });
    held.set({ agent: 'builder' }, 2);
    const reading = readPrometheusText(await registry.metrics(), WANTED);
    expect(reading.malformed).toBe(0);
    expect(labelsOf(reading)).toEqual([
      { name: 'calls_total', labels: { agent: 'builder' }, value: 3 },
      { name: 'calls_total', labels: { agent: hostile }, value: 1 },
      { name: 'held', labels: { agent: 'builder' }, value: 2 },
    ]);
  });

  it('reads the text format’s other forms: no labels, trailing comma, timestamps, CRLF, special values', () => {
    const text = ['calls_total 4', 'calls_total{agent="x",} 1e3 1700000000000', 'held{agent="y"} NaN\r', 'held{agent="z"} +Inf', 'held{agent="w"} -0.5', '# calls_total{agent="commented"} 9', '  '].join('\n');
    const reading = readPrometheusText(text, WANTED);
    expect(reading.malformed).toBe(0);
    expect(labelsOf(reading)).toEqual([
      { name: 'calls_total', labels: {}, value: 4 },
      { name: 'calls_total', labels: { agent: 'x' }, value: 1000 },
      { name: 'held', labels: { agent: 'y' }, value: NaN },
      { name: 'held', labels: { agent: 'z' }, value: Infinity },
      { name: 'held', labels: { agent: 'w' }, value: -0.5 },
    ]);
  });

  it('skips and counts each unreadable line of a wanted series, keeping the good ones; ignores other lines unread', () => {
    const bad = [
      'calls_total{agent="x"} 1 2 3',
      'calls_total{agent="x" 1',
      'calls_total{agent="x\\q"} 1',
      'calls_total{agent=x} 1',
      'calls_total{agent="x",agent="y"} 1',
      'calls_total{1agent="x"} 1',
      'calls_total{agent="x"}1',
      'calls_total{agent="x"} 0x10',
      'calls_total{agent="x"} ',
      'calls_total',
      'calls_total{agent="unterminated} 1',
    ];
    const text = [...bad, 'calls_total{agent="good"} 7', 'unwanted{{{ garbage', '{"kind":"Status"}'].join('\n');
    const reading = readPrometheusText(text, WANTED);
    expect(reading.malformed).toBe(bad.length);
    expect(labelsOf(reading)).toEqual([{ name: 'calls_total', labels: { agent: 'good' }, value: 7 }]);
  });

  it('keeps label names as data: __proto__ and constructor are labels, never properties', () => {
    const reading = readPrometheusText('calls_total{__proto__="p",constructor="c"} 1', WANTED);
    expect(reading.samples[0]!.labels.get('__proto__')).toBe('p');
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });

  it('bounds what it keeps: samples, labels per sample, label value length', () => {
    const many = Array.from({ length: 50 }, (_, i) => `calls_total{agent="a${i}"} 1`).join('\n');
    expect(readPrometheusText(many, WANTED, { maxSamples: 10 })).toMatchObject({ dropped: 40, malformed: 0 });
    expect(readPrometheusText(many, WANTED, { maxSamples: 10 }).samples).toHaveLength(10);
    const wide = `calls_total{${Array.from({ length: 20 }, (_, i) => `l${i}="v"`).join(',')}} 1`;
    expect(readPrometheusText(wide, WANTED, { maxLabels: 16 })).toMatchObject({ samples: [], malformed: 1 });
    const long = `calls_total{agent="${'x'.repeat(2_000)}"} 1`;
    expect(readPrometheusText(long, WANTED, { maxLabelValueLength: 1_024 })).toMatchObject({ samples: [], malformed: 1 });
  });

  it('never throws and never keeps more than asked on arbitrary text (hand-written hostile input, generated)', () => {
    const fragment = fc.oneof(
      fc.constantFrom('calls_total', 'held', '{', '}', '"', '\\', '\\"', '\\n', ',', '=', ' ', '\t', '\n', '\r', '#', 'agent', '1', '-', '+Inf', 'NaN', 'e', '.', '__proto__'),
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 200 }), fc.integer({ min: 0, max: 5 }), (parts, maxSamples) => {
        const reading = readPrometheusText(parts.join(''), WANTED, { maxSamples, maxLabels: 4, maxLabelValueLength: 16 });
        expect(reading.samples.length).toBeLessThanOrEqual(maxSamples);
        for (const sample of reading.samples) {
          expect(WANTED.has(sample.name)).toBe(true);
          expect(sample.labels.size).toBeLessThanOrEqual(4);
          for (const value of sample.labels.values()) expect(value.length).toBeLessThanOrEqual(16);
          expect(typeof sample.value).toBe('number');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reads back any label value prom-client writes (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), fc.integer({ min: 0, max: 1_000_000 }), async (agent, count) => {
        const registry = new Registry();
        new Counter({ name: 'calls_total', help: 'calls', labelNames: ['agent'], registers: [registry] }).inc({ agent }, count);
        const reading = readPrometheusText(await registry.metrics(), WANTED);
        expect(labelsOf(reading)).toEqual([{ name: 'calls_total', labels: { agent }, value: count }]);
      }),
      { numRuns: 200 },
    );
  });

  it('stays linear on a long hostile line (a megabyte of one label value)', () => {
    const line = `calls_total{agent="${'\\\\'.repeat(512 * 1024)}"} 1`;
    const reading = readPrometheusText(line, WANTED);
    expect(reading).toMatchObject({ samples: [], malformed: 1 });
  });
});
