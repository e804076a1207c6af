import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonicalJson';
import { isSecretKey, recordedArguments } from './recordedArguments';

describe('recordedArguments: what history keeps of a call', () => {
  it('masks secret-looking keys at any depth, case-insensitively', () => {
    const { json } = recordedArguments({
      query: 'open issues',
      apiKey: 'k-123',
      nested: { Authorization: 'Basic abc', refresh_token: 't', PASSWORD: 'p', list: [{ client_secret: 's' }] },
      max_tokens: 200,
    });
    expect(JSON.parse(json)).toEqual({
      query: 'open issues',
      apiKey: '***',
      nested: { Authorization: '***', refresh_token: '***', PASSWORD: '***', list: [{ client_secret: '***' }] },
      max_tokens: 200,
    });
  });

  it('masks bearer tokens passed as values under innocent keys', () => {
    expect(JSON.parse(recordedArguments({ header: 'Bearer eyJhbGciOi' }).json)).toEqual({ header: 'Bearer ***' });
  });

  it('recognizes the usual credential names', () => {
    for (const key of ['token', 'accessToken', 'x-auth-token', 'secret', 'api_key', 'X-API-KEY', 'passwd', 'privateKey', 'cookie', 'sessionId', 'credentials']) {
      expect(isSecretKey(key), key).toBe(true);
    }
    for (const key of ['max_tokens', 'author', 'title', 'keywords', 'session']) expect(isSecretKey(key), key).toBe(false);
  });

  it('reports the request size before masking', () => {
    const args = { password: 'a-very-long-password-indeed' };
    expect(recordedArguments(args).requestBytes).toBe(Buffer.byteLength(JSON.stringify(args)));
  });

  it('caps the JSON and keeps it valid JSON that says it was cut', () => {
    const args = { body: 'ü"'.repeat(50_000) };
    const { json, requestBytes } = recordedArguments(args, 64 * 1024);
    expect(Buffer.byteLength(json, 'utf8')).toBeLessThanOrEqual(64 * 1024);
    const parsed = JSON.parse(json) as { _truncated: boolean; originalBytes: number; preview: string };
    expect(parsed._truncated).toBe(true);
    expect(parsed.originalBytes).toBe(requestBytes);
    expect(JSON.stringify(args).startsWith(parsed.preview)).toBe(true);
    expect(parsed.preview.length).toBeGreaterThan(20_000);
  });

  it('cuts a capped preview before a secret the cap would split, so masking later finds it whole or not at all', () => {
    const secret = 'sk-live-0123456789abcdef';
    const text = 'x'.repeat(1_000) + secret + 'y'.repeat(100);
    // A cap that falls in the middle of the secret: without a safe end, its first characters stay.
    const cap = JSON.stringify({ _truncated: true, originalBytes: 0, preview: '' }).length + JSON.stringify({ text }).indexOf(secret) + 8 + 4;
    const safeEnd = (json: string, end: number) => {
      const at = json.indexOf(secret);
      return at !== -1 && at < end && end < at + secret.length ? at : end;
    };
    const unsafe = JSON.parse(recordedArguments({ text }, cap).json) as { preview: string };
    expect(unsafe.preview).toContain(secret.slice(0, 4));
    const safe = JSON.parse(recordedArguments({ text }, cap, safeEnd).json) as { preview: string };
    expect(safe.preview.endsWith('x')).toBe(true);
    expect(safe.preview).not.toContain(secret.slice(0, 2));
  });
});

describe('canonicalJson', () => {
  it('is independent of key order at every level, and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe(canonicalJson({ a: { c: null, d: [2, 1] }, b: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});
