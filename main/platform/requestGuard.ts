import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Request bodies above this size get 413 before they are read (default of `tooldeck serve
 * --max-body-mib`). 8 MiB holds any real tool argument; a page that streams more is refused, so the
 * server's memory stays bounded whoever sends it.
 */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]';
}

const isWildcardHost = (host: string) => host === '0.0.0.0' || host === '::';

/**
 * The host to print in a server's URL: a wildcard bind is reached on loopback; an IPv6 literal
 * goes in brackets.
 */
export function urlHostFor(boundHost: string): string {
  return isWildcardHost(boundHost) ? '127.0.0.1' : boundHost.includes(':') ? `[${boundHost}]` : boundHost;
}

/**
 * The Host values this server answers to. Loopback names on the bound port always; when the user
 * deliberately binds elsewhere, also that address. A DNS-rebinding page reaches us under its own
 * domain name, which is never on this list.
 */
export function allowedHosts(port: number, boundHost: string): Set<string> {
  const hosts = new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
  if (!isLoopbackHost(boundHost) && !isWildcardHost(boundHost)) {
    hosts.add(`${isIP(boundHost) === 6 ? `[${boundHost}]` : boundHost}:${port}`);
  }
  return hosts;
}

export interface GuardedHeaders {
  host?: string;
  origin?: string;
  'sec-fetch-site'?: string;
  'sec-fetch-mode'?: string;
  'sec-fetch-dest'?: string;
}

export type GuardVerdict = { ok: true } | { ok: false; status: 403; reason: string };

/**
 * Host and Origin checks, applied to every request, static or API. With a wildcard bind the user
 * reaches us by IP literal; IP literals cannot be rebound, so they are accepted on the port.
 */
export function checkHostAndOrigin(headers: GuardedHeaders, port: number, boundHost: string, extraNames: readonly string[] = []): GuardVerdict {
  const hosts = allowedHosts(port, boundHost);
  // Names the operator gave on purpose (a Kubernetes Service's DNS names), on this port only.
  for (const name of extraNames) hosts.add(`${name.toLowerCase()}:${port}`);
  const host = headers.host?.toLowerCase();
  const wildcard = isWildcardHost(boundHost);
  const hostOk = !!host && (hosts.has(host) || (wildcard && isIpLiteralOnPort(host, port)));
  if (!hostOk) return { ok: false, status: 403, reason: `Host "${headers.host ?? ''}" is not allowed` };
  if (headers.origin !== undefined && headers.origin !== `http://${host}`) {
    return { ok: false, status: 403, reason: `Origin "${headers.origin}" is not allowed` };
  }
  return { ok: true };
}

/**
 * Browsers label every request with where it comes from (`Sec-Fetch-Site`), subresources and
 * no-cors fetches included. Every port of 127.0.0.1 is the *same site* as the console, so
 * `same-site` is as foreign as `cross-site`. Only the console's own pages (`same-origin`) and
 * requests no page made (`none`: the address bar, a bookmark; absent: curl, scripts) get through —
 * and for the static shell, a top-level navigation, which runs nothing but the console itself.
 */
export function checkFetchSite(headers: GuardedHeaders, target: 'api' | 'static'): GuardVerdict {
  const site = headers['sec-fetch-site']?.toLowerCase();
  if (site === undefined || site === 'same-origin' || site === 'none') return { ok: true };
  const navigation = headers['sec-fetch-mode'] === 'navigate' && headers['sec-fetch-dest'] === 'document';
  if (target === 'static' && navigation) return { ok: true };
  return { ok: false, status: 403, reason: `Requests from another site (Sec-Fetch-Site: ${site}) are refused` };
}

function isIpLiteralOnPort(host: string, port: number): boolean {
  const match = /^(\[[0-9a-f:.]+\]|[0-9.]+):(\d+)$/.exec(host);
  if (!match || Number(match[2]) !== port) return false;
  return isIP(match[1]!.replace(/^\[|\]$/g, '')) !== 0;
}

export function tokensEqual(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The token travels only as `Authorization: Bearer …`, a header no `<img>`, `<form>`, `<script>` or
 * no-cors fetch can set, and that a cross-origin page can only send after a CORS preflight this
 * server never grants. Cookies are ignored: browsers send them to every port of the host.
 */
export function presentedToken(headers: { authorization?: string }): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return bearer?.[1];
}

/** `Content-Length` above the cap: refused before a byte of the body is read. */
export function declaredBodyTooLarge(headers: { 'content-length'?: string }, maxBytes: number): boolean {
  const declared = headers['content-length'];
  return declared !== undefined && Number(declared) > maxBytes;
}
