import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

interface IssuedToken {
  clientId: string;
  scopes: string[];
  resource?: string;
  expiresAt: number;
}

/**
 * The decisions of an authorization server for tests, plugged into the SDK's real OAuth router
 * (metadata, registration, PKCE check, client authentication) and bearer middleware. It approves
 * every authorization request at once (no login page), issues refresh tokens, and can be told to
 * fail: the code exchange, the refresh, or every token it issued so far (expiry).
 */
export class FakeOAuthServerProvider implements OAuthServerProvider {
  private readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  private readonly accessTokens = new Map<string, IssuedToken>();
  private readonly refreshTokens = new Map<string, Omit<IssuedToken, 'expiresAt'>>();

  /** Every authorization request, as the server saw it. */
  readonly authorizationRequests: AuthorizationParams[] = [];
  /** Token endpoint calls that reached the provider (after the SDK checked the client and PKCE). */
  tokenRequests = 0;
  accessTokenTtlSeconds = 3600;
  /** When set, every code exchange answers invalid_grant with this description. */
  failCodeExchange?: string;
  failRefresh?: string;
  /** Set to add `iss` to the redirect (RFC 9207). */
  issuer?: string;
  /** When set, tokens carry only these of the requested scopes (a server that will not grant more). */
  grantOnly?: string[];

  readonly clientsStore = {
    getClient: (clientId: string) => this.clients.get(clientId),
    registerClient: (client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>) => {
      const registered: OAuthClientInformationFull = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
      this.clients.set(registered.client_id, registered);
      return registered;
    },
  };

  /** A client registered out of band (the "pre-registered" case). */
  preRegister(client: Pick<OAuthClientInformationFull, 'client_id' | 'client_secret' | 'redirect_uris'> & Partial<OAuthClientInformationFull>) {
    this.clients.set(client.client_id, { token_endpoint_auth_method: client.client_secret ? 'client_secret_basic' : 'none', ...client });
  }

  get registeredClients(): OAuthClientInformationFull[] {
    return [...this.clients.values()];
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.authorizationRequests.push(params);
    const code = randomBytes(16).toString('hex');
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    if (this.issuer) target.searchParams.set('iss', this.issuer);
    res.redirect(302, target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const grant = this.codes.get(code);
    if (!grant) throw new InvalidGrantError('Unknown authorization code');
    return grant.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, _redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    this.tokenRequests++;
    if (this.failCodeExchange) throw new InvalidGrantError(this.failCodeExchange);
    const grant = this.codes.get(code);
    if (!grant || grant.client.client_id !== client.client_id) throw new InvalidGrantError('The authorization code was not issued to this client');
    this.codes.delete(code);
    return this.issue(client.client_id, grant.params.scopes ?? [], (resource ?? grant.params.resource)?.href);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    this.tokenRequests++;
    if (this.failRefresh) throw new InvalidGrantError(this.failRefresh);
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('Unknown refresh token');
    this.refreshTokens.delete(refreshToken);
    return this.issue(client.client_id, scopes ?? grant.scopes, resource?.href ?? grant.resource);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const issued = this.accessTokens.get(token);
    if (!issued) throw new InvalidTokenError('Unknown access token');
    return { token, clientId: issued.clientId, scopes: issued.scopes, expiresAt: issued.expiresAt, ...(issued.resource ? { resource: new URL(issued.resource) } : {}) };
  }

  /** Every access token issued so far is past its expiry, as after a long pause. */
  expireAccessTokens() {
    for (const token of this.accessTokens.values()) token.expiresAt = Math.floor(Date.now() / 1000) - 60;
  }

  private issue(clientId: string, requested: string[], resource?: string): OAuthTokens {
    const scopes = this.grantOnly ? requested.filter((s) => this.grantOnly!.includes(s)) : requested;
    const access = `at-${randomBytes(18).toString('hex')}`;
    const refresh = `rt-${randomBytes(18).toString('hex')}`;
    this.accessTokens.set(access, { clientId, scopes, resource, expiresAt: Math.floor(Date.now() / 1000) + this.accessTokenTtlSeconds });
    this.refreshTokens.set(refresh, { clientId, scopes, resource });
    return { access_token: access, token_type: 'Bearer', expires_in: this.accessTokenTtlSeconds, refresh_token: refresh, ...(scopes.length ? { scope: scopes.join(' ') } : {}) };
  }
}
