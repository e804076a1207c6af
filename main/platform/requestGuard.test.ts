import { describe, expect, it } from 'vitest';
import { allowedHosts, checkFetchSite, checkHostAndOrigin, declaredBodyTooLarge, presentedToken, tokensEqual } from './requestGuard';

describe('request guard', () => {
  it('allows only loopback names on the bound port', () => {
    expect([...allowedHosts(8080, '127.0.0.1')].sort()).toEqual(['127.0.0.1:8080', '[::1]:8080', 'localhost:8080']);
    expect(checkHostAndOrigin({ host: 'localhost:8080' }, 8080, '127.0.0.1')).toEqual({ ok: true });
    expect(checkHostAndOrigin({ host: 'rebind.attacker.test:8080' }, 8080, '127.0.0.1')).toMatchObject({ ok: false, status: 403 });
    // Names given on purpose (a Service's DNS names) pass on the bound port only; others still do not.
    const service = ['tooldeck-gateway.tooldeck-system.svc.cluster.local'];
    expect(checkHostAndOrigin({ host: 'tooldeck-gateway.tooldeck-system.svc.cluster.local:7411' }, 7411, '0.0.0.0', service)).toEqual({ ok: true });
    expect(checkHostAndOrigin({ host: 'tooldeck-gateway.tooldeck-system.svc.cluster.local:80' }, 7411, '0.0.0.0', service)).toMatchObject({ ok: false, status: 403 });
    expect(checkHostAndOrigin({ host: 'rebind.attacker.test:7411' }, 7411, '0.0.0.0', service)).toMatchObject({ ok: false, status: 403 });
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

  it('reads the token from the bearer header only, never a cookie', () => {
    expect(presentedToken({ authorization: 'Bearer abc' })).toBe('abc');
    expect(presentedToken({ authorization: 'bearer  abc ' })).toBe('abc');
    expect(presentedToken({ cookie: 'a=1; tooldeck_session=xyz' } as never)).toBeUndefined();
    expect(presentedToken({ authorization: 'Basic abc' })).toBeUndefined();
    expect(presentedToken({})).toBeUndefined();
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abd')).toBe(false);
    expect(tokensEqual('abc', undefined)).toBe(false);
  });

  it('refuses other sites, other ports of 127.0.0.1 included, except top-level navigations to the shell', () => {
    for (const target of ['api', 'static'] as const) {
      expect(checkFetchSite({}, target).ok).toBe(true);
      expect(checkFetchSite({ 'sec-fetch-site': 'same-origin' }, target).ok).toBe(true);
      expect(checkFetchSite({ 'sec-fetch-site': 'none' }, target).ok).toBe(true);
      expect(checkFetchSite({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }, target)).toMatchObject({ ok: false, status: 403 });
      expect(checkFetchSite({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' }, target)).toMatchObject({ ok: false, status: 403 });
    }
    const navigation = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    expect(checkFetchSite(navigation, 'static').ok).toBe(true);
    expect(checkFetchSite(navigation, 'api').ok).toBe(false);
    expect(checkFetchSite({ ...navigation, 'sec-fetch-dest': 'iframe' }, 'static').ok).toBe(false);
  });

  it('judges a declared body size before reading it', () => {
    expect(declaredBodyTooLarge({ 'content-length': '9' }, 8)).toBe(true);
    expect(declaredBodyTooLarge({ 'content-length': '8' }, 8)).toBe(false);
    expect(declaredBodyTooLarge({}, 8)).toBe(false);
  });
});
