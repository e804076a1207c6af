/**
 * Takes the authorization URL to whoever approves it and brings back the redirect's query string
 * (`code`, `state`, `iss`, or `error`). The system browser with a loopback listener in the app and
 * the CLI; a direct HTTP request against an auto-approving server in headless runs.
 */
export interface Authorizer {
  /** The redirect_uri registered and sent with the authorization request. */
  readonly redirectUrl: string;
  /** Resolves with the callback's query parameters; rejects when the user never comes back. */
  authorize(authorizationUrl: URL): Promise<URLSearchParams>;
  /** Tells whoever is waiting at the redirect target how the flow ended (the browser page). */
  settle?(outcome: { ok: boolean; message: string }): void;
  /** Stops waiting (the flow was superseded or the app shuts down). */
  dispose?(): void;
}

/** Redirect target of sessions that never open a browser; only sent when a flow is abandoned anyway. */
export const PASSIVE_REDIRECT_URL = 'http://127.0.0.1/oauth/callback';
