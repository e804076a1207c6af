import { createHash } from 'node:crypto';
import { lookup, type LookupAddress } from 'node:dns';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AppError, reasonOf } from '../../shared/errors';
import { isPublicAddress } from '../mcp/IconFetcher';
import { readBoundedStream } from '../platform/readBounded';
import type { McpbLaunch } from './installPlan';
import { readZip, type ZipEntry } from './zipArchive';

/** The most a bundle download may be, and what it may unpack to. */
export const MCPB_DOWNLOAD_LIMIT = { maxBytes: 256 * 1024 * 1024, what: 'an mcpb bundle' };
const UNPACK_LIMITS = { maxEntries: 20_000, maxTotalBytes: 1024 * 1024 * 1024 };

const McpbManifest = z.object({
  name: z.string().max(200).optional(),
  version: z.string().max(255).optional(),
  description: z.string().max(2_000).optional(),
  server: z.object({
    type: z.string().max(32).optional(),
    entry_point: z.string().max(1_000).optional(),
    mcp_config: z.object({
      command: z.string().min(1).max(1_000),
      args: z.array(z.string().max(4_000)).max(128).optional(),
      env: z.record(z.string().max(128), z.string().max(4_000)).optional(),
    }),
  }),
});

/** How a bundle download reaches the network; tests trust their own CA and their loopback server. */
export interface BundleNetwork {
  /** Whether a resolved address may be connected to (default: public addresses only). */
  allowAddress?: (address: string) => boolean;
  /** Extra CA certificates (PEM) to trust. */
  ca?: string;
  timeoutMs?: number;
}

const refused = (url: string, reason: string) => new AppError('InvalidInput', `The bundle ${url.slice(0, 300)} is not downloaded: ${reason}.`);

/**
 * Downloads a bundle and refuses it unless its SHA-256 is `sha256`: https only; the host's every
 * address is checked after DNS and the socket connects to a checked one (no rebinding window), so
 * no loopback, private, link-local or cloud-metadata address is asked; a redirect is not followed;
 * the body is counted as it streams and cut off at MCPB_DOWNLOAD_LIMIT.
 */
export async function downloadVerified(url: string, sha256: string, network: BundleNetwork = {}): Promise<Buffer> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refused(url, 'it is not a URL');
  }
  if (parsed.protocol !== 'https:') throw refused(url, 'it is not https');
  const allow = network.allowAddress ?? isPublicAddress;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  // An address written in the URL is never looked up, so it is checked here.
  if (isIP(host) && !allow(host)) throw refused(url, `${host} is not a public address`);
  const checkedLookup: LookupFunction = (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const bad = list.find((entry) => !allow(entry.address));
      if (!list.length || bad) return callback(new AppError('InvalidInput', `${hostname} resolves to ${bad?.address ?? 'nothing'}, which is not a public address`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    const req = request(parsed, { method: 'GET', lookup: checkedLookup, ca: network.ca, timeout: network.timeoutMs ?? 300_000, headers: { accept: 'application/octet-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        const where = res.statusCode && res.statusCode >= 300 && res.statusCode < 400 ? `; it redirects${res.headers.location ? ` to ${res.headers.location.slice(0, 200)}` : ''}, which is not followed` : '';
        return reject(new AppError('ConnectionFailed', `Cannot download the bundle ${url.slice(0, 300)}: HTTP ${res.statusCode}${where}`));
      }
      readBoundedStream(res, url, MCPB_DOWNLOAD_LIMIT).then(resolve, (error: unknown) => {
        req.destroy();
        reject(error);
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error) => reject(error instanceof AppError ? refused(url, error.message) : new AppError('ConnectionFailed', `Cannot download the bundle ${url.slice(0, 300)}: ${reasonOf(error)}`)));
    req.end();
  });
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== sha256.toLowerCase()) {
    throw new AppError('InvalidInput', `The bundle ${url} does not match its fileSha256: the registry says ${sha256}, the download is ${actual}. Nothing was unpacked or run.`);
  }
  return bytes;
}

export interface ReadBundle {
  entries: ZipEntry[];
  launch: McpbLaunch;
  description?: string;
}

/** Reads a verified bundle in memory (bounded) and its manifest's `server.mcp_config`; writes nothing. */
export function readBundle(bytes: Buffer): ReadBundle {
  const entries = readZip(bytes, UNPACK_LIMITS);
  const manifestEntry = entries.find((entry) => entry.path === 'manifest.json');
  if (!manifestEntry) throw new AppError('InvalidInput', 'The bundle has no manifest.json at its top level.');
  let manifest: z.infer<typeof McpbManifest>;
  try {
    manifest = McpbManifest.parse(JSON.parse(manifestEntry.data.toString('utf8')));
  } catch (error) {
    throw new AppError('InvalidInput', `The bundle's manifest.json has no usable server.mcp_config: ${reasonOf(error).slice(0, 300)}`);
  }
  const { mcp_config: config } = manifest.server;
  return { entries, launch: { command: config.command, args: config.args, env: config.env }, description: manifest.description };
}

/**
 * Unpacks a read bundle into `folder`, replacing an earlier unpack of the same server. The files
 * are written to a temporary folder first, so a bundle that fails half-way leaves nothing behind.
 */
export async function writeBundle(bundle: ReadBundle, folder: string): Promise<void> {
  const temp = `${folder}.unpacking-${process.pid}`;
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { recursive: true, mode: 0o700 });
  try {
    for (const entry of bundle.entries) {
      const target = join(temp, entry.path);
      if (entry.directory) {
        await mkdir(target, { recursive: true, mode: 0o700 });
        continue;
      }
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      // Owner-only; the executable bit is kept for a binary entry point, nothing else of the archive's mode.
      await writeFile(target, entry.data, { mode: 0o600, flag: 'wx' });
      if (entry.mode & 0o100) await chmod(target, 0o700);
    }
    await rm(folder, { recursive: true, force: true });
    await mkdir(dirname(folder), { recursive: true, mode: 0o700 });
    await rename(temp, folder);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}
