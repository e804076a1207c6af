import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { McpServerConfig, Root } from '../../shared/mcp';
import { writeFileAtomic } from '../platform/atomicWrite';
import type { SecretStore } from '../platform/SecretStore';

const ServersFile = z.object({
  version: z.literal(1),
  servers: z.array(McpServerConfig),
  roots: z.array(Root).default([]),
});
type ServersFile = z.infer<typeof ServersFile>;

export const bearerKey = (server: string) => `mcp:${server}:bearer`;
export const envKey = (server: string, variable: string) => `mcp:${server}:env:${variable}`;

/** Saved servers in `<dataDir>/servers.json`; their secrets in the SecretStore, never in the file. */
export class ServerConfigStore {
  private readonly file: string;
  private data: ServersFile = { version: 1, servers: [], roots: [] };
  private writes: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly secrets: SecretStore,
  ) {
    this.file = join(dataDir, 'servers.json');
  }

  /** (Re)reads the file; a missing file is an empty list. */
  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.data = { version: 1, servers: [], roots: [] };
        return;
      }
      throw error;
    }
    const parsed = ServersFile.safeParse(JSON.parse(text));
    if (!parsed.success) throw new AppError('InvalidInput', `${this.file} is not a valid servers file: ${parsed.error.issues[0]?.message}`);
    this.data = parsed.data;
  }

  list(): McpServerConfig[] {
    return [...this.data.servers];
  }

  get(name: string): McpServerConfig | undefined {
    return this.data.servers.find((s) => s.name === name);
  }

  roots(): Root[] {
    return [...this.data.roots];
  }

  async setRoots(roots: Root[]) {
    this.data = { ...this.data, roots };
    await this.persist();
  }

  async upsert(config: McpServerConfig, previousName?: string) {
    const servers = this.data.servers.filter((s) => s.name !== (previousName ?? config.name));
    if (previousName && previousName !== config.name && servers.some((s) => s.name === config.name)) {
      throw new AppError('AlreadyExists', `A server named "${config.name}" already exists`);
    }
    this.data = { ...this.data, servers: [...servers, config].sort((a, b) => a.name.localeCompare(b.name)) };
    await this.persist();
  }

  async remove(name: string) {
    const config = this.get(name);
    this.data = { ...this.data, servers: this.data.servers.filter((s) => s.name !== name) };
    await this.persist();
    await this.secrets.delete(bearerKey(name));
    if (config?.transport === 'stdio') for (const variable of config.secretEnv) await this.secrets.delete(envKey(name, variable));
  }

  async bearerToken(name: string) {
    return this.secrets.get(bearerKey(name));
  }

  async setBearerToken(name: string, token: string | undefined) {
    if (token) await this.secrets.set(bearerKey(name), token);
    else await this.secrets.delete(bearerKey(name));
  }

  async secretEnv(config: McpServerConfig): Promise<Record<string, string>> {
    if (config.transport !== 'stdio') return {};
    const values: Record<string, string> = {};
    for (const variable of config.secretEnv) {
      const value = await this.secrets.get(envKey(config.name, variable));
      if (value !== undefined) values[variable] = value;
    }
    return values;
  }

  async setSecretEnv(name: string, values: Record<string, string>) {
    for (const [variable, value] of Object.entries(values)) await this.secrets.set(envKey(name, variable), value);
  }

  private persist(): Promise<void> {
    const snapshot = JSON.stringify(this.data, null, 2);
    this.writes = this.writes.then(() => writeFileAtomic(this.file, `${snapshot}\n`));
    return this.writes;
  }
}
