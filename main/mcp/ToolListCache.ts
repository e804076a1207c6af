import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { McpTool } from '../../shared/mcp';
import { writeFileAtomic } from '../platform/atomicWrite';

/**
 * The last tools/list of every saved server, on disk, so search and the CLI can answer without
 * connecting (`tooldeck search` reads it; `--refresh` rediscovers).
 */
export class ToolListCache {
  constructor(private readonly dataDir: string) {}

  private file(server: string) {
    return join(this.dataDir, 'cache', 'tools', `${server}.json`);
  }

  async write(server: string, tools: readonly McpTool[]) {
    await writeFileAtomic(this.file(server), JSON.stringify({ at: Date.now(), tools }));
  }

  async read(server: string): Promise<{ at: number; tools: McpTool[] } | undefined> {
    try {
      return JSON.parse(await readFile(this.file(server), 'utf8')) as { at: number; tools: McpTool[] };
    } catch {
      return undefined;
    }
  }

  async delete(server: string) {
    await rm(this.file(server), { force: true });
  }
}
