import { OAuthFlowError } from './OAuthFlowError';

/**
 * Bounds step-up authorization (403 insufficient_scope): a server that keeps refusing the same
 * scope must not send the user through the browser again and again. Counted per connection and
 * per scope set, because the challenge can arrive on any request of the session.
 */
export class StepUpBudget {
  private readonly attempts = new Map<string, number>();

  constructor(readonly maxAttempts = 2) {}

  /** Takes one attempt for `scope`, or throws once the server refused it `maxAttempts` times. */
  take(scope: string | undefined) {
    const key = normalizeScope(scope);
    const used = this.attempts.get(key) ?? 0;
    if (used >= this.maxAttempts) {
      throw new OAuthFlowError(
        'challenge',
        `The server still refuses the request for insufficient scope${key ? ` ("${key}")` : ''} after ${used} step-up authorization${used === 1 ? '' : 's'}; not trying again`,
      );
    }
    this.attempts.set(key, used + 1);
  }

  used(scope: string | undefined): number {
    return this.attempts.get(normalizeScope(scope)) ?? 0;
  }
}

function normalizeScope(scope: string | undefined): string {
  return [...new Set((scope ?? '').split(/\s+/).filter(Boolean))].sort().join(' ');
}
