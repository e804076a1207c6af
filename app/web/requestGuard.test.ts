import { describe, expect, it } from 'vitest';
import { allowedHosts, checkHostAndOrigin, presentedToken, tokensEqual } from './requestGuard';

describe('request guard', () => {
  it('allows only loopback names on the bound port', () => {
    expect([...allowedHosts(8080, '127.0.0.1')].sort()).toEqual(['127.0.0.1:8080', '[::1]:8080', 'localhost:8080']);
    expect(checkHostAndOrigin({ host: 'localhost:8080' }, 8080, '127.0.0.1')).toEqual({ ok: true });
    expect(checkHostAndOrigin({ host: 'rebind.attacker.test:8080' }, 8080, '127.0.0.1')).toMatchObject({ ok: false, status: 403 });
    expect(checkHostAndOrigin({}, 8080, '127.0.0.1')).toMatchObject({ ok: false });
  });

  it('requires the Origin, when sent, to be this very host', () => {
    expect(checkHostAndOrigin({ host: '127.0.0.1:1', origin: 'http://127.0.0.1:1' }, 1, '127.0.0.1').ok).toBe(true);
    expect(checkHostAndOrigin({ host: '127.0.0.1:1', origin: 'http://localhost:1' }, 1, '127.0.0.1').ok).toBe(false);
    expect(checkHostAndOrigin({ host: '127.0.0.1:1', origin: 'null' }, 1, '127.0.0.1').ok).toBe(false);
  });

  it('accepts IP literals but not names on a wildcard bind', () => {
    expect(checkHostAndOrigin({ host: '192.0.2.7:9000' }, 9000, '0.0.0.0').ok).toBe(true);
    expect(checkHostAndOrigin({ host: 'example.test:9000' }, 9000, '0.0.0.0').ok).toBe(false);
  });

  it('reads the token from a bearer header or the session cookie', () => {
    expect(presentedToken({ authorization: 'Bearer abc' })).toBe('abc');
    expect(presentedToken({ cookie: 'a=1; tooldeck_session=xyz' })).toBe('xyz');
    expect(presentedToken({})).toBeUndefined();
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abd')).toBe(false);
    expect(tokensEqual('abc', undefined)).toBe(false);
  });
});
