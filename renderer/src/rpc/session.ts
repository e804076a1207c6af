export type SessionState = 'ok' | 'missing-token' | 'rejected';

/**
 * Browser mode: the server printed a URL with `#token=…`. Trade it for the HttpOnly session cookie
 * and drop it from the address bar, so no script or history entry keeps it.
 */
export async function establishSession(location: Location = window.location, history: History = window.history): Promise<SessionState> {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = params.get('token');
  if (token) {
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
    const response = await fetch('/auth/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token }),
      credentials: 'same-origin',
    });
    return response.ok ? 'ok' : 'rejected';
  }
  // No token in the URL: a cookie from an earlier visit may still be valid.
  const probe = await fetch('/trpc/system.info', { credentials: 'same-origin' });
  return probe.status === 401 ? 'missing-token' : 'ok';
}
