import { z } from 'zod';
import { ServerName } from './mcp';

/**
 * How Tooldeck obtains tokens for a server: `authorization_code` signs a person in through the
 * system browser (PKCE, loopback redirect); `client_credentials` is for machine-to-machine servers
 * and needs a pre-registered client; `jwt_bearer` presents a workload identity token issued by
 * another identity provider (RFC 7523 assertion grant, workload identity federation, SEP-1933);
 * `enterprise_managed` exchanges the user's enterprise ID token at the identity provider for an
 * identity assertion grant (RFC 8693 token exchange, ID-JAG) and redeems it at the server's
 * authorization server (SEP-990).
 */
export const OAuthGrant = z.enum(['authorization_code', 'client_credentials', 'jwt_bearer', 'enterprise_managed']);
export type OAuthGrant = z.infer<typeof OAuthGrant>;

export const OAUTH_GRANT_LABELS: Record<OAuthGrant, string> = {
  authorization_code: 'Browser sign-in',
  client_credentials: 'Client credentials',
  jwt_bearer: 'Workload identity (JWT bearer)',
  enterprise_managed: 'Enterprise-managed (identity provider)',
};

/** Grants that never need a person at a browser. */
export const NON_INTERACTIVE_GRANTS: readonly OAuthGrant[] = ['client_credentials', 'jwt_bearer', 'enterprise_managed'];

/**
 * How the client proves its identity at the token endpoint. Absent: chosen from what the
 * authorization server's metadata supports (a private key where `private_key_jwt` is offered).
 */
export const OAuthClientAuth = z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']);
export type OAuthClientAuth = z.infer<typeof OAuthClientAuth>;

/** Asymmetric JWS algorithms for client assertions (RFC 7523) and DPoP proofs (RFC 9449). */
export const JwsAlgorithm = z.enum(['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA']);
export type JwsAlgorithm = z.infer<typeof JwsAlgorithm>;

/**
 * Sender-constrained tokens (DPoP, RFC 9449): `auto` asks for them where the authorization server
 * advertises DPoP, `always` sends a proof with every token request, `off` never does.
 */
export const DpopMode = z.enum(['auto', 'always', 'off']);
export type DpopMode = z.infer<typeof DpopMode>;

const absolutePath = z.string().refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path');
const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

/** The enterprise identity provider of `enterprise_managed` (secrets in the secret store; these say one exists). */
export const IdentityProviderSettings = z.object({
  /** The provider's issuer: its token endpoint is discovered from its metadata. */
  issuer: httpUrl.optional(),
  /** The token endpoint itself, where the provider publishes no metadata. */
  tokenEndpoint: httpUrl.optional(),
  /** The client id Tooldeck has at the identity provider (required for the grant; checked with the other settings). */
  clientId: z.string(),
  hasClientSecret: z.boolean().optional(),
  /** The user's ID token is read from this file at each exchange (kept fresh by a sign-in tool)… */
  idTokenFile: absolutePath.optional(),
  /** …or was stored in the secret store. */
  hasIdToken: z.boolean().optional(),
});
export type IdentityProviderSettings = z.infer<typeof IdentityProviderSettings>;

/** Per-server authorization settings. Secrets and keys live in the secret store; this only says they exist. */
export const OAuthSettings = z.object({
  grant: OAuthGrant.default('authorization_code'),
  /** A client id registered with the authorization server beforehand; without one Tooldeck uses a metadata document or registers itself. */
  clientId: z.string().min(1).optional(),
  hasClientSecret: z.boolean().default(false),
  /** Space-separated scopes to ask for when neither the server's challenge nor its metadata names any. */
  scopes: z.string().min(1).optional(),
  /** An https URL serving this client's metadata document (used as client_id where the server supports it). */
  clientMetadataUrl: z.url({ protocol: /^https$/, message: 'A client metadata document URL must be https' }).optional(),
  clientAuth: OAuthClientAuth.optional(),
  /** A private key (PKCS #8 PEM or JWK) for `private_key_jwt` is stored. */
  hasPrivateKey: z.boolean().optional(),
  /** The algorithm client assertions are signed with. */
  signingAlg: JwsAlgorithm.optional(),
  /** Absent means `auto`. */
  dpop: DpopMode.optional(),
  /** `jwt_bearer`: the workload identity token is read from this file at each token request (projected tokens rotate)… */
  assertionFile: absolutePath.optional(),
  /** …or was stored in the secret store. */
  hasAssertion: z.boolean().optional(),
  idp: IdentityProviderSettings.optional(),
});
export type OAuthSettings = z.infer<typeof OAuthSettings>;

/**
 * What the UI or CLI sends to change a server's authorization settings. Plain fields replace the
 * stored ones ('' or absent clears); secret fields keep the stored value when undefined and delete
 * it when ''.
 */
