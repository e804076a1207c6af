import type { A2aAuthConfig, A2aCardView, A2aSecuritySchemeView } from '../../shared/a2a';
import { AppError } from '../../shared/errors';
import { credentialOriginChange, credentialOriginText, credentialsMayGoTo } from '../../shared/endpointOrigin';
import type { SecretStore } from '../platform/SecretStore';
import { describeFetchFailure } from './errorMapping';

type FetchInput = Parameters<typeof fetch>[0];

/** Where an agent's secrets live: `a2a:<agent>:<name>`. */
export function a2aSecretKey(agent: string, name: string): string {
  return `a2a:${agent}:${name}`;
}

export const SECRET_NAMES = { token: 'token', apiKey: 'apiKey', clientSecret: 'clientSecret', header: (name: string) => `header:${name.toLowerCase()}` };

export type ResolvedAuth =
  | { kind: 'none' }
  | { kind: 'bearer'; token: string }
  | { kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; key: string }
  | { kind: 'oauth2ClientCredentials'; tokenUrl: string; clientId: string; clientSecret: string; scopes: string[] };

function pickScheme(card: A2aCardView, type: A2aSecuritySchemeView['type'], named?: string): A2aSecuritySchemeView | undefined {
  if (named) {
    const scheme = card.securitySchemes.find((s) => s.name === named);
    if (!scheme) throw new AppError('InvalidInput', `The card declares no security scheme named "${named}".`, { step: 'auth' });
    return scheme;
  }
  return card.securitySchemes.find((s) => s.type === type);
}

async function requireSecret(secrets: SecretStore, agent: string, name: string, what: string): Promise<string> {
  const value = await secrets.get(a2aSecretKey(agent, name));
  if (!value) throw new AppError('Unauthorized', `No ${what} is stored for agent "${agent}"; save the agent with one.`, { step: 'auth' });
  return value;
}

/**
 * The one sentence for a card that would send credentials somewhere the user did not save the agent,
 * and how the user confirms the change (saving the agent again with that address).
 */
export function cardPointsElsewhere(agent: string, what: 'interface' | 'tokenUrl' | 'redirect', target: string, savedUrl: string): AppError {
  const pointed = what === 'redirect' ? `"${agent}" redirected a call` : `The agent card of "${agent}" points ${what === 'interface' ? 'its interface' : 'its OAuth token URL'}`;
  const confirm = what === 'tokenUrl' ? 'save the agent again with that token URL' : `save the agent again with ${credentialOriginText(target) ?? target} as its interface origin`;
  return new AppError('Unauthorized', `${pointed} elsewhere (${credentialOriginChange(savedUrl, target)}), so no credentials were sent; if you trust it, ${confirm}.`, { step: 'auth' });
}

const MAX_REDIRECTS = 5;

/**
 * A fetch that sends only to `savedUrl`'s origin and follows redirects itself, only within that
 * origin: the platform's fetch would carry a custom credential header (an API key, a sealed header)
 * to wherever a redirect points.
 */
export function fetchPinnedTo(base: typeof fetch, savedUrl: string, agent: string): typeof fetch {
  return async (input, init) => {
    let url = input instanceof Request ? input.url : String(input);
    let next: FetchInput = input;
    let request: RequestInit = { ...init, redirect: 'manual' };
    for (let hop = 0; ; hop++) {
      if (!credentialsMayGoTo(savedUrl, url)) throw cardPointsElsewhere(agent, hop === 0 ? 'interface' : 'redirect', url, savedUrl);
      const response = await base(next, request);
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
      if (!location) return response;
      await response.body?.cancel();
      if (hop === MAX_REDIRECTS) throw new AppError('ConnectionFailed', `"${agent}" redirected more than ${MAX_REDIRECTS} times, ending at ${url}.`, { step: 'transport' });
      url = new URL(location, url).toString();
      next = url;
      // As fetch does: 303, and 301/302 after a POST, go on as a GET without the body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && (request.method ?? 'GET').toUpperCase() === 'POST')) {
        request = { ...request, method: 'GET', body: undefined };
      }
    }
  };
}

/**
 * Completes the saved auth with what the card declares (API key placement, token URL) and the stored
 * secrets. `savedUrl` is where the user saved the agent: a token URL the card declares (rather than
 * one the user saved) must be on that origin, or the client secret would go where the card says.
 */
export async function resolveAuth(agent: string, config: A2aAuthConfig, card: A2aCardView, secrets: SecretStore, savedUrl?: string): Promise<ResolvedAuth> {
  switch (config.kind) {
    case 'none':
      return { kind: 'none' };
    case 'bearer':
      pickScheme(card, 'http', config.scheme);
      return { kind: 'bearer', token: await requireSecret(secrets, agent, SECRET_NAMES.token, 'bearer token') };
    case 'apiKey': {
      const scheme = pickScheme(card, 'apiKey', config.scheme);
      const location = config.in ?? scheme?.location;
      const name = config.name ?? scheme?.paramName;
      if (!location || !name) {
        throw new AppError('InvalidInput', `Where to send the API key for "${agent}" is unknown: set its header/query name, or use a card that declares an apiKey scheme.`, {
          step: 'auth',
        });
      }
      return { kind: 'apiKey', in: location, name, key: await requireSecret(secrets, agent, SECRET_NAMES.apiKey, 'API key') };
    }
    case 'oauth2ClientCredentials': {
      const scheme = pickScheme(card, 'oauth2', config.scheme);
      const tokenUrl = config.tokenUrl ?? scheme?.tokenUrl;
      if (!tokenUrl) {
        throw new AppError('InvalidInput', `No token URL for "${agent}": set one, or use a card whose oauth2 scheme declares a clientCredentials flow.`, { step: 'auth' });
      }
      if (!config.tokenUrl && savedUrl && !credentialsMayGoTo(savedUrl, tokenUrl)) throw cardPointsElsewhere(agent, 'tokenUrl', tokenUrl, savedUrl);
      return {
        kind: 'oauth2ClientCredentials',
        tokenUrl,
        clientId: config.clientId,
        clientSecret: await requireSecret(secrets, agent, SECRET_NAMES.clientSecret, 'OAuth client secret'),
        scopes: config.scopes ?? [],
      };
    }
  }
}

