import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowAttribute, buildAppCsp, permissionsPolicy } from './appCsp';

const options = { hostOrigin: 'http://127.0.0.1:5173', reportUri: '/app/abc/csp' };
const directives = (policy: string) => new Map(policy.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));

describe('buildAppCsp', () => {
  it('allows nothing beyond the bundle itself when the app declares nothing', () => {
    const { policy, warnings } = buildAppCsp({}, options);
    const d = directives(policy);
    expect(d.get('default-src')).toEqual(["'none'"]);
    expect(d.get('connect-src')).toEqual(["'none'"]);
    expect(d.get('frame-src')).toEqual(["'none'"]);
    expect(d.get('script-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(d.get('frame-ancestors')).toEqual(['http://127.0.0.1:5173']);
    expect(d.get('report-uri')).toEqual(['/app/abc/csp']);
    expect(warnings).toEqual([]);
  });

  it('maps each declared domain list onto its directives', () => {
    const { policy } = buildAppCsp(
      { csp: { connectDomains: ['https://api.weather.example', 'wss://live.example:8443'], resourceDomains: ['https://*.cdn.example'], frameDomains: ['https://www.youtube.com'], baseUriDomains: ['https://base.example/'] } },
      options,
    );
    const d = directives(policy);
    expect(d.get('connect-src')).toEqual(['https://api.weather.example', 'wss://live.example:8443']);
    expect(d.get('img-src')).toEqual(["'self'", 'data:', 'blob:', 'https://*.cdn.example']);
    expect(d.get('script-src')).toContain('https://*.cdn.example');
    expect(d.get('frame-src')).toEqual(['https://www.youtube.com']);
    expect(d.get('base-uri')).toEqual(['https://base.example']);
  });

  it('refuses keywords, paths, injected directives and loopback origins, saying why', () => {
    const { policy, warnings } = buildAppCsp({ csp: { connectDomains: ["'unsafe-eval'", '*', 'https://ok.example; script-src *', 'http://127.0.0.1:9999', 'http://localhost', 'https://ok.example/path', 'data:'] } }, options);
    expect(directives(policy).get('connect-src')).toEqual(["'none'"]);
    expect(warnings).toHaveLength(7);
    expect(warnings.filter((w) => w.includes('loopback'))).toHaveLength(2);
  });

  it('never lets a declared value add a directive or a source outside its list', () => {
    const base = directives(buildAppCsp({}, options).policy);
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 6 }), fc.array(fc.string({ maxLength: 40 }), { maxLength: 6 }), (connectDomains, resourceDomains) => {
        const d = directives(buildAppCsp({ csp: { connectDomains, resourceDomains } }, options).policy);
        expect([...d.keys()]).toEqual([...base.keys()]);
        for (const source of [...d.get('connect-src')!, ...d.get('img-src')!]) expect(source).toMatch(/^('none'|'self'|data:|blob:|(https?|wss?):\/\/[^\s;,']+)$/);
      }),
      { numRuns: 500 },
    );
  });
});

describe('permissions', () => {
  it('delegates only what the resource asked for', () => {
    expect(allowAttribute({})).toBe('');
    expect(allowAttribute({ permissions: { camera: {}, clipboardWrite: {} } })).toBe('camera; clipboard-write');
    expect(permissionsPolicy({ permissions: { geolocation: {} } })).toBe('camera=(), microphone=(), geolocation=(self), clipboard-write=()');
  });
});
