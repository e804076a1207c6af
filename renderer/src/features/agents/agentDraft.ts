import type { A2aAgentConfig, A2aAgentInput, A2aSecuritySchemeView } from '../../../../shared/a2a';

export type AuthKind = A2aAgentConfig['auth']['kind'];

export interface HeaderRow {
  name: string;
  value: string;
  secret: boolean;
  /** A secret already stored for this header: an empty value keeps it. */
  stored?: boolean;
}

/** The add/edit form's state: flat, all strings, so switching auth kinds keeps what was typed. */
export interface AgentDraft {
  name: string;
  url: string;
  /** Another origin the card's interface lives on that the user confirms may receive the credentials. */
  interfaceOrigin: string;
  headers: HeaderRow[];
  authKind: AuthKind;
  /** The card's securitySchemes entry the auth satisfies; empty lets the backend pick. */
  scheme: string;
  token: string;
  apiKey: string;
  apiKeyIn: '' | 'header' | 'query';
  apiKeyName: string;
  clientId: string;
  clientSecret: string;
  tokenUrl: string;
  scopes: string;
}

export function draftFrom(config?: A2aAgentConfig): AgentDraft {
  const auth = config?.auth;
  return {
    name: config?.name ?? '',
    url: config?.url ?? '',
    interfaceOrigin: config?.interfaceOrigin ?? '',
    headers: (config?.headers ?? []).map((h) => ({ name: h.name, value: h.value ?? '', secret: h.secret, ...(h.secret ? { stored: true } : {}) })),
    authKind: auth?.kind ?? 'none',
    scheme: auth && auth.kind !== 'none' ? (auth.scheme ?? '') : '',
    token: '',
    apiKey: '',
    apiKeyIn: auth?.kind === 'apiKey' ? (auth.in ?? '') : '',
    apiKeyName: auth?.kind === 'apiKey' ? (auth.name ?? '') : '',
    clientId: auth?.kind === 'oauth2ClientCredentials' ? auth.clientId : '',
    clientSecret: '',
    tokenUrl: auth?.kind === 'oauth2ClientCredentials' ? (auth.tokenUrl ?? '') : '',
    scopes: auth?.kind === 'oauth2ClientCredentials' ? (auth.scopes ?? []).join(' ') : '',
  };
}

const optional = <K extends string>(key: K, value: string): Partial<Record<K, string>> => (value.trim() ? ({ [key]: value.trim() } as Record<K, string>) : {});

/** What `a2a.save` takes. Empty secret fields are left out, so the stored values are kept. */
export function inputFrom(draft: AgentDraft): A2aAgentInput {
  const headers = draft.headers
    .filter((h) => h.name.trim())
    .map((h) => ({ name: h.name.trim(), secret: h.secret, ...(h.secret ? optional('value', h.value) : { value: h.value }) }));
  const scheme = optional('scheme', draft.scheme);
  let auth: A2aAgentInput['auth'];
  switch (draft.authKind) {
    case 'none':
      auth = { kind: 'none' };
      break;
    case 'bearer':
      auth = { kind: 'bearer', ...scheme, ...optional('token', draft.token) };
      break;
    case 'apiKey':
      auth = {
        kind: 'apiKey',
        ...scheme,
        ...(draft.apiKeyIn ? { in: draft.apiKeyIn } : {}),
        ...optional('name', draft.apiKeyName),
        ...optional('key', draft.apiKey),
      };
      break;
    case 'oauth2ClientCredentials': {
      const scopes = draft.scopes.split(/[\s,]+/).filter(Boolean);
      auth = {
        kind: 'oauth2ClientCredentials',
        ...scheme,
        clientId: draft.clientId.trim(),
        ...optional('clientSecret', draft.clientSecret),
        ...optional('tokenUrl', draft.tokenUrl),
        ...(scopes.length ? { scopes } : {}),
      };
      break;
    }
  }
  return { name: draft.name.trim(), url: draft.url.trim(), ...optional('interfaceOrigin', draft.interfaceOrigin), headers, auth };
}

/** The auth kind that satisfies a card's scheme, if this client can do it. */
export function authKindFor(scheme: A2aSecuritySchemeView): AuthKind | undefined {
  if (scheme.type === 'http' && (scheme.httpScheme ?? 'bearer') === 'bearer') return 'bearer';
  if (scheme.type === 'apiKey' && scheme.location !== 'cookie') return 'apiKey';
  if (scheme.type === 'oauth2' && (scheme.flows ?? []).includes('clientCredentials')) return 'oauth2ClientCredentials';
  return undefined;
}

/** Fills the auth fields from a card's scheme; what the person already typed stays. */
export function withScheme(draft: AgentDraft, scheme: A2aSecuritySchemeView): AgentDraft {
  const kind = authKindFor(scheme);
  if (!kind) return draft;
  return {
    ...draft,
    authKind: kind,
    scheme: scheme.name,
    ...(kind === 'apiKey' ? { apiKeyIn: scheme.location === 'query' ? 'query' : 'header', apiKeyName: draft.apiKeyName || scheme.paramName || '' } : {}),
    ...(kind === 'oauth2ClientCredentials'
      ? { tokenUrl: draft.tokenUrl || scheme.tokenUrl || '', scopes: draft.scopes || (scheme.scopes ?? []).join(' ') }
      : {}),
  };
}

/** "Sample Agent" → "sample-agent": a card name made fit for a saved agent's name. */
export function nameFromCard(cardName: string): string {
  return cardName
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '')
    .slice(0, 64);
}
