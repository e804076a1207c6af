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

  async list(): Promise<ModelProvider[]> {
    return (await this.file.read()).providers;
  }

  async get(name: string): Promise<ModelProvider | undefined> {
    return (await this.list()).find((provider) => provider.name === name);
  }

  async apiKey(name: string): Promise<string | undefined> {
    return this.secrets.get(keyOf(name));
  }

  async add(input: { name: string; format: ProviderFormat; baseUrl: string; apiKey?: string }): Promise<ModelProvider> {
    const parsed = StoredProvider.safeParse({ ...input, baseUrl: input.baseUrl.replace(/\/+$/, ''), hasKey: input.apiKey !== undefined && input.apiKey !== '' });
    if (!parsed.success) throw new AppError('InvalidInput', `Provider ${input.name}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ')}.`);
    const url = new URL(parsed.data.baseUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppError('InvalidInput', `Provider ${input.name}: the base URL must be http(s).`);
    if (parsed.data.hasKey) await this.secrets.set(keyOf(parsed.data.name), input.apiKey!);
    else await this.secrets.delete(keyOf(parsed.data.name));
    await this.file.update(({ providers }) => ({ next: { providers: [...providers.filter((provider) => provider.name !== parsed.data.name), parsed.data] }, result: undefined }));
    return parsed.data;
  }

  async remove(name: string): Promise<void> {
    const found = await this.file.update(({ providers }) => ({ next: { providers: providers.filter((provider) => provider.name !== name) }, result: providers.some((provider) => provider.name === name) }));
    if (!found) throw new AppError('NotFound', `No model provider named "${name}".`);
    await this.secrets.delete(keyOf(name));
  }
}
