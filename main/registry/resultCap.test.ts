import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../shared/registry';
import { capToolResult, DEFAULT_MAX_TOOL_RESULT_BYTES } from './resultCap';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
const textResult = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });
const textOf = (result: ToolResult) => (result.content[0] as { text: string }).text;

/** A text result whose serialization is exactly `size` bytes, made of ASCII. */
function resultOfSize(size: number): ToolResult {
  return textResult('a'.repeat(size - bytes(textResult(''))));
}

describe('capToolResult (Clawdapus: max_tool_result_bytes, default 16,384, truncated: true)', () => {
  const limit = 1000;

  it('leaves a result of limit-1 and of exactly limit bytes untouched', () => {
    for (const size of [limit - 1, limit]) {
      const result = resultOfSize(size);
      expect(bytes(result)).toBe(size);
      const capped = capToolResult(result, limit);
      expect(capped).toEqual({ result, truncated: false, originalBytes: size });
      expect(capped.result).toBe(result);
    }
  });

  it('cuts a result of limit+1 bytes to at most limit, flagged, keeping a prefix of the text', () => {
    const result = resultOfSize(limit + 1);
    const capped = capToolResult(result, limit);
    expect(capped.truncated).toBe(true);
    expect(capped.originalBytes).toBe(limit + 1);
    expect(capped.result.truncated).toBe(true);
    expect(bytes(capped.result)).toBeLessThanOrEqual(limit);
    expect(textOf(result).startsWith(textOf(capped.result))).toBe(true);
    // `,"truncated":true` costs 17 bytes, so 18 characters had to go.
    expect(textOf(capped.result).length).toBe(textOf(result).length - 18);
  });

  it('measures bytes, not characters, and never splits a code point', () => {
    for (const filler of ['é', '€', '😀']) {
      for (let shift = 0; shift < 4; shift++) {
        const result = textResult('x'.repeat(shift) + filler.repeat(600));
        const capped = capToolResult(result, limit);
        expect(capped.truncated).toBe(true);
        const kept = textOf(capped.result);
        expect(bytes(capped.result)).toBeLessThanOrEqual(limit);
        expect(kept.isWellFormed()).toBe(true);
        expect(textOf(result).startsWith(kept)).toBe(true);
        // Maximal: the next code point would not have fitted.
        const next = String.fromCodePoint(textOf(result).codePointAt(kept.length)!);
        expect(bytes(capped.result) + Buffer.byteLength(next, 'utf8')).toBeGreaterThan(limit);
      }
    }
  });

  it('counts JSON escapes (quotes, backslashes, newlines, control characters) against the limit', () => {
    const result = textResult('say "hi"\\\n\u0001'.repeat(200));
    const capped = capToolResult(result, limit);
    expect(bytes(capped.result)).toBeLessThanOrEqual(limit);
    expect(bytes(capped.result)).toBeGreaterThan(limit - 6);
    expect(textOf(result).startsWith(textOf(capped.result))).toBe(true);
  });

  it('drops everything after the part that had to be cut', () => {
    const result: ToolResult = {
      content: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'b'.repeat(2000) },
        { type: 'text', text: 'third' },
      ],
    };
    const capped = capToolResult(result, limit);
    expect(capped.result.content).toHaveLength(2);
    expect(capped.result.content[0]).toEqual({ type: 'text', text: 'first' });
    expect(bytes(capped.result)).toBeLessThanOrEqual(limit);
  });

  it('replaces a binary part that does not fit by a note with its type and size, and keeps later parts', () => {
    const image = Buffer.alloc(3000, 7).toString('base64');
    const result: ToolResult = {
      content: [
        { type: 'image', data: image, mimeType: 'image/png' },
        { type: 'text', text: 'caption' },
      ],
      isError: false,
    };
    const capped = capToolResult(result, limit);
    expect(capped.result).toEqual({
      content: [
        { type: 'text', text: '[image image/png omitted: 3000 bytes]' },
        { type: 'text', text: 'caption' },
      ],
      isError: false,
      truncated: true,
    });
  });

  it('cuts an embedded text resource like text and notes an embedded blob', () => {
    const result: ToolResult = {
      content: [
        { type: 'resource', resource: { uri: 'file:///big.bin', mimeType: 'application/octet-stream', blob: 'A'.repeat(4000) } },
        { type: 'resource', resource: { uri: 'file:///log.txt', mimeType: 'text/plain', text: 'line\n'.repeat(500) } },
      ],
    };
    const capped = capToolResult(result, limit);
    expect(capped.result.content[0]).toEqual({ type: 'text', text: '[resource application/octet-stream omitted: 3000 bytes]' });
    const log = capped.result.content[1] as { resource: { uri: string; text: string } };
    expect(log.resource.uri).toBe('file:///log.txt');
    expect('line\n'.repeat(500).startsWith(log.resource.text)).toBe(true);
    expect(bytes(capped.result)).toBeLessThanOrEqual(limit);
  });

  it('keeps structuredContent only whole: kept when it fits, otherwise omitted with a note', () => {
    const small = { ok: true, items: [1, 2, 3] };
    const fits = capToolResult({ content: [{ type: 'image', data: 'A'.repeat(2000), mimeType: 'image/gif' }], structuredContent: small }, limit);
    expect(fits.result.structuredContent).toEqual(small);

    const big = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` })) };
    const omitted = capToolResult({ content: [{ type: 'text', text: 'summary' }], structuredContent: big }, limit);
    expect(omitted.result.structuredContent).toBeUndefined();
    expect(omitted.result.content).toEqual([
      { type: 'text', text: 'summary' },
      { type: 'text', text: `[structuredContent omitted: ${bytes(big)} bytes]` },
    ]);
  });

  it('defaults to 16,384 bytes', () => {
    expect(DEFAULT_MAX_TOOL_RESULT_BYTES).toBe(16_384);
    const capped = capToolResult(textResult('z'.repeat(20_000)));
    expect(capped.truncated).toBe(true);
    expect(bytes(capped.result)).toBeLessThanOrEqual(16_384);
    expect(bytes(capped.result)).toBeGreaterThan(16_300);
  });
});
