import { describe, expect, it } from 'vitest';
import { SecretRedactor } from './SecretRedactor';

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
});
