import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStderrLogger } from './Logger';

afterEach(() => vi.restoreAllMocks());

describe('createStderrLogger', () => {
  it('writes a message quoting hostile text as JSON a terminal cannot act on (C1 controls and bidi overrides escaped too)', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const hostile = 'tool\u001b]0;pwned\u0007\u009b2J\u0085\u202e\u2066\u200b';
    createStderrLogger('warn').warn(`cannot reconcile ${hostile}`, { name: hostile });
    expect(lines).toHaveLength(1);
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(lines[0]).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', message: `cannot reconcile ${hostile}`, name: hostile });
  });
});
