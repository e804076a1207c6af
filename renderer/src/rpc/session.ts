export type SessionState = 'ok' | 'missing-token' | 'rejected';

export interface Session {
  state: SessionState;
  /** The console token, sent as `Authorization: Bearer …` on every request; never in a cookie. */
  token?: string;
}

/**
 * sessionStorage is per origin — scheme, host *and port* — and per tab, so a page on another port
 * of 127.0.0.1 cannot read it (it could read and receive a cookie). It survives a reload of this tab.
 */
const TOKEN_KEY = 'tooldeck.token';

/**
 * Browser mode: the server printed a URL with `#token=…` (a fragment never reaches a server). Keep
 * the token in this tab's sessionStorage, drop it from the address bar and history, and check it.
 */
export async function establishSession(location: Location = window.location, history: History = window.history, storage: Storage = window.sessionStorage): Promise<Session> {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const fromUrl = params.get('token');
  if (fromUrl) {
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
    storage.setItem(TOKEN_KEY, fromUrl);
  }
  const token = storage.getItem(TOKEN_KEY) ?? undefined;
  if (!token) return { state: 'missing-token' };
  const probe = await fetch('/trpc/system.info', { headers: authorizationHeader(token), credentials: 'omit' });
  if (probe.status === 401) {
    storage.removeItem(TOKEN_KEY);
    return { state: fromUrl ? 'rejected' : 'missing-token' };
  }
  return { state: 'ok', token };
}

export function authorizationHeader(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}
