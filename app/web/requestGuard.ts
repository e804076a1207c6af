import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

export const SESSION_COOKIE = 'tooldeck_session';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]';
}

/**
 * The Host values this server answers to. Loopback names on the bound port always; when the user
 * deliberately binds elsewhere, also that address. A DNS-rebinding page reaches us under its own
 * domain name, which is never on this list.
 */
export function allowedHosts(port: number, boundHost: string): Set<string> {
  const hosts = new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
  if (!isLoopbackHost(boundHost) && boundHost !== '0.0.0.0' && boundHost !== '::') {
    hosts.add(`${isIP(boundHost) === 6 ? `[${boundHost}]` : boundHost}:${port}`);
  }
  return hosts;
}

export type GuardVerdict = { ok: true } | { ok: false; status: 403; reason: string };

/**
 * Host and Origin checks, applied to every request, static or API. With a wildcard bind the user
 * reaches us by IP literal; IP literals cannot be rebound, so they are accepted on the port.
 */
export function checkHostAndOrigin(headers: { host?: string; origin?: string }, port: number, boundHost: string): GuardVerdict {
  const hosts = allowedHosts(port, boundHost);
  const host = headers.host?.toLowerCase();
  const wildcard = boundHost === '0.0.0.0' || boundHost === '::';
  const hostOk = !!host && (hosts.has(host) || (wildcard && isIpLiteralOnPort(host, port)));
  if (!hostOk) return { ok: false, status: 403, reason: `Host "${headers.host ?? ''}" is not allowed` };
  if (headers.origin !== undefined && headers.origin !== `http://${host}`) {
    return { ok: false, status: 403, reason: `Origin "${headers.origin}" is not allowed` };
  }
  return { ok: true };
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

/** The token comes from the session cookie (the page) or a bearer header (scripts, the CLI). */
export function presentedToken(headers: { cookie?: string; authorization?: string }): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
  if (bearer) return bearer[1]!.trim();
  for (const part of (headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}
