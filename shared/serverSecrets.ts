import type { McpServerConfig } from './mcp';
import { credentialsMayGoTo } from './endpointOrigin';
import { isSecretSetting, SECRET_PLACEHOLDER } from './secrets';

/**
 * Where a saved server keeps a secret, relative to the server: `env:<VAR>`, `header:<Name>`,
 * `url:password`, `url:query:<name>` and `bearer`. In the SecretStore the key is
 * `mcp:<server>:<slot>`.
 */
export type SecretSlot = string;

export const secretKey = (server: string, slot: SecretSlot) => `mcp:${server}:${slot}`;
export const BEARER_SLOT = 'bearer';

export interface SealedServerConfig {
  /** What is stored and shown: every secret value replaced by `***` or left out. */
  config: McpServerConfig;
  /** New secret values by slot, for the SecretStore. */
  values: Record<SecretSlot, string>;
  /** Slots the input left as `***`: their stored values stay. */
  kept: SecretSlot[];
}

/**
 * Every environment variable and header value of a saved server is sealed, whatever its name: a
 * guess from names and values missed credentials such as `GITHUB_PAT=…`. Only an empty value,
 * which holds nothing, stays in the file, and a value a registry supplied (`plainEnv`,
 * `plainHeaders`): the registry published it, so it is no secret, and the user must be able to
 * read what it set.
 */
const isSealedValue = (value: string) => value !== '';

/**
 * Splits a server config as a user typed it into what may be written to servers.json and what
 * must go to the SecretStore: every environment variable and header value, a URL's password and
 * credential query parameters. Pure, so the local reconciler can compare a resource's server with
 * the saved one in the same sealed form.
 *
 * `explicitEnv` are values for variables the caller already named secret (`config.secretEnv`).
 */
export function sealServerConfig(input: McpServerConfig, explicitEnv: Record<string, string> = {}): SealedServerConfig {
  const values: Record<SecretSlot, string> = {};
  const kept: SecretSlot[] = [];
  const route = (slot: SecretSlot, value: string) => (value === SECRET_PLACEHOLDER ? kept.push(slot) : (values[slot] = value));

  if (input.transport === 'stdio') {
    const env: Record<string, string> = {};
    const secretEnv = new Set(input.secretEnv);
    const plainEnv = new Set(input.plainEnv);
    for (const [name, value] of Object.entries(input.env)) {
      if (secretEnv.has(name) || (isSealedValue(value) && !plainEnv.has(name))) {
        secretEnv.add(name);
        route(`env:${name}`, value);
      } else env[name] = value;
    }
    for (const name of secretEnv) {
      if (name in input.env) continue;
      if (explicitEnv[name] !== undefined) values[`env:${name}`] = explicitEnv[name];
      else kept.push(`env:${name}`);
    }
    return { config: { ...input, env, secretEnv: [...secretEnv].sort() }, values, kept };
  }

  const headers: Record<string, string> = {};
  const secretHeaders = new Set(input.secretHeaders);
  const plainHeaders = new Set(input.plainHeaders);
  for (const [name, value] of Object.entries(input.headers)) {
    if (secretHeaders.has(name) || (isSealedValue(value) && !plainHeaders.has(name))) {
      secretHeaders.add(name);
      route(`header:${name}`, value);
    } else headers[name] = value;
  }
  for (const name of secretHeaders) if (!(name in input.headers)) kept.push(`header:${name}`);

  const url = new URL(input.url);
  const urlSecrets = new Set<string>();
  if (url.password) {
    urlSecrets.add('password');
    route('url:password', url.password);
    url.password = SECRET_PLACEHOLDER;
  }
  const byName = new Map<string, string[]>();
  const pairs = queryPairs(url).map((pair) => {
    if (!isSecretSetting(pair.name, pair.decodedValue)) return pair.raw;
    byName.set(pair.name, [...(byName.get(pair.name) ?? []), pair.rawValue]);
    return `${pair.rawName}=${SECRET_PLACEHOLDER}`;
  });
  for (const [name, raw] of byName) {
    urlSecrets.add(`query:${name}`);
    if (raw.every((value) => value === SECRET_PLACEHOLDER)) kept.push(`url:query:${name}`);
    else values[`url:query:${name}`] = JSON.stringify(raw);
  }
  if (byName.size > 0) url.search = pairs.join('&');
  return {
    // Untouched unless something was sealed: serializing would normalize the URL the user wrote.
    config: { ...input, url: urlSecrets.size > 0 ? url.toString() : input.url, headers, secretHeaders: [...secretHeaders].sort(), urlSecrets: [...urlSecrets].sort() },
    values,
    kept,
  };
}

/**
 * A sealed value is masked wherever it appears in records (history, transcripts, errors, logs) when
 * it is a credential by name or look, or long enough to be one. An environment or header value
 * sealed only because every such value is (`DEBUG=true`, `PORT=3001`, `LOG_LEVEL=info`) is masked
 * from this length on: masking `true` or `3001` in every recorded result would garble history, and
 * values that short are not credentials.
 */
export const PLAIN_SETTING_MASK_MIN_LENGTH = 8;

/** Whether the value stored under this SecretStore key is masked in records (see PLAIN_SETTING_MASK_MIN_LENGTH). */
export function isMaskedInRecords(key: string, value: string): boolean {
  const setting = /^mcp:[^:]+:(?:env|header):(.+)$/.exec(key);
  if (!setting) return true;
  return value.length >= PLAIN_SETTING_MASK_MIN_LENGTH || isSecretSetting(setting[1]!, value);
}

