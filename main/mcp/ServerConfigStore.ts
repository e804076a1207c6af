import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { McpServerConfig, Root } from '../../shared/mcp';
import { JsonFile } from '../platform/JsonFile';
import type { SecretStore } from '../platform/SecretStore';
import { sealServerConfig, secretKey, secretSlots, type SecretSlot } from '../../shared/serverSecrets';

const ServersFile = z.object({
  version: z.literal(1),
  servers: z.array(McpServerConfig),
  roots: z.array(Root).default([]),
});
type ServersFile = z.infer<typeof ServersFile>;
const emptyServersFile = (): ServersFile => ({ version: 1, servers: [], roots: [] });

/**
 * Saved servers in `<dataDir>/servers.json`; their secrets in the SecretStore under
 * `mcp:<server>:<slot>` (see serverSecrets.ts), never in the file.
 */
export class ServerConfigStore {
  private readonly file: JsonFile<typeof ServersFile>;
  private data: ServersFile = emptyServersFile();

  constructor(
    dataDir: string,
    private readonly secrets: SecretStore,
  ) {
    this.file = new JsonFile(join(dataDir, 'servers.json'), ServersFile, emptyServersFile, { kind: 'servers file' });
  }

  /** (Re)reads the file; a missing file is an empty list. */
  async load(): Promise<void> {
    this.data = await this.file.read();
    await this.sealPlaintextSecrets();
  }

  /**
   * A file written by an older Tooldeck, or edited by hand, may hold credentials in plaintext
   * (an Authorization header, a password in a URL): they move to the SecretStore and the file is
   * rewritten without them.
   */
  private async sealPlaintextSecrets() {
    let changed = false;
    const servers: McpServerConfig[] = [];
    for (const config of this.data.servers) {
      const sealed = sealServerConfig(config);
      if (Object.keys(sealed.values).length === 0) {
        servers.push(config);
        continue;
      }
      await this.setSecrets(config.name, sealed.values);
      servers.push(sealed.config);
      changed = true;
    }
    if (!changed) return;
    this.data = { ...this.data, servers };
    await this.persist();
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
    if (config) await this.deleteSecrets(name, secretSlots(config));
  }

  async secret(name: string, slot: SecretSlot): Promise<string | undefined> {
    return this.secrets.get(secretKey(name, slot));
  }

  /** The stored values of every slot the config names, for the transport that needs them. */
  async secretsOf(config: McpServerConfig): Promise<Record<SecretSlot, string | undefined>> {
    const values: Record<SecretSlot, string | undefined> = {};
    for (const slot of secretSlots(config)) values[slot] = await this.secret(config.name, slot);
    return values;
  }

  async setSecrets(name: string, values: Record<SecretSlot, string>) {
    for (const [slot, value] of Object.entries(values)) await this.secrets.set(secretKey(name, slot), value);
  }

  async deleteSecrets(name: string, slots: Iterable<SecretSlot>) {
    for (const slot of slots) await this.secrets.delete(secretKey(name, slot));
  }

  private persist(): Promise<void> {
    return this.file.write(this.data);
  }
}
