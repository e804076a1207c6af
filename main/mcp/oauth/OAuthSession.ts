import {
  auth,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  isStrictScopeSuperset,
  validateAuthorizationResponseIssuer,
  withDpopFromProvider,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { NON_INTERACTIVE_GRANTS, OAUTH_STEP_TITLES, type OAuthStepKind } from '../../../shared/oauth';
import { loadFlowSecrets } from './loadFlowSecrets';
import { PASSIVE_REDIRECT_URL, type Authorizer } from './Authorizer';
import { McpOAuthProvider, type FlowSetup } from './McpOAuthProvider';
import { OAuthFlowError, stepOfSdkError } from './OAuthFlowError';
import type { OAuthStepLog } from './OAuthStepLog';
import type { OAuthStore, StoredTokens } from './OAuthStore';
import { createRecordingFetch, type RecordingHints } from './recordingFetch';
import { StepUpBudget } from './StepUpBudget';

/** What a 401 or 403 said in its WWW-Authenticate header. */
export interface Challenge {
  status: number;
  resourceMetadataUrl?: string;
  scope?: string;
  error?: string;
  errorDescription?: string;
}

export interface OAuthSessionOptions {
  server: string;
  serverUrl: URL;
  store: OAuthStore;
  log: OAuthStepLog;
  clientName: string;
  /**
   * Who approves authorization URLs. Without one the session never opens a browser: it refreshes
   * and runs client-credentials grants on its own and otherwise asks for a sign-in.
   */
  authorizer?: Authorizer;
  /** The network below the session (tests; the default is global fetch). */
  baseFetch?: FetchLike;
  stepUp?: StepUpBudget;
  /** Told each challenge, so a later sign-in asks for what the server wants. */
  onChallenge?: (challenge: Challenge) => void;
}

/** Access tokens are refreshed this long before they expire, so a request does not race the expiry. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * MCP authorization for one connection to one server. Its `fetch` goes under the transport: it adds
 * the access token, answers 401 by discovering and authorizing (RFC 9728, RFC 8414, PKCE, RFC 8707)
 * through the SDK's `auth()`, steps up on 403 insufficient_scope within a budget, refreshes expired
 * tokens, and retries the request. Every step lands in the server's step log.
 */
export class OAuthSession {
  readonly provider: McpOAuthProvider;
  private readonly hints: RecordingHints = {};
  private readonly recordingFetch: FetchLike;
  /** Requests to the MCP server: a DPoP-bound token goes with the DPoP scheme and a fresh proof. */
  private readonly resourceFetch: FetchLike;
  private readonly stepUp: StepUpBudget;
  private requestedScope?: string;
  private inflight?: Promise<void>;
  private readonly seenSecrets = new Set<string>();
  private completed = 0;

  constructor(private readonly options: OAuthSessionOptions) {
    const base = options.baseFetch ?? fetch;
    this.provider = new McpOAuthProvider({ server: options.server, serverUrl: options.serverUrl, store: options.store, log: options.log, clientName: options.clientName });
    this.recordingFetch = createRecordingFetch(options.log, this.hints, base);
    this.resourceFetch = withDpopFromProvider(this.provider)(base);
    this.stepUp = options.stepUp ?? new StepUpBudget();
  }

  /** How many authorization flows of this session obtained tokens. */
  get authorizations(): number {
    return this.completed;
  }

  /** Resolves once no authorization flow of this session is running (whatever its outcome). */
  async settled(): Promise<void> {
    await this.inflight?.catch(() => undefined);
  }

  /** Token values this session has sent, for masking in transcripts and logs. */
  secrets(): readonly string[] {
    return [...this.seenSecrets];
  }

  /** The fetch the MCP transport uses for every request to the server. */
  readonly fetch: FetchLike = async (input, init) => {
    let response = await this.send(input, init);
    if (response.status === 401) {
      const challenge = readChallenge(response);
      await response.body?.cancel().catch(() => undefined);
      await this.onUnauthorized(challenge);
      response = await this.send(input, init);
      if (response.status === 401) {
        const again = readChallenge(response);
        const error = new OAuthFlowError('challenge', `The server refused the new access token (HTTP 401${again.errorDescription ? `: ${again.errorDescription}` : ''})`);
        this.options.log.record('challenge', 'failed', { httpStatus: 401, error: error.message });
        throw error;
      }
    }
    while (response.status === 403) {
      const challenge = readChallenge(response);
      if (challenge.error !== 'insufficient_scope') break;
      await response.body?.cancel().catch(() => undefined);
      await this.onInsufficientScope(challenge);
      response = await this.send(input, init);
    }
    return response;
  };

  /**
   * Runs the SDK's `auth()`; where it needs a browser, hands the authorization URL to the
   * authorizer, checks the redirect (state, error) and redeems the code (the SDK checks `iss`).
   */
  async authorize(options: { challenge?: Challenge; force?: boolean; cachedDiscovery?: boolean; authorizer?: Authorizer } = {}): Promise<void> {
    const { challenge, force = false, cachedDiscovery = false } = options;
    const authorizer = options.authorizer ?? this.options.authorizer;
    const { log, store, server, serverUrl } = this.options;
    const settings = store.record(server).settings;
    const setup: FlowSetup = {
      settings,
      secrets: {},
      fetchFn: this.recordingFetch,
      redirectUrl: authorizer?.redirectUrl ?? PASSIVE_REDIRECT_URL,
      cachedDiscovery,
      passive: !authorizer && !NON_INTERACTIVE_GRANTS.includes(settings.grant),
    };
    this.provider.begin(setup);
    this.hints.resourceMetadataUrl = challenge?.resourceMetadataUrl;
    this.requestedScope = computeScopeUnion(this.requestedScope, challenge?.scope);
    const runStart = log.nextSeq;
    const common = {
      serverUrl,
      resourceMetadataUrl: challenge?.resourceMetadataUrl ? new URL(challenge.resourceMetadataUrl) : undefined,
      scope: this.requestedScope,
      fetchFn: this.recordingFetch,
    };
    let phase: OAuthStepKind = 'resource-metadata';
    try {
      setup.secrets = await loadFlowSecrets(store, server, settings);
      this.provider.authorizing = true;
      const first = await auth(this.provider, { ...common, forceReauthorization: force });
      if (first === 'AUTHORIZED') {
        this.completed++;
        return;
      }
      if (!authorizer) throw this.signInRequired(runStart, challenge);
      phase = 'callback';
      const params = await authorizer.authorize(this.provider.authorizationUrl!);
      const { code, iss } = this.readCallback(params);
      phase = 'token';
      this.provider.begin({ ...setup, cachedDiscovery: true });
      await auth(this.provider, { ...common, authorizationCode: code, iss });
      this.completed++;
      authorizer.settle?.({ ok: true, message: `Tooldeck is signed in to ${server}.` });
    } catch (error) {
      const failure = this.explain(error, phase, runStart);
      authorizer?.settle?.({ ok: false, message: failure.message });
      throw failure;
    } finally {
      this.provider.authorizing = false;
      this.closeDanglingSteps(runStart);
    }
  }

  private async send(input: string | URL, init?: RequestInit): Promise<Response> {
    const token = await this.accessToken();
    const headers = new Headers(init?.headers);
    if (token) headers.set('Authorization', `Bearer ${token}`);
    return this.resourceFetch(input, { ...init, headers });
  }

  private async accessToken(): Promise<string | undefined> {
    let tokens = (await this.provider.tokens()) as StoredTokens | undefined;
    if (tokens && isExpired(tokens) && tokens.refresh_token) {
      await this.once(() => this.authorize({ cachedDiscovery: true }));
      tokens = (await this.provider.tokens()) as StoredTokens | undefined;
    }
    if (tokens?.access_token) this.seenSecrets.add(tokens.access_token);
    if (tokens?.refresh_token) this.seenSecrets.add(tokens.refresh_token);
    return tokens?.access_token;
  }

  private async onUnauthorized(challenge: Challenge) {
    const { log, store, server } = this.options;
    this.options.onChallenge?.(challenge);
    const settings = store.record(server).settings;
    const canProceed = !!this.options.authorizer || NON_INTERACTIVE_GRANTS.includes(settings.grant) || !!(await this.provider.tokens());
    await this.once(async () => {
      log.reset();
      log.record('challenge', 'ok', { httpStatus: 401, url: this.options.serverUrl.href, detail: describeChallenge(challenge) });
      if (!canProceed) throw this.signInRequired(log.nextSeq, challenge);
      await this.authorize({ challenge });
    });
  }

  private async onInsufficientScope(challenge: Challenge) {
    const { log } = this.options;
    const tokens = await this.provider.tokens();
    const wanted = computeScopeUnion(this.requestedScope, tokens?.scope, challenge.scope);
    try {
      this.stepUp.take(challenge.scope);
    } catch (error) {
      log.record('challenge', 'failed', { httpStatus: 403, error: (error as Error).message });
      throw error;
    }
    this.options.onChallenge?.({ ...challenge, scope: wanted });
    await this.once(async () => {
      log.record('challenge', 'ok', { httpStatus: 403, url: this.options.serverUrl.href, detail: `${describeChallenge(challenge)}; asking for "${wanted}"` });
      await this.authorize({ challenge: { ...challenge, scope: wanted }, force: isStrictScopeSuperset(wanted, tokens?.scope) });
    });
  }

  /** Concurrent requests that hit the same 401 share one authorization. */
  private once(run: () => Promise<void>): Promise<void> {
    this.inflight ??= run().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private readCallback(params: URLSearchParams): { code: string; iss?: string } {
    const { log } = this.options;
    const state = params.get('state');
    const iss = params.get('iss') ?? undefined;
    const fail = (message: string): never => {
      log.record('callback', 'failed', { error: message });
      throw new OAuthFlowError('callback', `${OAUTH_STEP_TITLES.callback} failed: ${message}`);
    };
    if (!this.provider.sentState || state !== this.provider.sentState) {
      fail(`the redirect's state ${state ? 'does not match the one this sign-in sent' : 'is missing'}; it was refused and no token was requested`);
    }
    const error = params.get('error');
    if (error) {
      // RFC 9207: an error from a mixed-up server must not be shown, so check `iss` before its text.
      const metadata = this.provider.knownMetadata;
      try {
        validateAuthorizationResponseIssuer({ iss, expectedIssuer: metadata?.issuer, issParameterSupported: metadata?.authorization_response_iss_parameter_supported === true });
      } catch {
        fail('the redirect came from a different authorization server (iss mismatch)');
      }
      fail(`the authorization server refused: ${error}${params.get('error_description') ? ` — ${params.get('error_description')}` : ''}`);
    }
    const code = params.get('code');
    if (!code) fail('the redirect carries no authorization code');
    log.record('callback', 'ok', { detail: `Authorization code received${iss ? `, iss ${iss}` : ''}` });
    return { code: code!, iss };
  }

  /** Names the step that failed, with the server's words where the HTTP log has them. */
  private explain(error: unknown, phase: OAuthStepKind, runStart: number): OAuthFlowError {
    const { log } = this.options;
    const failed = log.lastFailure(runStart);
    if (error instanceof OAuthFlowError) {
      if (!failed && !error.signInRequired) log.failLatest(error.oauthStep, error.message);
      return error;
    }
    if (failed?.error) return OAuthFlowError.atStep(failed.kind, failed.error, error);
    const pending = log.list().reverse().find((s) => s.seq >= runStart && s.status === 'pending');
    const step = stepOfSdkError(error, pending?.kind ?? phase);
    const message = (error as Error)?.message ?? String(error);
    log.failLatest(step, message);
    return OAuthFlowError.atStep(step, message, error);
  }

  private signInRequired(runStart: number, challenge?: Challenge): OAuthFlowError {
    const failed = this.options.log.lastFailure(runStart);
    if (failed) return new OAuthFlowError(failed.kind, `${failed.title} failed: ${failed.error}. Sign in again to continue.`, { signInRequired: true });
    if (challenge?.status === 403) {
      return new OAuthFlowError('challenge', `The server needs more permissions (scope "${challenge.scope ?? ''}"). Sign in again to grant them.`, { signInRequired: true });
    }
    return new OAuthFlowError(
      'challenge',
      `The server requires authorization (${challenge ? describeChallenge(challenge) : 'HTTP 401'}). Sign in from the Authorization panel or with \`tooldeck mcp login ${this.options.server}\`.`,
      { signInRequired: true },
    );
  }

  private closeDanglingSteps(runStart: number) {
    for (const step of this.options.log.list()) {
      if (step.seq >= runStart && step.status === 'pending') this.options.log.ok(step.seq, { detail: step.detail ?? 'Not needed' });
    }
  }
}

function readChallenge(response: Response): Challenge {
  const params = extractWWWAuthenticateParams(response);
  return { status: response.status, resourceMetadataUrl: params.resourceMetadataUrl?.href, scope: params.scope, error: params.error, errorDescription: params.errorDescription };
}

/** `HTTP 401, scope "…", resource_metadata …` for the step log. */
export function describeChallenge(challenge: Challenge | undefined): string {
  if (!challenge) return '';
  const parts = [
    `HTTP ${challenge.status}`,
    challenge.error ? `error ${challenge.error}` : undefined,
    challenge.scope ? `scope "${challenge.scope}"` : undefined,
    challenge.resourceMetadataUrl ? `resource_metadata ${challenge.resourceMetadataUrl}` : 'no resource_metadata (well-known locations are tried)',
  ];
  return parts.filter(Boolean).join(', ');
}

function isExpired(tokens: StoredTokens): boolean {
  if (tokens.expires_in === undefined || !tokens.obtained_at) return false;
  return tokens.obtained_at + tokens.expires_in * 1000 - EXPIRY_MARGIN_MS < Date.now();
}
