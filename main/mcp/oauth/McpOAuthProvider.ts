import { randomBytes } from 'node:crypto';
import {
  resourceUrlFromServerUrl,
  type AuthorizationServerMetadata,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../../../shared/oauth';
import type { OAuthStepLog } from './OAuthStepLog';
import type { OAuthStore, StoredTokens } from './OAuthStore';

export interface McpOAuthProviderOptions {
  server: string;
  serverUrl: URL;
  store: OAuthStore;
  log: OAuthStepLog;
  clientName: string;
}

/** What one run of the SDK's `auth()` needs that does not come from the store. */
export interface FlowSetup {
  settings: OAuthSettings;
  clientSecret?: string;
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
  /** The URL `auth()` asked us to send the user to, in this flow. */
  authorizationUrl?: URL;

  constructor(private readonly options: McpOAuthProviderOptions) {}

  /** Called before each `auth()` run. */
  begin(setup: FlowSetup) {
    this.flow = setup;
    this.resource = undefined;
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
    return this.setup.settings.grant === 'client_credentials' ? undefined : this.setup.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.setup.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { settings, redirectUrl } = this.setup;
    if (settings.grant === 'client_credentials') {
      return { client_name: this.options.clientName, redirect_uris: [], grant_types: ['client_credentials'], ...(settings.scopes ? { scope: settings.scopes } : {}) };
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
    const { settings, clientSecret } = this.setup;
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

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    if (ctx) return this.options.store.tokens(ctx.issuer, this.resourceKey);
    const { binding } = this.options.store.record(this.options.server);
    return binding ? this.options.store.tokens(binding.issuer, binding.resource) : undefined;
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

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.setup.settings.grant !== 'client_credentials') return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
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
