import { afterEach, describe, expect, it, vi } from 'vitest';
import { establishSession } from './session';

afterEach(() => vi.unstubAllGlobals());

function fakeLocation(hash: string) {
  return { hash, pathname: '/servers', search: '' } as Location;
}

describe('establishSession', () => {
  it('posts the fragment token, then removes it from the address bar', async () => {
    const fetchMock = vi.fn(async () => new Response(null, { status: 204 }));
    vi.stubGlobal('fetch', fetchMock);
    const history = { replaceState: vi.fn() } as unknown as History;
    expect(await establishSession(fakeLocation('#token=abc'), history)).toBe('ok');
    expect(fetchMock).toHaveBeenCalledWith('/auth/session', expect.objectContaining({ method: 'POST', body: JSON.stringify({ token: 'abc' }) }));
    expect(history.replaceState).toHaveBeenCalledWith(null, '', '/servers');
  });

  it('reports a rejected token', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(null, { status: 401 })));
    expect(await establishSession(fakeLocation('#token=stale'), { replaceState() {} } as unknown as History)).toBe('rejected');
  });

  it('without a token, asks whether an earlier session cookie still works', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(null, { status: 401 })));
    expect(await establishSession(fakeLocation(''), { replaceState() {} } as unknown as History)).toBe('missing-token');
  });
});
