import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError, reasonOf } from '../../shared/errors';
import { OFFICIAL_META_KEY, RegistryEntry, type Freshness, type SearchPage, type ServerVersions } from '../../shared/mcpRegistry';
import { writeFileAtomic } from '../platform/atomicWrite';
import { readBoundedStream } from '../platform/readBounded';

/** The most one registry answer may be: a page of 100 full entries is well under 1 MiB. */
export const REGISTRY_RESPONSE_LIMIT = { maxBytes: 4 * 1024 * 1024, what: 'a registry response' };
/** The step of the refusal when a registry cannot be reached and nothing is cached: Discover offers a server.json at hand. */
export const OFFLINE_UNCACHED_STEP = 'registry-unreachable';
/** The largest page asked for; registries cap it themselves too (the official one at 100). */
export const MAX_PAGE_SIZE = 100;

const Listing = z.object({
  servers: z.array(z.unknown()).max(1_000),
  metadata: z.object({ nextCursor: z.string().max(2_000).optional(), count: z.number().optional() }).optional(),
});
const Wire = z.object({ server: z.unknown(), _meta: z.record(z.string(), z.unknown()).optional() });

type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface RegistryClientOptions {
  dataDir: string;
  fetch?: FetchLike;
  /** Per request (default 15 s). */
  timeoutMs?: number;
  now?: () => number;
}

interface Answer {
  json: unknown;
  freshness: Freshness;
}

/** One entry of a registry's wire format, bounded; undefined when it breaks a bound. */
export function parseEntry(value: unknown): RegistryEntry | undefined {
  const wire = Wire.safeParse(value);
  if (!wire.success) return undefined;
  const parsed = RegistryEntry.safeParse({ server: wire.data.server, meta: wire.data._meta?.[OFFICIAL_META_KEY] });
  return parsed.success ? parsed.data : undefined;
}

/**
 * Reads MCP registries (API v0.1) over HTTP. Every answer is bounded and parsed through the
 * schemas of shared/mcpRegistry.ts, and kept in the data dir (`cache/mcp-registry/`): when a
 * registry cannot be reached, the last answer to the same request is returned marked offline.
 */
export class RegistryClient {
  private readonly fetch: FetchLike;
  private readonly now: () => number;

  constructor(private readonly options: RegistryClientOptions) {
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.now = options.now ?? Date.now;
  }

  async search(registry: string, query: { search?: string; cursor?: string; limit?: number; latestOnly?: boolean } = {}): Promise<SearchPage> {
    const params = new URLSearchParams();
    if (query.search) params.set('search', query.search);
    if (query.cursor) params.set('cursor', query.cursor);
    params.set('limit', String(Math.min(Math.max(1, query.limit ?? 30), MAX_PAGE_SIZE)));
    if (query.latestOnly !== false) params.set('version', 'latest');
    const answer = await this.get(registry, `/v0.1/servers?${params}`);
    const listing = this.listing(answer, registry);
    return { ...answer.freshness, servers: listing.entries, skipped: listing.skipped, ...(listing.nextCursor ? { nextCursor: listing.nextCursor } : {}) };
  }

  /** Every published version of a server, newest first as the registry lists them. */
  async versions(registry: string, name: string): Promise<ServerVersions> {
    const answer = await this.get(registry, `/v0.1/servers/${encodeURIComponent(name)}/versions`);
    const listing = this.listing(answer, registry);
    return { ...answer.freshness, versions: listing.entries, skipped: listing.skipped };
  }

  /** One version (`latest` by default). */
  async version(registry: string, name: string, version = 'latest'): Promise<{ entry: RegistryEntry; freshness: Freshness }> {
    const answer = await this.get(registry, `/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`);
    const entry = parseEntry(answer.json);
    if (!entry) throw new AppError('InvalidInput', `${registry} answered for ${name} ${version} with an entry that is not a valid server.json.`);
    return { entry, freshness: answer.freshness };
  }

  private listing(answer: Answer, registry: string) {
    const listing = Listing.safeParse(answer.json);
    if (!listing.success) throw new AppError('InvalidInput', `${registry} did not answer with a server listing.`);
    const entries: RegistryEntry[] = [];
    let skipped = 0;
    for (const value of listing.data.servers) {
      const entry = parseEntry(value);
      if (entry) entries.push(entry);
      else skipped++;
    }
    return { entries, skipped, nextCursor: listing.data.metadata?.nextCursor || undefined };
  }

  private cacheFile(url: string) {
    return join(this.options.dataDir, 'cache', 'mcp-registry', `${createHash('sha256').update(url).digest('hex')}.json`);
  }

  private async get(registry: string, path: string): Promise<Answer> {
    const url = `${registry.replace(/\/+$/, '')}${path}`;
    let response: Response;
    try {
      response = await this.fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000), redirect: 'follow' });
    } catch (error) {
      return this.fromCache(registry, url, reasonOf(error));
    }
    if (response.status === 404) {
      await response.body?.cancel();
      throw new AppError('NotFound', `${registry} has no ${decodeURIComponent(path.split('?')[0]!.replace(/^\/v0\.1\/servers\/?/, '')) || 'such entry'}.`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      return this.fromCache(registry, url, `HTTP ${response.status}`);
    }
    let json: unknown;
    try {
      const body = await readBoundedStream(response.body, url, REGISTRY_RESPONSE_LIMIT);
      json = JSON.parse(body.toString('utf8'));
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError('InvalidInput', `${registry} did not answer with JSON: ${reasonOf(error)}`);
    }
    const fetchedAt = this.now();
    await writeFileAtomic(this.cacheFile(url), JSON.stringify({ fetchedAt, json })).catch(() => undefined);
    return { json, freshness: { registry, offline: false, fetchedAt } };
  }

  private async fromCache(registry: string, url: string, reason: string): Promise<Answer> {
    let cached: { fetchedAt: number; json: unknown } | undefined;
    try {
      const text = await readFile(this.cacheFile(url), 'utf8');
      if (text.length <= REGISTRY_RESPONSE_LIMIT.maxBytes * 2) cached = JSON.parse(text) as { fetchedAt: number; json: unknown };
    } catch {
      cached = undefined;
    }
    if (!cached || typeof cached.fetchedAt !== 'number') {
      // A dead end names the ways on, which Discover shows beside it and the CLI has as commands.
      throw new AppError(
        'ConnectionFailed',
        `Cannot reach the registry ${registry} (${reason}), and nothing is cached for this request: add another registry or turn this one off (Registries in Discover, or tooldeck registry add|disable), or install from a server.json you have (Install from a server.json, or tooldeck registry install --file).`,
        { step: OFFLINE_UNCACHED_STEP },
      );
    }
    return { json: cached.json, freshness: { registry, offline: true, fetchedAt: cached.fetchedAt, reason } };
  }
}
