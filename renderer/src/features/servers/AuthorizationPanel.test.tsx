import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OAuthStatus } from '../../../../shared/oauth';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { AuthorizationPanel } from './AuthorizationPanel';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

const failedSignIn: OAuthStatus = {
  server: 'notes',
  state: 'failed',
  settings: { grant: 'authorization_code', hasClientSecret: false },
  hasRefreshToken: false,
  steps: [
    { seq: 1, kind: 'challenge', title: 'Server asked for authorization', status: 'ok', startedAt: T0, endedAt: T0, httpStatus: 401, detail: 'HTTP 401, scope "mcp:tools"' },
    {
      seq: 2,
      kind: 'resource-metadata',
      title: 'Protected resource metadata',
      status: 'ok',
      startedAt: T0 + 5,
      endedAt: T0 + 9,
      method: 'GET',
      url: 'https://notes.example/.well-known/oauth-protected-resource/mcp',
      httpStatus: 200,
      document: { resource: 'https://notes.example/mcp', authorization_servers: ['https://auth.example/'] },
    },
    { seq: 3, kind: 'authorization', title: 'Authorization URL', status: 'ok', startedAt: T0 + 20, endedAt: T0 + 20, detail: 'PKCE S256, scope "mcp:tools"' },
    {
      seq: 4,
      kind: 'token',
      title: 'Token exchange',
      status: 'failed',
      startedAt: T0 + 900,
      endedAt: T0 + 930,
      method: 'POST',
      url: 'https://auth.example/token',
      httpStatus: 400,
      error: 'HTTP 400: invalid_grant — The code has expired',
    },
  ],
  failure: { step: 'token', message: 'Token exchange failed: HTTP 400: invalid_grant — The code has expired' },
};

const signedIn: OAuthStatus = {
  ...failedSignIn,
  state: 'signed-in',
  issuer: 'https://auth.example/',
  scope: 'mcp:tools',
  hasRefreshToken: true,
  failure: undefined,
  steps: failedSignIn.steps.slice(0, 3),
};

function backendShowing(status: OAuthStatus) {
  return new FakeBackend()
    .onSubscribe('oauth.watch', (subscription) => subscription.emit(status))
    .answer('oauth.login', () => ({ status: 'redirect', authorizationUrl: 'https://auth.example/authorize?client_id=x' }))
    .answer('oauth.logout', () => undefined)
    .answer('oauth.setClient', () => status);
}

afterEach(() => vi.restoreAllMocks());

