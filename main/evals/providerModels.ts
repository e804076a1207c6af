import type { ProviderFormat } from '../mediation/ModelProviders';
import { anthropicFormat, openAiFormat } from '../mediation/wireFormats';

/** A provider's model list: what the Playground's and Evals' model pickers offer after `<provider>/`. */
export interface ProviderModels {
  provider: string;
  models: string[];
  /** Why the list could not be read (the picker still takes any name). */
  error?: string;
}

const LIST_TIMEOUT_MS = 5_000;
const MAX_LIST_BYTES = 1024 * 1024;
const MAX_MODELS = 500;

export interface ProviderModelsDeps {
  providers(): Promise<readonly { name: string; format: ProviderFormat; baseUrl: string }[]>;
  apiKey(name: string): Promise<string | undefined>;
  fetch?: typeof fetch;
}

/**
 * Each provider's models, as its API lists them (`GET /v1/models`, OpenAI's and Anthropic's
 * shape `{data: [{id}]}`), asked of the provider's own base URL with its own key — where
 * mediation sends it anyway. A provider that serves no list, is slow (5 s) or answers more than
 * 1 MiB gets an error instead, and the pickers take free text.
 */
export async function listProviderModels(deps: ProviderModelsDeps): Promise<ProviderModels[]> {
  const providers = await deps.providers();
  return Promise.all(
    providers.map(async (provider): Promise<ProviderModels> => {
      const format = provider.format === 'openai' ? openAiFormat : anthropicFormat;
      const url = provider.format === 'openai' ? `${provider.baseUrl}/models` : `${provider.baseUrl}/v1/models`;
      try {
        const answer = await (deps.fetch ?? fetch)(url, { headers: format.authHeaders(await deps.apiKey(provider.name)), signal: AbortSignal.timeout(LIST_TIMEOUT_MS), redirect: 'error' });
        if (!answer.ok) return { provider: provider.name, models: [], error: `The provider answered ${answer.status} to ${url}.` };
        const length = Number(answer.headers.get('content-length') ?? 0);
        if (length > MAX_LIST_BYTES) return { provider: provider.name, models: [], error: 'The model list is larger than 1 MiB.' };
        const text = await answer.text();
        if (text.length > MAX_LIST_BYTES) return { provider: provider.name, models: [], error: 'The model list is larger than 1 MiB.' };
        const data = (JSON.parse(text) as { data?: unknown }).data;
        const ids = Array.isArray(data) ? data.map((item) => (item as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 200) : [];
        return { provider: provider.name, models: [...new Set(ids)].sort().slice(0, MAX_MODELS) };
      } catch (error) {
        return { provider: provider.name, models: [], error: `The model list could not be read: ${(error as Error).message}` };
      }
    }),
  );
}
