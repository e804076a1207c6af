import type { FetchLike } from '@modelcontextprotocol/client';
import type { OAuthStepKind } from '../../../shared/oauth';
import type { OAuthStepLog } from './OAuthStepLog';

/** What the recorder needs to know beyond the request itself. */
export interface RecordingHints {
  /** The resource_metadata URL from the server's challenge, which need not be a well-known path. */
  resourceMetadataUrl?: string;
}

const GRANT_STEP: Record<string, OAuthStepKind> = {
  authorization_code: 'token',
  refresh_token: 'refresh',
  client_credentials: 'client-credentials',
  'urn:ietf:params:oauth:grant-type:jwt-bearer': 'jwt-bearer',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'token-exchange',
};

const TOKEN_STEPS: readonly OAuthStepKind[] = ['token', 'refresh', 'client-credentials', 'jwt-bearer', 'token-exchange'];

/**
 * A fetch for the SDK's OAuth helpers that writes each request into the step log: discovery
 * documents with their JSON, registration, token requests with the server's error on failure.
 * Discovery fallbacks (404 at one well-known location, then the next) stay in one step.
 */
export function createRecordingFetch(log: OAuthStepLog, hints: RecordingHints = {}, base: FetchLike = fetch): FetchLike {
  let registrationEndpoint: string | undefined;
  let tokenEndpoint: string | undefined;
  const attempts = new Map<number, string[]>();

  const closeDanglingDiscovery = (except: OAuthStepKind) => {
    for (const kind of ['resource-metadata', 'authorization-server-metadata'] as const) {
      const step = log.latest(kind);
      if (kind === except || step?.status !== 'pending') continue;
      log.ok(step.seq, { detail: `Not published (${(attempts.get(step.seq) ?? []).join('; ')}); continuing without it` });
    }
  };

  return async (input, init) => {
    const url = new URL(input);
    const method = (init?.method ?? 'GET').toUpperCase();
    const kind = classify(url, method, init?.body, { hints, registrationEndpoint, tokenEndpoint });
    if (!kind) return base(input, init);
    closeDanglingDiscovery(kind);

    const discovery = kind === 'resource-metadata' || kind === 'authorization-server-metadata';
    const pending = discovery ? log.latest(kind) : undefined;
    const seq = pending?.status === 'pending' ? pending.seq : log.begin(kind, { method, url: url.href, detail: requestDetail(kind, init) });

    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      log.fail(seq, `${method} ${url.href}: ${(error as Error).message}`, { url: url.href });
      throw error;
    }
    const text = await response.clone().text().catch(() => '');
    const json = parseJson(text);

    if (discovery && response.status === 404) {
      attempts.set(seq, [...(attempts.get(seq) ?? []), `HTTP 404 at ${url.href}`]);
      return response;
    }
    if (response.status === 400 && (json as { error?: unknown } | undefined)?.error === 'use_dpop_nonce' && new Headers(init?.headers).has('dpop')) {
      // RFC 9449 §8: not a failure — the server hands out a nonce and the SDK retries with it.
      log.ok(seq, { url: url.href, httpStatus: 400, detail: 'The authorization server asked for a DPoP nonce; retrying with it' });
      return response;
    }
    if (!response.ok) {
      log.fail(seq, serverError(response.status, json, text), { url: url.href, httpStatus: response.status, document: json });
      return response;
    }
    if (kind === 'authorization-server-metadata' && json && typeof json === 'object') {
      const metadata = json as { registration_endpoint?: string; token_endpoint?: string };
      registrationEndpoint = metadata.registration_endpoint;
      tokenEndpoint = metadata.token_endpoint;
    }
    const tried = attempts.get(seq);
    log.ok(seq, {
      url: url.href,
      httpStatus: response.status,
      document: json,
      detail: [responseDetail(kind, json, init), tried?.length ? `after ${tried.join('; ')}` : undefined].filter(Boolean).join(' — ') || undefined,
    });
    return response;
  };
}

