import { describe, expect, it } from 'vitest';
import { safeCutEnd, SecretRedactor } from './SecretRedactor';

describe('SecretRedactor', () => {
  it('masks every occurrence, longest first, in text, values and keys', () => {
    const redactor = new SecretRedactor(['abcd', 'abcdef']);
    expect(redactor.text('x abcdef y abcd')).toBe('x *** y ***');
    expect(redactor.value({ 'k-abcd': ['abcdef!'] })).toEqual({ 'k-***': ['***!'] });
  });

  it('also masks the credential inside a stored value and its URL-encoded form', () => {
    const redactor = new SecretRedactor(['Bearer tok-1234', 'sid=cook-5678; theme=dark', 'postgres://u:p%40ss-9999@db/x', '["q-1 2 3"]'], { minLength: 4 });
    expect(redactor.text('token tok-1234, cookie cook-5678, password p@ss-9999 or p%40ss-9999, query q-1%202%203')).toBe('token ***, cookie ***, password *** or ***, query ***');
    expect(redactor.text('theme=dark')).toBe('theme=dark');
  });

  it('ignores values below its minimum length', () => {
    expect(new SecretRedactor(['ab'], { minLength: 4 }).text('ab cab')).toBe('ab cab');
    expect(new SecretRedactor([]).text('anything')).toBe('anything');
  });

  it('moves a cut that would split a secret to the start of it, and leaves other cuts alone', () => {
    const redactor = new SecretRedactor(['abcdefgh', 'p@ss-word'], { minLength: 4 });
    expect(redactor.safeEnd('0123abcdefgh', 6)).toBe(4);
    expect(redactor.safeEnd('0123abcdefgh', 4)).toBe(4);
    expect(redactor.safeEnd('0123abcdefgh', 12)).toBe(12);
    expect(redactor.safeEnd('0123abcdefgh', 50)).toBe(12);
    expect(redactor.safeEnd('abcdefgh', 3)).toBe(0);
    // An occurrence after the cut, or a different value, does not move it.
    expect(redactor.safeEnd('0123456789abcdefgh', 6)).toBe(6);
    expect(redactor.safeEnd('0123abcdXfgh', 6)).toBe(6);
    // The URL-encoded form is a secret too.
    expect(redactor.safeEnd('q=p%40ss-word', 6)).toBe(2);
  });

  it('keeps moving the cut while it lands inside another occurrence', () => {
    // Overlapping occurrences, listed so that one pass over the values is not enough: the cut at 9
    // moves to "efgh" (6), which splits "cdef" (to 4), which splits "abcd" (to 2).
    expect(safeCutEnd('xxabcdefgh', 9, ['abcd', 'cdef', 'efgh'])).toBe(2);
    expect(safeCutEnd('xxabcdefgh', 9, ['efgh'])).toBe(6);
    expect(safeCutEnd('anything', 3, [])).toBe(3);
  });
});
