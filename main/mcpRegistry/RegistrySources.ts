import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { OFFICIAL_REGISTRY_URL, type RegistrySource } from '../../shared/mcpRegistry';
import { JsonFile } from '../platform/JsonFile';

const RegistriesFile = z.object({
  officialEnabled: z.boolean().default(true),
  added: z.array(z.object({ url: z.string(), enabled: z.boolean().default(true) })).default([]),
});
type RegistriesFile = z.infer<typeof RegistriesFile>;

/** A registry URL as kept and compared: http(s), no credentials, query or fragment, no trailing slash. */
export function normalizeRegistryUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('InvalidInput', `${raw.slice(0, 200)} is not a URL; a registry is an http:// or https:// URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppError('InvalidInput', `${raw.slice(0, 200)} is not an http:// or https:// URL.`);
  if (url.username || url.password) throw new AppError('InvalidInput', 'A registry URL carries no credentials.');
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/**
 * The registries the user searches, in `<dataDir>/mcp-registries.json`: the official one (on
 * unless turned off) and the ones the user added, in the order added.
 */
export class RegistrySources {
  private readonly file: JsonFile<typeof RegistriesFile>;

  constructor(dataDir: string) {
    this.file = new JsonFile(join(dataDir, 'mcp-registries.json'), RegistriesFile, () => RegistriesFile.parse({}), { kind: 'registries file' });
  }

  async list(): Promise<RegistrySource[]> {
    const file = await this.file.read();
    return [{ url: OFFICIAL_REGISTRY_URL, enabled: file.officialEnabled, official: true }, ...file.added.map((entry) => ({ url: entry.url, enabled: entry.enabled, official: false }))];
  }

  async enabled(): Promise<string[]> {
    return (await this.list()).filter((source) => source.enabled).map((source) => source.url);
  }

  async add(raw: string): Promise<RegistrySource[]> {
    const url = normalizeRegistryUrl(raw);
    await this.file.update((current) => {
      if (url === OFFICIAL_REGISTRY_URL) return { next: { ...current, officialEnabled: true }, result: undefined };
      const added = current.added.some((entry) => entry.url === url) ? current.added.map((entry) => (entry.url === url ? { ...entry, enabled: true } : entry)) : [...current.added, { url, enabled: true }];
      return { next: { ...current, added }, result: undefined };
    });
    return this.list();
  }

  async remove(raw: string): Promise<RegistrySource[]> {
    const url = normalizeRegistryUrl(raw);
    await this.file.update((current): { next: RegistriesFile; result: undefined } => {
      if (url === OFFICIAL_REGISTRY_URL) return { next: { ...current, officialEnabled: false }, result: undefined };
      if (!current.added.some((entry) => entry.url === url)) throw new AppError('NotFound', `No registry ${url} was added.`);
      return { next: { ...current, added: current.added.filter((entry) => entry.url !== url) }, result: undefined };
    });
    return this.list();
  }

  async setEnabled(raw: string, enabled: boolean): Promise<RegistrySource[]> {
    const url = normalizeRegistryUrl(raw);
    await this.file.update((current): { next: RegistriesFile; result: undefined } => {
      if (url === OFFICIAL_REGISTRY_URL) return { next: { ...current, officialEnabled: enabled }, result: undefined };
      if (!current.added.some((entry) => entry.url === url)) throw new AppError('NotFound', `No registry ${url} was added.`);
      return { next: { ...current, added: current.added.map((entry) => (entry.url === url ? { ...entry, enabled } : entry)) }, result: undefined };
    });
    return this.list();
  }
}
