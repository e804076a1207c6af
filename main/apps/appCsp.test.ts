import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowAttribute, buildAppCsp, permissionsPolicy, refusedHost } from './appCsp';

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

const octet = fc.integer({ min: 0, max: 255 });
const scheme = fc.constantFrom('http', 'https', 'ws', 'wss');
const port = fc.option(fc.oneof(fc.integer({ min: 1, max: 65535 }).map(String), fc.constant('*')), { nil: undefined });
const origin = (s: string, host: string, p: string | undefined) => `${s}://${host}${p === undefined ? '' : `:${p}`}`;
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/).filter((l) => l !== 'localhost');
/** Top-level domains of public names (none of them local-network or wildcard DNS suffixes). */
const publicTld = fc.constantFrom('com', 'org', 'net', 'io', 'dev', 'example', 'co.uk');
const publicName = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), publicTld).map(([labels, tld]) => [...labels, tld].join('.'));

/** Every spelling of an IPv4 address the WHATWG URL parser reads back as that address. */
function spellings([a, b, c, d]: number[]): string[] {
  const n = ((a! << 24) | (b! << 16) | (c! << 8) | d!) >>> 0;
  return [`${a}.${b}.${c}.${d}`, String(n), `0x${n.toString(16)}`, `0${a!.toString(8)}.${b}.${c}.${d}`, `${a}.${(b! << 16) | (c! << 8) | d!}`, `${a}.${b}.${(c! << 8) | d!}`];
}

function connectSrc(value: string) {
  const { policy, warnings } = buildAppCsp({ csp: { connectDomains: [value] } }, options);
  return { sources: directives(policy).get('connect-src')!, warnings };
}

describe('the hosts an app may declare', () => {
  it('refuses a loopback, this-machine or link-local address in any spelling, scheme and port', () => {
    const local = fc.oneof(
      fc.tuple(fc.constant(127), octet, octet, octet),
      fc.tuple(fc.constant(0), octet, octet, octet),
      fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
    );
    fc.assert(
      fc.property(scheme, local, fc.nat(5), port, (s, address, form, p) => {
        const host = spellings(address)[form]!;
        const { sources, warnings } = connectSrc(origin(s, host, p));
        expect(sources).toEqual(["'none'"]);
        expect(warnings).toEqual([expect.stringMatching(/loopback|this machine|link-local/)]);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses every IPv6 literal, loopback and link-local (fe80::/10) included: CSP host sources have no IPv6 form', () => {
    const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    const ipv6 = fc.oneof(
      fc.constant('::1'),
      fc.constant('0:0:0:0:0:0:0:1'),
      fc.tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), hextet, hextet).map(([head, a, b]) => `${head.toString(16)}::${a}:${b}`),
      fc.tuple(octet, octet, octet, octet).map((address) => `::ffff:${address.join('.')}`),
    );
    fc.assert(
      fc.property(scheme, ipv6, port, (s, address, p) => {
        const { sources, warnings } = connectSrc(origin(s, `[${address}]`, p));
        expect(sources).toEqual(["'none'"]);
        expect(warnings).toEqual([expect.stringContaining('is not an origin')]);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses names that merely look local: localhost subdomains, local-network suffixes, single labels, embedded addresses, wildcard DNS', () => {
    const lookalike = fc.oneof(
      fc.array(label, { maxLength: 2 }).map((labels) => [...labels, 'localhost'].join('.')),
      fc.tuple(fc.array(label, { maxLength: 2 }), publicName).map(([labels, rest]) => [...labels, 'localhost', rest].join('.')),
      fc.tuple(fc.array(label, { maxLength: 2 }), fc.constantFrom('local', 'internal', 'localdomain', 'lan', 'home.arpa')).map(([labels, tld]) => [...labels, tld].join('.')),
      label,
      fc.tuple(fc.tuple(octet, octet, octet, octet), fc.constantFrom('.', '-'), fc.oneof(publicName, fc.constantFrom('nip.io', 'sslip.io'))).map(([ip, sep, rest]) => `${ip.join(sep)}.${rest}`),
      fc.tuple(fc.array(label, { maxLength: 2 }), fc.constantFrom('nip.io', 'sslip.io', 'localtest.me', 'lvh.me')).map(([labels, domain]) => [...labels, domain].join('.')),
    );
    fc.assert(
      fc.property(scheme, fc.boolean(), lookalike, port, (s, wildcard, host, p) => {
        const { sources, warnings } = connectSrc(origin(s, `${wildcard ? '*.' : ''}${host}`, p));
        expect(sources).toEqual(["'none'"]);
        expect(warnings).toHaveLength(1);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps public names, wildcards over them and public addresses as written', () => {
    const publicAddress = fc
      .tuple(fc.integer({ min: 1, max: 223 }), octet, octet, octet)
      .filter(([a, b]) => a !== 127 && !(a === 169 && b === 254))
      .filter((address) => address.join('.') !== '100.100.100.200' && address.join('.') !== '168.63.129.16')
      .map((address) => address.join('.'));
    fc.assert(
      fc.property(scheme, fc.oneof(publicName, publicName.map((name) => `*.${name}`), publicAddress), port, (s, host, p) => {
        const value = origin(s, host, p);
        expect(connectSrc(value)).toEqual({ sources: [value], warnings: [] });
      }),
      { numRuns: 500 },
    );
  });

  it('says why each reproduced lookalike is refused', () => {
    expect(refusedHost('127.0.0.1.nip.io', false)).toMatch(/nip\.io/);
    expect(refusedHost('evil.localhost', false)).toMatch(/loopback/);
    expect(refusedHost('localhost.attacker.example', false)).toMatch(/localhost label/);
    expect(refusedHost('localhost', true)).toMatch(/loopback/);
    expect(refusedHost('169.254.169.254', false)).toMatch(/link-local/);
    expect(refusedHost('2852039166', false)).toMatch(/link-local/);
    expect(refusedHost('metadata.google.internal', false)).toMatch(/local-network name \(\.internal\)/);
    expect(refusedHost('100.100.100.200', false)).toMatch(/metadata/);
    expect(refusedHost('0.0.1', true)).toMatch(/wildcard over address digits/);
    expect(refusedHost('com', true)).toMatch(/whole top-level domain/);
    expect(refusedHost('1.1', false)).toBe('is the address 1.0.0.1 written in another form');
    expect(refusedHost('api.weather.example', false)).toBeUndefined();
  });
});

describe('permissions', () => {
  it('delegates only what the resource asked for', () => {
    expect(allowAttribute({})).toBe('');
    expect(allowAttribute({ permissions: { camera: {}, clipboardWrite: {} } })).toBe('camera; clipboard-write');
    expect(permissionsPolicy({ permissions: { geolocation: {} } })).toBe('camera=(), microphone=(), geolocation=(self), clipboard-write=()');
  });
});
