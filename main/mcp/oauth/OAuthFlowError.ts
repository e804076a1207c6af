import { AuthorizationServerMismatchError, InsecureTokenEndpointError, IssuerMismatchError, OAuthError, RegistrationRejectedError } from '@modelcontextprotocol/client';
import { AppError } from '../../../shared/errors';
import { OAUTH_STEP_TITLES, type OAuthStepKind } from '../../../shared/oauth';

/**
 * An authorization flow stopped: names the OAuth step that failed (the connection doctor reports
 * it as the `auth` step of connecting). `signInRequired` means a person has to sign in in a browser.
 */
export class OAuthFlowError extends AppError {
  constructor(
    readonly oauthStep: OAuthStepKind,
    message: string,
    options: { cause?: unknown; signInRequired?: boolean } = {},
  ) {
    super('Unauthorized', message, { step: 'auth', retryable: false, cause: options.cause });
    this.name = 'OAuthFlowError';
    this.signInRequired = options.signInRequired ?? false;
  }

  readonly signInRequired: boolean;

  /** "Token exchange failed: HTTP 400: invalid_grant — …" */
  static atStep(step: OAuthStepKind, detail: string, cause?: unknown) {
    return new OAuthFlowError(step, `${OAUTH_STEP_TITLES[step]} failed: ${detail}`, { cause });
  }
}

export function isOAuthFlowError(error: unknown): error is OAuthFlowError {
  return error instanceof OAuthFlowError;
}

/** Which step an error the SDK's OAuth helpers threw belongs to, when the HTTP log alone cannot tell. */
export function stepOfSdkError(error: unknown, fallback: OAuthStepKind): OAuthStepKind {
  if (error instanceof OAuthFlowError) return error.oauthStep;
  if (error instanceof IssuerMismatchError) return error.kind === 'metadata' ? 'authorization-server-metadata' : 'callback';
  if (error instanceof AuthorizationServerMismatchError) return 'callback';
  if (error instanceof RegistrationRejectedError) return 'registration';
  if (error instanceof InsecureTokenEndpointError) return 'token';
  const message = (error as Error)?.message ?? '';
  if (/protected resource .* does not match|protected resource metadata/i.test(message)) return 'resource-metadata';
  if (/authorization server metadata|issuer/i.test(message) && !(error instanceof OAuthError)) return 'authorization-server-metadata';
  if (/dynamic client registration|client information/i.test(message)) return 'registration';
  return fallback;
}