function classify(
  url: URL,
  method: string,
  body: unknown,
  known: { hints: RecordingHints; registrationEndpoint?: string; tokenEndpoint?: string },
): OAuthStepKind | undefined {
  if (method === 'GET') {
    if (url.pathname.includes('/.well-known/oauth-protected-resource') || (known.hints.resourceMetadataUrl && url.href === known.hints.resourceMetadataUrl)) return 'resource-metadata';
    if (url.pathname.includes('/.well-known/oauth-authorization-server') || url.pathname.includes('/.well-known/openid-configuration')) return 'authorization-server-metadata';
    return undefined;
  }
  if (method !== 'POST') return undefined;
  const form = formBody(body);
  if (form) return GRANT_STEP[form.get('grant_type') ?? ''] ?? (url.href === known.tokenEndpoint ? 'token' : undefined);
  if (url.href === known.registrationEndpoint || (typeof body === 'string' && /"redirect_uris"|"client_name"/.test(body) && url.pathname.endsWith('/register'))) return 'registration';
  return undefined;
}

/** A token request's form body: the SDK sends URLSearchParams, the token exchange helper a string. */
function formBody(body: unknown): URLSearchParams | undefined {
  if (body instanceof URLSearchParams) return body;
  if (typeof body === 'string' && /^[\w.~%-]+=/.test(body) && body.includes('grant_type=')) return new URLSearchParams(body);
  return undefined;
}

function requestDetail(kind: OAuthStepKind, init: RequestInit | undefined): string | undefined {
  if (TOKEN_STEPS.includes(kind)) {
    const params = formBody(init?.body);
    const headers = new Headers(init?.headers);
    const method = headers.get('authorization')?.startsWith('Basic ')
      ? 'client_secret_basic'
      : params?.has('client_assertion')
        ? 'private_key_jwt'
        : params?.has('client_secret')
          ? 'client_secret_post'
          : 'none';
    const parts = [`client authentication: ${method}`];
    if (headers.has('dpop')) parts.push('DPoP proof');
    if (kind === 'token-exchange') parts.push(`audience ${params?.get('audience') ?? '(none)'}`);
    if (params?.get('resource')) parts.push(`resource ${params.get('resource')}`);
    if (params?.get('scope')) parts.push(`scope "${params.get('scope')}"`);
    return parts.join(', ');
  }
  if (kind === 'registration') return 'Dynamic client registration (RFC 7591)';
  return undefined;
}

function responseDetail(kind: OAuthStepKind, json: unknown, init: RequestInit | undefined): string | undefined {
  const doc = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  switch (kind) {
    case 'resource-metadata':
      return Array.isArray(doc.authorization_servers) ? `authorization servers: ${doc.authorization_servers.join(', ')}` : undefined;
    case 'authorization-server-metadata':
      return typeof doc.issuer === 'string' ? `issuer ${doc.issuer}` : undefined;
    case 'registration':
      return `Dynamic client registration: client_id ${String(doc.client_id)}`;
    case 'token-exchange':
      return [requestDetail(kind, init), `${String(doc.issued_token_type ?? 'token').replace('urn:ietf:params:oauth:token-type:', '')} issued`].join(', ');
    case 'token':
    case 'refresh':
    case 'client-credentials':
    case 'jwt-bearer':
      return [
        requestDetail(kind, init),
        `${String(doc.token_type ?? 'token')} issued`,
        doc.expires_in !== undefined ? `expires in ${String(doc.expires_in)} s` : undefined,
        doc.scope ? `scope "${String(doc.scope)}"` : undefined,
        doc.refresh_token ? 'with a refresh token' : undefined,
      ]
        .filter(Boolean)
        .join(', ');
    default:
      return undefined;
  }
}

/** The server's own words: `error: error_description` from an OAuth error body, else the raw text. */
export function serverError(status: number, json: unknown, text: string): string {
  const body = json && typeof json === 'object' ? (json as { error?: unknown; error_description?: unknown }) : undefined;
  if (body && typeof body.error === 'string') return `HTTP ${status}: ${body.error}${typeof body.error_description === 'string' ? ` — ${body.error_description}` : ''}`;
  return `HTTP ${status}${text ? `: ${text.slice(0, 300)}` : ''}`;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