/** The values of a server's secrets (by slot) that are masked in records. */
export function valuesMaskedInRecords(server: string, secrets: Record<SecretSlot, string | undefined>): string[] {
  return Object.entries(secrets).flatMap(([slot, value]) => (value !== undefined && isMaskedInRecords(secretKey(server, slot), value) ? [value] : []));
}

/**
 * Where a saved server's secrets go: the origin (scheme, host and port) of an HTTP server's URL —
 * the endpoint its bearer token, headers, URL password and OAuth tokens were given for — or, for a
 * stdio server, the local process it starts.
 */
export function secretDestination(config: McpServerConfig): string {
  return config.transport === 'stdio' ? 'a local command' : new URL(config.url).origin;
}

/**
 * Whether an edit from `previous` to `next` may keep the secrets stored for `previous` (the values
 * an edit leaves as `***`, the bearer token it leaves out, the OAuth tokens and client
 * registration): only when they would still go to the same origin (`credentialsMayGoTo`, the one
 * rule every kind of credential follows). A server that keeps its name but points at another
 * origin — or moves from https to http — starts with no secrets: they follow the endpoint they were
 * given for, never the name. Moving from http to https on the same host keeps them.
 */
export function keepsStoredSecrets(previous: McpServerConfig, next: McpServerConfig): boolean {
  if (previous.transport === 'stdio' || next.transport === 'stdio') return previous.transport === next.transport;
  return credentialsMayGoTo(previous.url, next.url);
}

/**
 * The registry's readable values (`plainEnv`, `plainHeaders` of `previous`) that an edit leaves as
 * they were stay readable: an edit form that knows nothing of them sends the config without those
 * lists. A value the edit changed is the user's now, and is sealed like any typed value.
 */
export function carryPlainValues(next: McpServerConfig, previous: McpServerConfig | undefined): McpServerConfig {
  if (!previous) return next;
  if (next.transport === 'stdio' && previous.transport === 'stdio') {
    if (next.plainEnv !== undefined || !previous.plainEnv?.length) return next;
    const kept = previous.plainEnv.filter((name) => next.env[name] !== undefined && next.env[name] === previous.env[name]);
    return kept.length ? { ...next, plainEnv: kept } : next;
  }
  if (next.transport !== 'stdio' && previous.transport !== 'stdio') {
    if (next.plainHeaders !== undefined || !previous.plainHeaders?.length) return next;
    const kept = previous.plainHeaders.filter((name) => next.headers[name] !== undefined && next.headers[name] === previous.headers[name]);
    return kept.length ? { ...next, plainHeaders: kept } : next;
  }
  return next;
}

/** Every slot a sealed config has a value for in the SecretStore. */
export function secretSlots(config: McpServerConfig): SecretSlot[] {
  if (config.transport === 'stdio') return config.secretEnv.map((name) => `env:${name}`);
  return [...config.secretHeaders.map((name) => `header:${name}`), ...config.urlSecrets.map((part) => `url:${part}`), ...(config.hasBearerToken ? [BEARER_SLOT] : [])];
}

/**
 * The config a transport needs — the sealed one with its secrets put back, a plain config again —
 * for the process or request that uses it, never for a file or a view. Slots with no stored value
 * stay out.
 */
export function unsealServerConfig(config: McpServerConfig, secrets: Record<SecretSlot, string | undefined>): McpServerConfig {
  if (config.transport === 'stdio') {
    const env = { ...config.env };
    for (const name of config.secretEnv) {
      const value = secrets[`env:${name}`];
      if (value !== undefined) env[name] = value;
    }
    return { ...config, env, secretEnv: [] };
  }
  const headers = { ...config.headers };
  for (const name of config.secretHeaders) {
    const value = secrets[`header:${name}`];
    if (value !== undefined) headers[name] = value;
  }
  if (config.urlSecrets.length === 0) return { ...config, headers, secretHeaders: [] };
  const url = new URL(config.url);
  if (config.urlSecrets.includes('password')) url.password = secrets['url:password'] ?? '';
  const queryValues = new Map<string, string[]>();
  for (const part of config.urlSecrets) {
    if (!part.startsWith('query:')) continue;
    const stored = secrets[`url:${part}`];
    if (stored !== undefined) queryValues.set(part.slice('query:'.length), JSON.parse(stored) as string[]);
  }
  if (queryValues.size > 0) {
    url.search = queryPairs(url)
      .map((pair) => {
        const pending = queryValues.get(pair.name);
        return pending?.length && pair.rawValue === SECRET_PLACEHOLDER ? `${pair.rawName}=${pending.shift()}` : pair.raw;
      })
      .join('&');
  }
  return { ...config, headers, secretHeaders: [], urlSecrets: [], url: url.toString() };
}

interface QueryPair {
  raw: string;
  rawName: string;
  rawValue: string;
  name: string;
  decodedValue: string;
}

/** The query as written, pair by pair: rebuilding it through URLSearchParams would re-encode every value. */
function queryPairs(url: URL): QueryPair[] {
  const query = url.search.replace(/^\?/, '');
  if (query === '') return [];
  return query.split('&').map((raw) => {
    const at = raw.indexOf('=');
    const rawName = at < 0 ? raw : raw.slice(0, at);
    const rawValue = at < 0 ? '' : raw.slice(at + 1);
    return { raw, rawName, rawValue, name: decodeQueryPart(rawName), decodedValue: decodeQueryPart(rawValue) };
  });
}

function decodeQueryPart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
