import { lookup } from 'node:dns';
import { request } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { iconSource } from '../../shared/icons';

const MAX_BYTES = 128 * 1024;
const TIMEOUT_MS = 5_000;
const CACHE_ENTRIES = 500;
const TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/svg+xml', 'image/x-icon', 'image/vnd.microsoft.icon']);

/** Addresses an icon URL may not lead to: this machine, private and link-local networks, and the like. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

export function isPublicAddress(address: string): boolean {
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged by its IPv4 address.
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  const family = isIP(address);
  return family !== 0 && !PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** DNS lookup that refuses a name resolving to any non-public address, checked as the socket connects (no rebinding window). */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as Array<{ address: string; family: number }>;
    if (!list.length || list.some((a) => !isPublicAddress(a.address))) return callback(new Error(`${hostname} resolves to a non-public address`), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

/**
 * Icons from `https:` URLs, fetched by the console (never by the page, whose CSP allows no remote
 * images): public addresses only, no redirects, no cookies, at most 128 KB of an image type, five
 * seconds; the page gets a `data:` URL. A `data:` icon is passed through after its type is checked.
 */
export class IconFetcher {
  private readonly cache = new Map<string, Promise<string | undefined>>();

  fetch(src: string): Promise<string | undefined> {
    const kind = iconSource(src);
    if (kind === 'data') return Promise.resolve(src);
    if (kind !== 'https') return Promise.resolve(undefined);
    let cached = this.cache.get(src);
    if (!cached) {
      cached = download(src).catch(() => undefined);
      this.cache.set(src, cached);
      if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    }
    return cached;
  }
}

function download(src: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(src, { method: 'GET', lookup: publicLookup, timeout: TIMEOUT_MS, headers: { accept: 'image/*' } }, (res) => {
      const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (res.statusCode !== 200 || !TYPES.has(type)) {
        res.resume();
        return reject(new Error(`HTTP ${res.statusCode} ${type}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) {
          req.destroy();
          reject(new Error('icon too large'));
        } else chunks.push(chunk);
      });
      res.on('end', () => resolve(`data:${type};base64,${Buffer.concat(chunks).toString('base64')}`));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}