export const SetOAuthClientInput = z.object({
  server: ServerName,
  grant: OAuthGrant.default('authorization_code'),
  clientId: z.string().trim().optional(),
  clientSecret: z.string().optional(),
  scopes: z.string().trim().optional(),
  clientMetadataUrl: z.string().trim().optional(),
  clientAuth: OAuthClientAuth.optional(),
  /** PKCS #8 PEM or a private JWK (JSON) for `private_key_jwt`. */
  privateKey: z.string().optional(),
  signingAlg: JwsAlgorithm.optional(),
  dpop: DpopMode.optional(),
  assertionFile: z.string().trim().optional(),
  /** A workload identity token to store (for `jwt_bearer` without a file). */
  assertion: z.string().optional(),
  idpIssuer: z.string().trim().optional(),
  idpTokenEndpoint: z.string().trim().optional(),
  idpClientId: z.string().trim().optional(),
  idpClientSecret: z.string().optional(),
  idTokenFile: z.string().trim().optional(),
  /** An enterprise ID token to store. */
  idToken: z.string().optional(),
});
export type SetOAuthClientInput = z.infer<typeof SetOAuthClientInput>;

export const OAuthStepKind = z.enum([
  /** The server answered 401/403 and said what it wants (WWW-Authenticate). */
  'challenge',
  /** RFC 9728 protected resource metadata. */
  'resource-metadata',
  /** RFC 8414 / OpenID Connect discovery of the authorization server. */
  'authorization-server-metadata',
  /** The client identity: pre-registered, a client metadata document, or dynamic registration. */
  'registration',
  /** The authorization URL handed to the browser. */
  'authorization',
  /** The browser came back to the loopback redirect (or failed to). */
  'callback',
  /** Authorization code exchanged for tokens. */
  'token',
  'refresh',
  'client-credentials',
  /** A JWT assertion redeemed at the token endpoint (workload identity, an identity assertion grant). */
  'jwt-bearer',
  /** The enterprise ID token exchanged at the identity provider for an identity assertion grant (RFC 8693). */
  'token-exchange',
  'sign-out',
]);
export type OAuthStepKind = z.infer<typeof OAuthStepKind>;

export const OAuthStepStatus = z.enum(['pending', 'ok', 'failed']);
export type OAuthStepStatus = z.infer<typeof OAuthStepStatus>;

/** One step of an authorization flow as the panel and `tooldeck mcp login` show it. Never holds a token or secret. */
export const OAuthStep = z.object({
  seq: z.number().int(),
  kind: OAuthStepKind,
  title: z.string(),
  status: OAuthStepStatus,
  startedAt: z.number(),
  endedAt: z.number().optional(),
  method: z.string().optional(),
  url: z.string().optional(),
  httpStatus: z.number().int().optional(),
  /** A short human summary (the registration kind, the scope asked for…). */
  detail: z.string().optional(),
  /** The fetched document (metadata JSON), secrets masked. */
  document: z.unknown().optional(),
  /** On failure: the server's error text or the check that failed. */
  error: z.string().optional(),
});
export type OAuthStep = z.infer<typeof OAuthStep>;

export const OAuthFlowState = z.enum(['signed-out', 'working', 'awaiting-browser', 'signed-in', 'failed']);
export type OAuthFlowState = z.infer<typeof OAuthFlowState>;

export const OAuthStatus = z.object({
  server: ServerName,
  state: OAuthFlowState,
  settings: OAuthSettings,
  issuer: z.string().optional(),
  resource: z.string().optional(),
  /** Scope granted with the current token. */
  scope: z.string().optional(),
  /**
   * Incremental consent (SEP-835): scopes the server asked for in its last insufficient_scope
   * challenge that the current token lacks; granting them is a new sign-in.
   */
  requestedScopes: z.array(z.string()).optional(),
  /** When the current access token expires (ms since epoch), if the server said. */
  expiresAt: z.number().optional(),
  /** `Bearer`, or `DPoP` for a sender-constrained token. */
  tokenType: z.string().optional(),
  /** The JWK thumbprint of the DPoP key the token is bound to (its `cnf.jkt`). */
  dpopThumbprint: z.string().optional(),
  hasRefreshToken: z.boolean(),
  /** While waiting for the browser: the URL to open. */
  authorizationUrl: z.string().optional(),
  steps: z.array(OAuthStep),
  /** The step that failed last, and why. */
  failure: z.object({ step: OAuthStepKind, message: z.string() }).optional(),
});
export type OAuthStatus = z.infer<typeof OAuthStatus>;

export const OAuthLoginResult = z.discriminatedUnion('status', [
  /** Open this URL in a browser; the flow completes when it redirects back to the loopback listener. */
  z.object({ status: z.literal('redirect'), authorizationUrl: z.string() }),
  /** Tokens were obtained without a browser (client credentials, a refresh, or already signed in). */
  z.object({ status: z.literal('authorized') }),
]);
export type OAuthLoginResult = z.infer<typeof OAuthLoginResult>;

export const OAUTH_STEP_TITLES: Record<OAuthStepKind, string> = {
  challenge: 'Server asked for authorization',
  'resource-metadata': 'Protected resource metadata',
  'authorization-server-metadata': 'Authorization server metadata',
  registration: 'Client registration',
  authorization: 'Authorization URL',
  callback: 'Browser callback',
  token: 'Token exchange',
  refresh: 'Token refresh',
  'client-credentials': 'Client credentials grant',
  'jwt-bearer': 'JWT bearer grant',
  'token-exchange': 'Identity provider token exchange',
  'sign-out': 'Sign out',
};