describe('AuthorizationPanel', () => {
  it('lists each step with its status, and makes a failure obvious with the step and the server error', async () => {
    renderWithBackend(<AuthorizationPanel server="notes" />, backendShowing(failedSignIn));
    const region = await screen.findByRole('region', { name: 'Authorization' });
    const steps = await within(region).findByRole('list', { name: 'Authorization steps' });
    const items = within(steps).getAllByRole('listitem');
    expect(items.map((item) => item.getAttribute('aria-label'))).toEqual([
      'Server asked for authorization: done',
      'Protected resource metadata: done',
      'Authorization URL: done',
      'Token exchange: failed',
    ]);
    expect(within(items[3]!).getByText('Token exchange failed: HTTP 400: invalid_grant — The code has expired')).toBeInTheDocument();
    expect(within(items[3]!).getByLabelText('failed')).toBeInTheDocument();
    expect(within(region).getByRole('alert')).toHaveTextContent('Failed at: Token exchange');
    expect(within(region).getByText('Sign-in failed')).toBeInTheDocument();
  });

  it('shows a fetched metadata document on request', async () => {
    const user = userEvent.setup();
    renderWithBackend(<AuthorizationPanel server="notes" />, backendShowing(failedSignIn));
    await user.click(await screen.findByRole('button', { name: 'Show document' }));
    expect(screen.getByRole('tree', { name: 'Protected resource metadata document' })).toHaveTextContent('https://auth.example/');
  });

  it('signs in by opening the authorization URL the backend returns', async () => {
    const user = userEvent.setup();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const backend = backendShowing(failedSignIn);
    renderWithBackend(<AuthorizationPanel server="notes" />, backend);
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(open).toHaveBeenCalledWith('https://auth.example/authorize?client_id=x', '_blank', 'noopener,noreferrer'));
    expect(backend.callsTo('oauth.login')).toEqual([{ server: 'notes' }]);
  });

  it('offers Sign out when signed in, and says to whom', async () => {
    const user = userEvent.setup();
    const backend = backendShowing(signedIn);
    renderWithBackend(<AuthorizationPanel server="notes" />, backend);
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(backend.callsTo('oauth.logout')).toEqual([{ server: 'notes' }]));
    expect(screen.getByText(/https:\/\/auth\.example\/ · scope "mcp:tools" · refresh token kept/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });

  it('saves a pre-registered client id and secret', async () => {
    const user = userEvent.setup();
    const backend = backendShowing(failedSignIn);
    renderWithBackend(<AuthorizationPanel server="notes" />, backend);
    await user.type(await screen.findByLabelText('Client ID'), 'tooldeck-ops');
    await user.type(screen.getByLabelText('Client secret'), 's3cret');
    await user.click(screen.getByRole('button', { name: 'Save client settings' }));
    await waitFor(() =>
      expect(backend.callsTo('oauth.setClient')).toEqual([{ server: 'notes', grant: 'authorization_code', clientId: 'tooldeck-ops', clientSecret: 's3cret', scopes: '' }]),
    );
  });

  it('configures workload identity with a token file and DPoP always, and keeps stored secrets unless replaced', async () => {
    const user = userEvent.setup();
    const backend = backendShowing({ ...failedSignIn, settings: { grant: 'authorization_code', clientId: 'workload-7', hasClientSecret: true } });
    renderWithBackend(<AuthorizationPanel server="notes" />, backend);
    await user.click(await screen.findByRole('combobox', { name: 'Grant' }));
    await user.click(await screen.findByRole('option', { name: 'Workload identity (JWT bearer)' }));
    await user.type(await screen.findByLabelText('Workload token file'), '/var/run/secrets/tokens/mcp');
    await user.click(screen.getByRole('radio', { name: 'Always' }));
    await user.click(screen.getByRole('button', { name: 'Save client settings' }));
    await waitFor(() =>
      expect(backend.callsTo('oauth.setClient')).toEqual([
        { server: 'notes', grant: 'jwt_bearer', clientId: 'workload-7', scopes: '', dpop: 'always', assertionFile: '/var/run/secrets/tokens/mcp' },
      ]),
    );
  });

  it('removes a stored client secret only when asked, and sends a pasted private key', async () => {
    const user = userEvent.setup();
    const backend = backendShowing({ ...failedSignIn, settings: { grant: 'client_credentials', clientId: 'machine', hasClientSecret: true } });
    renderWithBackend(<AuthorizationPanel server="notes" />, backend);
    await user.click(await screen.findByRole('button', { name: 'Remove stored client secret' }));
    await user.click(screen.getByLabelText('Private key'));
    await user.paste('-----BEGIN PRIVATE KEY-----\nMIG…\n-----END PRIVATE KEY-----');
    await user.click(screen.getByRole('button', { name: 'Save client settings' }));
    await waitFor(() =>
      expect(backend.callsTo('oauth.setClient')).toEqual([
        { server: 'notes', grant: 'client_credentials', clientId: 'machine', clientSecret: '', scopes: '', privateKey: '-----BEGIN PRIVATE KEY-----\nMIG…\n-----END PRIVATE KEY-----' },
      ]),
    );
  });

  it('shows that the token is DPoP-bound, with the key thumbprint', async () => {
    renderWithBackend(<AuthorizationPanel server="notes" />, backendShowing({ ...signedIn, tokenType: 'DPoP', dpopThumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' }));
    expect(await screen.findByText('DPoP-bound')).toBeInTheDocument();
    expect(screen.getByText('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs')).toBeInTheDocument();
  });

  it('asks the operator to grant the scopes a call needed (incremental consent), and signs in for them', async () => {
    const user = userEvent.setup();
    vi.spyOn(window, 'open').mockReturnValue(null);
    const backend = backendShowing({ ...signedIn, requestedScopes: ['notes:write'] });
    renderWithBackend(<AuthorizationPanel server="notes" />, backend);
    const ask = (await screen.findByText('The server asks for more access')).closest('[role="status"]') as HTMLElement;
    expect(within(screen.getByLabelText('Requested scopes')).getByText('notes:write')).toBeInTheDocument();
    expect(within(screen.getByLabelText('Granted scopes')).getByText('mcp:tools')).toBeInTheDocument();
    await user.click(within(ask).getByRole('button', { name: 'Grant access' }));
    await waitFor(() => expect(backend.callsTo('oauth.login')).toEqual([{ server: 'notes' }]));
  });
});
