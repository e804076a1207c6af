import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PriorDiscovery } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../shared/mcp';
import { writeFileAtomic } from '../platform/atomicWrite';

const TTL_MS = 7 * 24 * 3_600_000;

interface Entry {
  at: number;
  prior: PriorDiscovery;
}

/**
 * Remembers which protocol era each server spoke, so the next connect skips the `server/discover`
 * probe (on stdio that probe is a whole extra process start). Keyed by how the server is reached,
 * not by its saved name; a stale verdict is dropped by the caller when a connect with it fails.
 */
export class EraCache {
  private readonly file: string;
  private entries?: Map<string, Entry>;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'cache', 'mcp-eras.json');
  }

  async get(config: McpServerConfig): Promise<PriorDiscovery | undefined> {
    const entry = (await this.load()).get(keyOf(config));
    return entry && Date.now() - entry.at < TTL_MS ? entry.prior : undefined;
  }

  async set(config: McpServerConfig, prior: PriorDiscovery | undefined) {
    const entries = await this.load();
    if (prior) entries.set(keyOf(config), { at: Date.now(), prior });
    else entries.delete(keyOf(config));
    await writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(entries)));
  }

  private async load(): Promise<Map<string, Entry>> {
    if (this.entries) return this.entries;
    try {
      this.entries = new Map(Object.entries(JSON.parse(await readFile(this.file, 'utf8')) as Record<string, Entry>));
    } catch {
      // Missing or unreadable: it is only a cache.
      this.entries = new Map();
    }
    return this.entries;
  }
}

function keyOf(config: McpServerConfig): string {
  const where = config.transport === 'stdio' ? [config.transport, config.command, config.args, config.cwd ?? ''] : [config.transport, config.url];
  return createHash('sha256').update(JSON.stringify(where)).digest('hex').slice(0, 32);
}