/** Fetches and caches client-credentials tokens; one request in flight at a time. */
class ClientCredentialsTokens {
  private current?: { token: string; expiresAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly auth: Extract<ResolvedAuth, { kind: 'oauth2ClientCredentials' }>,
    private readonly fetchImpl: typeof fetch,
  ) {}

  get token(): string | undefined {
    return this.current?.token;
  }

  invalidate() {
    this.current = undefined;
  }

  async get(): Promise<string> {
    if (this.current && this.current.expiresAt > Date.now() + 30_000) return this.current.token;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.auth.scopes.length) body.set('scope', this.auth.scopes.join(' '));
    let response: Response;
    try {
      response = await this.fetchImpl(this.auth.tokenUrl, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
          Authorization: `Basic ${Buffer.from(`${encodeURIComponent(this.auth.clientId)}:${encodeURIComponent(this.auth.clientSecret)}`).toString('base64')}`,
        },
        body,
      });
    } catch (error) {
      throw new AppError('ConnectionFailed', `Cannot reach the token endpoint ${this.auth.tokenUrl}: ${describeFetchFailure(error)}.`, { step: 'auth', cause: error });
    }
    const text = await response.text();
    let json: { access_token?: unknown; expires_in?: unknown; error?: unknown } = {};
    try {
      json = JSON.parse(text);
    } catch {
      // Reported below together with the status.
    }
    if (!response.ok) {
      const reason = typeof json.error === 'string' ? `: ${json.error}` : '';
      throw new AppError(response.status === 400 || response.status === 401 ? 'Unauthorized' : 'ConnectionFailed', `The token endpoint refused the client credentials (HTTP ${response.status}${reason}).`, {
        step: 'auth',
      });
    }
    if (typeof json.access_token !== 'string' || !json.access_token) {
      throw new AppError('ExecutionFailed', `The token endpoint ${this.auth.tokenUrl} answered without an access_token.`, { step: 'auth' });
    }
    const lifetime = typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in * 1000 : 3600_000;
    this.current = { token: json.access_token, expiresAt: Date.now() + lifetime };
    return json.access_token;
  }
}

export interface AuthFetch {
  fetch: typeof fetch;
  /** Secret values in force right now (for masking), including a fetched access token. */
  secretValues(): string[];
}

/**
 * Wraps `base` so every call carries the agent's credentials and custom headers. The SDK's own
 * headers (A2A-Version, content type) win over custom ones; credentials always apply. A 401 with an
 * OAuth token triggers one token refresh and one retry. With `savedUrl`, a call to any other origin
 * (or plain http where the agent was saved with https) fails before anything is sent.
 */
export function createAuthFetch(unpinned: typeof fetch, auth: ResolvedAuth, customHeaders: Record<string, string>, savedUrl?: string, agent = 'the agent'): AuthFetch {
  const base = savedUrl ? fetchPinnedTo(unpinned, savedUrl, agent) : unpinned;
  // The token request goes to the token URL (the user's, or one on the agent's origin), not the agent.
  const tokens = auth.kind === 'oauth2ClientCredentials' ? new ClientCredentialsTokens(auth, unpinned) : undefined;
  const staticSecrets =
    auth.kind === 'bearer' ? [auth.token] : auth.kind === 'apiKey' ? [auth.key] : auth.kind === 'oauth2ClientCredentials' ? [auth.clientSecret] : [];
  const hasCustom = Object.keys(customHeaders).length > 0;
  if (auth.kind === 'none' && !hasCustom) return { fetch: unpinned, secretValues: () => [] };

  const apply = async (input: FetchInput, init: RequestInit | undefined): Promise<[FetchInput, RequestInit]> => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(customHeaders)) if (!headers.has(name)) headers.set(name, value);
    let target = input;
    switch (auth.kind) {
      case 'bearer':
        headers.set('Authorization', `Bearer ${auth.token}`);
        break;
      case 'apiKey':
        if (auth.in === 'header') headers.set(auth.name, auth.key);
        else if (auth.in === 'cookie') headers.set('Cookie', `${auth.name}=${encodeURIComponent(auth.key)}`);
        else {
          const url = new URL(input instanceof Request ? input.url : String(input));
          url.searchParams.set(auth.name, auth.key);
          target = url.toString();
        }
        break;
      case 'oauth2ClientCredentials':
        headers.set('Authorization', `Bearer ${await tokens!.get()}`);
        break;
    }
    return [target, { ...init, headers }];
  };

  const wrapped = async (input: FetchInput, init?: RequestInit): Promise<Response> => {
    const [target, withAuth] = await apply(input, init);
    const response = await base(target, withAuth);
    if (response.status !== 401 || !tokens) return response;
    await response.body?.cancel();
    tokens.invalidate();
    const [retryTarget, retryInit] = await apply(input, init);
    return base(retryTarget, retryInit);
  };
  return {
    fetch: wrapped as typeof fetch,
    secretValues: () => (tokens?.token ? [...staticSecrets, tokens.token] : staticSecrets),
  };
}
