import { randomBytes } from 'node:crypto';
import {
  createPrivateKeyJwtAuth,
  discoverAuthorizationServerMetadata,
  DPOP_SUPPORTED_ALGS,
  requestJwtAuthorizationGrant,
  resourceUrlFromServerUrl,
  type AddClientAuthentication,
  type AuthorizationServerMetadata,
  type DpopAlg,
  type DpopSession,
  type FetchLike,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { NON_INTERACTIVE_GRANTS, type OAuthClientAuth, type OAuthSettings } from '../../../shared/oauth';
import { OAuthFlowError } from './OAuthFlowError';
import type { OAuthStepLog } from './OAuthStepLog';
import type { OAuthStore, StoredTokens } from './OAuthStore';
import { clientKeyMaterial, createDpopKey, dpopSessionFromStored, guessAlgorithm } from './signingKeys';

const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface McpOAuthProviderOptions {
  server: string;
  serverUrl: URL;
  store: OAuthStore;
  log: OAuthStepLog;
  clientName: string;
}

/** The secrets one flow uses, read from the secret store (or a token file) when it starts. */
export interface FlowSecrets {
  clientSecret?: string;
  /** PKCS #8 PEM or private JWK JSON for `private_key_jwt`. */
  privateKey?: string;
  /** The workload identity token of `jwt_bearer`. */
  assertion?: string;
  idpClientSecret?: string;
  /** The enterprise ID token of `enterprise_managed`. */
  idToken?: string;
}

/** What one run of the SDK's `auth()` needs that does not come from the store. */
export interface FlowSetup {
  settings: OAuthSettings;
  secrets: FlowSecrets;
  /** The flow's fetch (it records steps): the identity provider's token exchange goes through it too. */
  fetchFn?: FetchLike;
  redirectUrl: string;
  /** Use the discovery saved earlier (refresh, the callback leg) instead of discovering again. */
  cachedDiscovery: boolean;
  /** A session that never opens a browser: an authorization URL it builds is abandoned, not shown. */
  passive: boolean;
}

/**
 * The SDK's view of one server's OAuth client: who we are (pre-registered client, client metadata
 * document, or a dynamic registration), where tokens are kept (the SecretStore, keyed by issuer and
 * resource), and the per-flow PKCE verifier and state. `auth()` drives it; the step log shows it.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private flow?: FlowSetup;
  private resource?: string;
  private verifier?: string;
  private expectedState?: string;
  private discovery?: OAuthDiscoveryState;
  private reportedClient = false;
  private dpopSession?: DpopSession;
  private dpopKeyMissing = false;
  /** Assertion grants sent in this flow: an assertion the server refused is not sent again (SEP-1933). */
  private assertionsSent = 0;
  /** The URL `auth()` asked us to send the user to, in this flow. */
  authorizationUrl?: URL;
  /** True while `auth()` runs: only then may a DPoP key be created (for a token request). */
  authorizing = false;

  constructor(private readonly options: McpOAuthProviderOptions) {}

  /** Called before each `auth()` run. */
  begin(setup: FlowSetup) {
    this.flow = setup;
    this.resource = undefined;
    this.assertionsSent = 0;
    if (!setup.cachedDiscovery) {
      this.reportedClient = false;
      this.authorizationUrl = undefined;
    }
  }

  state(): string {
    this.expectedState = randomBytes(24).toString('base64url');
    return this.expectedState;
  }

  /** The `state` sent with the authorization request of this flow; the callback must echo it. */
  get sentState(): string | undefined {
    return this.expectedState;
  }

  get redirectUrl(): string | undefined {
    return NON_INTERACTIVE_GRANTS.includes(this.setup.settings.grant) ? undefined : this.setup.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.setup.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { settings, redirectUrl } = this.setup;
    if (NON_INTERACTIVE_GRANTS.includes(settings.grant)) {
      const grantTypes = settings.grant === 'client_credentials' ? ['client_credentials'] : [JWT_BEARER_GRANT];
      return { client_name: this.options.clientName, redirect_uris: [], grant_types: grantTypes, ...(settings.scopes ? { scope: settings.scopes } : {}) };
    }
    return {
      client_name: this.options.clientName,
      redirect_uris: [redirectUrl],
      // Listed so the SDK asks for offline_access where the server offers it, and so servers that
      // gate refresh tokens on registered grant types issue one.
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(settings.scopes ? { scope: settings.scopes } : {}),
    };
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const { settings } = this.setup;
    const { clientSecret } = this.setup.secrets;
    if (settings.clientId) {
      const { preRegisteredIssuer } = this.options.store.record(this.options.server);
      this.reportClient(`Pre-registered client ${settings.clientId}${clientSecret ? ' (with a client secret)' : ' (public client)'}`);
      return { client_id: settings.clientId, ...(clientSecret ? { client_secret: clientSecret } : {}), ...(preRegisteredIssuer ? { issuer: preRegisteredIssuer } : {}) };
    }
    if (!ctx) return undefined;
    const stored = await this.options.store.client(ctx.issuer, this.resourceKey);
    if (stored) this.reportClient(stored.client_id === this.clientMetadataUrl ? `Client ID Metadata Document ${stored.client_id}` : `Registered earlier: client_id ${stored.client_id}`);
    return stored;
  }

  async saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext) {
    const issuer = info.issuer ?? ctx?.issuer;
    const { settings } = this.setup;
    if (settings.clientId && info.client_id === settings.clientId) {
      // The pre-registered id is bound to the first issuer it is used with; the secret stays where the user put it.
      await this.options.store.update(this.options.server, { preRegisteredIssuer: issuer });
      return;
    }
    if (!issuer) return;
    await this.options.store.saveClient(issuer, this.resourceKey, info);
    // A dynamic registration is in the log already (its HTTP exchange); a metadata document has none.
    const reported = this.reportedClient;
    this.reportedClient = true;
    if (info.client_id === this.clientMetadataUrl && !reported) {
      this.options.log.record('registration', 'ok', { detail: `Client ID Metadata Document: client_id ${info.client_id}`, document: this.clientMetadata });
    }
  }

  /**
   * The tokens to present. Without a context (a request to the MCP server), those of the server's
   * binding — only while the server's URL has the origin of the resource they were issued for: a
   * server whose URL now names another origin gets none, however its settings came to say so.
   */
  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    if (ctx) return this.options.store.tokens(ctx.issuer, this.resourceKey);
    const { binding } = this.options.store.record(this.options.server);
    if (!binding || !sameOrigin(binding.resource, this.options.serverUrl)) return undefined;
    return this.options.store.tokens(binding.issuer, binding.resource);
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext) {
    const issuer = ctx?.issuer ?? tokens.issuer;
    if (!issuer) return;
    const resource = this.resourceKey;
    const stored: StoredTokens = { ...tokens, issuer, obtained_at: Date.now() };
    await this.options.store.saveTokens(issuer, resource, stored);
    await this.options.store.update(this.options.server, { binding: { issuer, resource } });
  }

  redirectToAuthorization(authorizationUrl: URL) {
    this.authorizationUrl = authorizationUrl;
    if (this.setup.passive) return;
    const params = authorizationUrl.searchParams;
    const detail = [
      `PKCE ${params.get('code_challenge_method') ?? 'none'}`,
      params.get('scope') ? `scope "${params.get('scope')}"` : 'no scope',
      params.get('resource') ? `resource ${params.get('resource')}` : undefined,
      `client_id ${params.get('client_id')}`,
    ]
      .filter(Boolean)
      .join(', ');
    this.options.log.record('authorization', 'ok', { url: authorizationUrl.href, detail });
  }

  saveCodeVerifier(codeVerifier: string) {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No PKCE code verifier: the authorization flow was not started by this client');
    return this.verifier;
  }

  saveResourceUrl(resourceUrl: string) {
    this.resource = resourceUrl;
  }

  resourceUrl(): string | undefined {
    return this.resource;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
    await this.options.store.update(this.options.server, { discovery: JSON.parse(JSON.stringify(state)) as Record<string, unknown> });
  }

  /** The authorization server metadata of the current flow, once discovered. */
  get knownMetadata(): AuthorizationServerMetadata | undefined {
    return (this.discovery ?? this.options.store.discovery(this.options.server))?.authorizationServerMetadata;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    if (!this.setup.cachedDiscovery) return undefined;
    return this.discovery ?? this.options.store.discovery(this.options.server);
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    const { store, server } = this.options;
    const binding = store.record(server).binding;
    const issuer = binding?.issuer ?? this.discovery?.authorizationServerMetadata?.issuer;
    if ((scope === 'all' || scope === 'tokens') && binding) await store.deleteTokens(binding.issuer, binding.resource);
    if ((scope === 'all' || scope === 'client') && issuer) await store.deleteClient(issuer, this.resourceKey);
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') {
      this.discovery = undefined;
      await store.update(server, { discovery: undefined });
    }
  }

  /**
   * The grant of a flow without a browser: client credentials, a workload identity token, or an
   * identity assertion grant obtained from the enterprise identity provider first.
   */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    const { settings, secrets } = this.setup;
    let params: URLSearchParams;
    switch (settings.grant) {
      case 'client_credentials':
        params = new URLSearchParams({ grant_type: 'client_credentials' });
        break;
      case 'jwt_bearer':
        if (!secrets.assertion) throw new Error('No workload identity token: set a token file or store a token in the authorization settings');
        params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: this.spendAssertion(secrets.assertion) });
        break;
      case 'enterprise_managed':
        this.spendAssertion('');
        params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: await this.identityAssertionGrant(scope) });
        break;
      default:
        return undefined;
    }
    if (scope) params.set('scope', scope);
    return params;
  }

  /**
   * Client authentication at the token endpoint for a pre-registered client: the method the
   * settings name, or `private_key_jwt` where a key is stored and the server offers it; otherwise
   * the SDK picks from the server's metadata.
   */
  get addClientAuthentication(): AddClientAuthentication | undefined {
    if (!this.flow?.settings.clientId) return undefined;
    const { settings, secrets } = this.flow;
    const clientId = settings.clientId!;
    const method = this.clientAuthMethod();
    switch (method) {
      case 'private_key_jwt': {
        const key = secrets.privateKey;
        if (!key) return () => Promise.reject(new Error('private_key_jwt needs the client private key: store one in the authorization settings'));
        const alg = settings.signingAlg ?? guessAlgorithm(key) ?? 'ES256';
        return createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey: clientKeyMaterial(key), alg });
      }
      case 'client_secret_basic':
        return (headers) => {
          // RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
          const credentials = `${encodeURIComponent(clientId)}:${encodeURIComponent(secrets.clientSecret ?? '')}`;
          headers.set('Authorization', `Basic ${Buffer.from(credentials).toString('base64')}`);
        };
      case 'client_secret_post':
        return (_headers, params) => {
          params.set('client_id', clientId);
          if (secrets.clientSecret) params.set('client_secret', secrets.clientSecret);
        };
      case 'none':
        return (_headers, params) => void params.set('client_id', clientId);
      default:
        return undefined;
    }
  }

  private clientAuthMethod(): OAuthClientAuth | undefined {
    const { settings, secrets } = this.setup;
    if (settings.clientAuth) return settings.clientAuth;
    const offered = this.knownMetadata?.token_endpoint_auth_methods_supported;
    if (secrets.privateKey && (!secrets.clientSecret || offered?.includes('private_key_jwt'))) return 'private_key_jwt';
    return undefined;
  }

  /**
   * The DPoP session of this server's tokens (RFC 9449). During a token request: in `auto` mode
   * only where the authorization server advertises an algorithm we sign with, and the key is
   * created then; for resource requests: the stored key, so a DPoP-bound token keeps its proofs
   * (the SDK presents a Bearer token unchanged).
   */
  async dpop(): Promise<DpopSession | undefined> {
    const settings = this.flow?.settings ?? this.options.store.record(this.options.server).settings;
    const mode = settings.dpop ?? 'auto';
    if (mode === 'off') return undefined;
    if (!this.authorizing) return this.loadDpop(undefined);
    const alg = mode === 'always' ? (this.dpopAlgorithm() ?? 'ES256') : this.dpopAlgorithm();
    return alg ? this.loadDpop(alg) : undefined;
  }

  /** The thumbprint (`cnf.jkt`) of the stored DPoP key, for the panel. */
  async dpopThumbprint(): Promise<string | undefined> {
    return (await this.loadDpop(undefined))?.thumbprint;
  }

  /** The first algorithm the authorization server lists for DPoP proofs that the SDK can sign with. */
  private dpopAlgorithm(): DpopAlg | undefined {
    const offered = (this.knownMetadata as { dpop_signing_alg_values_supported?: unknown } | undefined)?.dpop_signing_alg_values_supported;
    if (!Array.isArray(offered)) return undefined;
    return (offered as string[]).find((alg): alg is DpopAlg => (DPOP_SUPPORTED_ALGS as readonly string[]).includes(alg));
  }

  private async loadDpop(createWith: DpopAlg | undefined): Promise<DpopSession | undefined> {
    if (this.dpopSession) return this.dpopSession;
    // A resource request asks on every call: a key found missing once is not looked for again by
    // resource requests (the secret store may read files or the OS keychain); a token request
    // (which makes the key) and a new session look afresh.
    if (!createWith && this.dpopKeyMissing) return undefined;
    const { store, server } = this.options;
    const stored = await store.secret(server, 'dpop-key');
    if (!stored && !createWith) this.dpopKeyMissing = true;
    let session = stored ? await dpopSessionFromStored(stored) : undefined;
    if (!session && createWith) {
      const created = await createDpopKey(createWith);
      await store.setSecret(server, 'dpop-key', created);
      session = await dpopSessionFromStored(created);
    }
    this.dpopSession ??= session;
    return this.dpopSession;
  }

  /**
   * The SDK retries a grant the server refused with invalid_client once; an assertion the server
   * refused would be refused again, so the retry stops here with the server's first answer in the log.
   */
  private spendAssertion(assertion: string): string {
    if (this.assertionsSent++ > 0) {
      const refused = this.options.log.lastFailure();
      throw new Error(refused?.error ?? 'The authorization server refused the assertion; it is not sent again');
    }
    return assertion;
  }

  /** SEP-990: the user's ID token, exchanged at the identity provider for an ID-JAG addressed to this server's authorization server. */
  private async identityAssertionGrant(scope: string | undefined): Promise<string> {
    const { settings, secrets, fetchFn } = this.setup;
    const idp = settings.idp;
    if (!idp) throw new Error('Enterprise-managed authorization needs an identity provider in the authorization settings');
    if (!secrets.idToken) throw new Error('No enterprise ID token: set an ID token file or store one in the authorization settings');
    const audience = this.knownMetadata?.issuer;
    if (!audience) throw new Error("The server's authorization server published no metadata: its issuer is the audience of the identity assertion");
    let tokenEndpoint = idp.tokenEndpoint;
    if (!tokenEndpoint) {
      try {
        tokenEndpoint = (await discoverAuthorizationServerMetadata(idp.issuer!, { fetchFn }))?.token_endpoint;
      } catch (error) {
        throw OAuthFlowError.atStep('token-exchange', `the identity provider's metadata at ${idp.issuer} cannot be used (${(error as Error).message.split('\n')[0]}); set its token endpoint instead`, error);
      }
      if (!tokenEndpoint) throw OAuthFlowError.atStep('token-exchange', `the identity provider ${idp.issuer} publishes no metadata naming its token endpoint; set the token endpoint instead`);
    }
    try {
      const result = await requestJwtAuthorizationGrant({ tokenEndpoint, audience, resource: this.resourceKey, idToken: secrets.idToken, clientId: idp.clientId, clientSecret: secrets.idpClientSecret, scope, fetchFn });
      return result.jwtAuthGrant;
    } catch (error) {
      throw OAuthFlowError.atStep('token-exchange', (error as Error).message, error);
    }
  }

  /** The RFC 8707 resource this flow is for: from the protected resource metadata, else the server URL. */
  private get resourceKey(): string {
    return this.resource ?? resourceUrlFromServerUrl(this.options.serverUrl).href;
  }

  private get setup(): FlowSetup {
    if (!this.flow) throw new Error('McpOAuthProvider used outside an authorization flow');
    return this.flow;
  }

  private reportClient(detail: string) {
    if (this.reportedClient || this.setup.passive) return;
    this.reportedClient = true;
    this.options.log.record('registration', 'ok', { detail });
  }
}

function sameOrigin(resource: string, serverUrl: URL): boolean {
  try {
    return new URL(resource).origin === serverUrl.origin;
  } catch {
    return false;
  }
}
