import { z } from 'zod';
import { ServerName } from './mcp';

/**
 * How Tooldeck obtains tokens for a server: `authorization_code` signs a person in through the
 * system browser (PKCE, loopback redirect); `client_credentials` is for machine-to-machine servers
 * and needs a pre-registered client id and secret.
 */
export const OAuthGrant = z.enum(['authorization_code', 'client_credentials']);
export type OAuthGrant = z.infer<typeof OAuthGrant>;

/** Per-server authorization settings. The client secret lives in the secret store; this only says one exists. */
export const OAuthSettings = z.object({
  grant: OAuthGrant.default('authorization_code'),
  /** A client id registered with the authorization server beforehand; without one Tooldeck uses a metadata document or registers itself. */
  clientId: z.string().min(1).optional(),
  hasClientSecret: z.boolean().default(false),
  /** Space-separated scopes to ask for when neither the server's challenge nor its metadata names any. */
  scopes: z.string().min(1).optional(),
  /** An https URL serving this client's metadata document (used as client_id where the server supports it). */
  clientMetadataUrl: z.url({ protocol: /^https$/, message: 'A client metadata document URL must be https' }).optional(),
});
export type OAuthSettings = z.infer<typeof OAuthSettings>;

/** What the UI or CLI sends to change a server's authorization settings. */
export const SetOAuthClientInput = z.object({
  server: ServerName,
  grant: OAuthGrant.default('authorization_code'),
  /** '' or absent clears the pre-registered client id. */
  clientId: z.string().trim().optional(),
  /** undefined keeps the stored secret, '' removes it. */
  clientSecret: z.string().optional(),
  scopes: z.string().trim().optional(),
  clientMetadataUrl: z.string().trim().optional(),
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
  /** When the current access token expires (ms since epoch), if the server said. */
  expiresAt: z.number().optional(),
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
  'sign-out': 'Sign out',
};
