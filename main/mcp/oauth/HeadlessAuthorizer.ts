import type { FetchLike } from '@modelcontextprotocol/client';
import type { Authorizer } from './Authorizer';
import { OAuthFlowError } from './OAuthFlowError';

/**
 * For runs with nobody at a browser (the conformance client): requests the authorization URL
 * itself and reads the redirect's Location instead of following it. Only an authorization server
 * that approves without a login page (a test server) answers that with a redirect.
 */
export class HeadlessAuthorizer implements Authorizer {
  constructor(
    readonly redirectUrl = 'http://127.0.0.1/oauth/callback',
    private readonly fetchFn: FetchLike = fetch,
  ) {}

  async authorize(authorizationUrl: URL): Promise<URLSearchParams> {
    const response = await this.fetchFn(authorizationUrl, { redirect: 'manual' });
    const location = response.headers.get('location');
    await response.body?.cancel().catch(() => undefined);
    if (!location) {
      throw OAuthFlowError.atStep('callback', `the authorization endpoint answered HTTP ${response.status} without redirecting back (it needs a person at a browser: use \`tooldeck mcp login\`)`);
    }
    const target = new URL(location, authorizationUrl);
    const expected = new URL(this.redirectUrl);
    if (target.origin !== expected.origin || target.pathname !== expected.pathname) {
      throw OAuthFlowError.atStep('callback', `the authorization server redirected to ${target.origin}${target.pathname}, not to ${this.redirectUrl}`);
    }
    return target.searchParams;
  }
}
