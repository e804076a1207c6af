import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { JsonFile } from '../platform/JsonFile';
import type { SecretStore } from '../platform/SecretStore';

export const PROVIDERS_FILE = 'model-providers.json';

/** A provider's name is the `<provider>` of a request's `<provider>/<model>`. */
export const ProviderName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a provider name is lowercase letters, digits, dots, dashes or underscores');

export const ProviderFormat = z.enum(['openai', 'anthropic']);
export type ProviderFormat = z.infer<typeof ProviderFormat>;

const StoredProvider = z.object({
  name: ProviderName,
  format: ProviderFormat,
  /** As the official SDKs take it: OpenAI's includes `/v1`, Anthropic's does not. */
  baseUrl: z.string().url(),
  /** Whether a key is in the secret store (never the key itself). */
  hasKey: z.boolean(),
});
export type ModelProvider = z.infer<typeof StoredProvider>;

const ProvidersFile = z.object({ providers: z.array(StoredProvider) });

/** Clawdapus cllama's `providers.json`, v1 (`api_key`) or v2 (`keys` pool); fields Tooldeck does not use are ignored. */
const CllamaProvidersFile = z.object({
  version: z.number().optional(),
  providers: z.record(
    z.string().max(63),
    z.object({
      base_url: z.string().max(2000),
      api_key: z.string().max(10_000).optional(),
      auth: z.string().max(40).optional(),
      api_format: z.string().max(40).optional(),
      active_key_id: z.string().max(200).optional(),
      keys: z.array(z.object({ id: z.string().max(200).optional(), secret: z.string().max(10_000).optional() })).max(100).optional(),
    }),
  ),
});

const keyOf = (name: string) => `model-provider:${name}:api-key`;

/**
 * The model providers mediation forwards to (Clawdapus's cllama keeps them in `providers.json`):
 * name, wire format and base URL in the data dir, API keys in the secret store only.
 */
export class ModelProviders {
  private readonly file: JsonFile<typeof ProvidersFile>;

  constructor(
    dataDir: string,
    private readonly secrets: SecretStore,
  ) {
    this.file = new JsonFile(join(dataDir, PROVIDERS_FILE), ProvidersFile, () => ({ providers: [] }), { kind: 'model providers file' });
  }

  /**
   * Mediation reads the list and a key on every request: both are kept in memory until the file
   * changes (here, or by `tooldeck providers` in another process: its modification time moves).
   */
  private cached?: { mtimeMs: number; providers: ModelProvider[] };
  private readonly keys = new Map<string, string | undefined>();

  async list(): Promise<ModelProvider[]> {
    const mtimeMs = await stat(this.file.path).then((info) => info.mtimeMs, () => -1);
    if (this.cached?.mtimeMs === mtimeMs) return this.cached.providers;
    const { providers } = await this.file.read();
    this.keys.clear();
    this.cached = { mtimeMs, providers };
    return providers;
  }

  async get(name: string): Promise<ModelProvider | undefined> {
    return (await this.list()).find((provider) => provider.name === name);
  }

  async apiKey(name: string): Promise<string | undefined> {
    await this.list();
    if (this.keys.has(name)) return this.keys.get(name);
    const key = await this.secrets.get(keyOf(name));
    this.keys.set(name, key);
    return key;
  }

  async add(input: { name: string; format: ProviderFormat; baseUrl: string; apiKey?: string }): Promise<ModelProvider> {
    const parsed = StoredProvider.safeParse({ ...input, baseUrl: input.baseUrl.replace(/\/+$/, ''), hasKey: input.apiKey !== undefined && input.apiKey !== '' });
    if (!parsed.success) throw new AppError('InvalidInput', `Provider ${input.name}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ')}.`);
    const url = new URL(parsed.data.baseUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppError('InvalidInput', `Provider ${input.name}: the base URL must be http(s).`);
    if (parsed.data.hasKey) await this.secrets.set(keyOf(parsed.data.name), input.apiKey!);
    else await this.secrets.delete(keyOf(parsed.data.name));
    await this.file.update(({ providers }) => ({ next: { providers: [...providers.filter((provider) => provider.name !== parsed.data.name), parsed.data] }, result: undefined }));
    this.forget();
    return parsed.data;
  }

  /**
   * Imports Clawdapus cllama's `providers.json` (its v1 form with `api_key`, or v2 with a key pool:
   * the active key, else the first). cllama appends the request path without `/v1` to `base_url`,
   * so its Anthropic base URLs end in `/v1`; the official Anthropic SDK's (Tooldeck's) do not, so
   * that suffix is dropped. `auth` is implied by the format here (bearer for OpenAI, x-api-key for
   * Anthropic); `none` imports without a key. Returns what was saved and what was skipped, and why.
   */
  async importCllama(text: string): Promise<{ saved: ModelProvider[]; skipped: { name: string; reason: string }[] }> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError('InvalidInput', 'The providers file is not JSON.');
    }
    const file = CllamaProvidersFile.safeParse(parsed);
    if (!file.success) throw new AppError('InvalidInput', `The providers file is not cllama's providers.json: ${file.error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ')}.`);
    const saved: ModelProvider[] = [];
    const skipped: { name: string; reason: string }[] = [];
    for (const [rawName, entry] of Object.entries(file.data.providers)) {
      const name = rawName.toLowerCase();
      const format: ProviderFormat = entry.api_format === 'anthropic' || (!entry.api_format && name === 'anthropic') ? 'anthropic' : 'openai';
      if (entry.api_format && entry.api_format !== 'openai' && entry.api_format !== 'anthropic') {
        skipped.push({ name: rawName, reason: `its api_format "${entry.api_format.slice(0, 40)}" is neither openai nor anthropic` });
        continue;
      }
      const pool = entry.keys ?? [];
      const apiKey = entry.auth === 'none' ? undefined : (entry.api_key ?? (pool.find((key) => key.id === entry.active_key_id) ?? pool[0])?.secret);
      const baseUrl = format === 'anthropic' ? entry.base_url.replace(/\/+$/, '').replace(/\/v1$/, '') : entry.base_url;
      try {
        saved.push(await this.add({ name, format, baseUrl, ...(apiKey ? { apiKey } : {}) }));
      } catch (error) {
        skipped.push({ name: rawName, reason: (error as Error).message });
      }
    }
    return { saved, skipped };
  }

  /** A write in this process may land within the file system's mtime granularity: forget at once. */
  private forget() {
    this.cached = undefined;
    this.keys.clear();
  }

  async remove(name: string): Promise<void> {
    const found = await this.file.update(({ providers }) => ({ next: { providers: providers.filter((provider) => provider.name !== name) }, result: providers.some((provider) => provider.name === name) }));
    if (!found) throw new AppError('NotFound', `No model provider named "${name}".`);
    await this.secrets.delete(keyOf(name));
    this.forget();
  }
}
