import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonByteLength, jsonStringByteLength } from './jsonByteLength';

const serialized = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('jsonByteLength', () => {
  it('equals the UTF-8 length of JSON.stringify for any string, escapes, emoji and lone surrogates included (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\n', '\u0001', '\u007f', 'é', '€', '😀', '\ud800', '\udc00'), fc.string({ maxLength: 1 })) }), (text) => {
        expect(jsonStringByteLength(text)).toBe(serialized(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('equals it for whole results, large strings measured rather than copied', () => {
    const big = `${'x'.repeat(100_000)}"\\é😀\n`;
    const result = { content: [{ type: 'text', text: big }, { type: 'text', text: 'small' }], structuredContent: { note: big, n: 1 } };
    expect(jsonByteLength(result)).toBe(serialized(result));
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonByteLength(value)).toBe(serialized(value));
      }),
      { numRuns: 1_000 },
    );
  });
});
