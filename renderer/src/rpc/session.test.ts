import { afterEach, describe, expect, it, vi } from 'vitest';
import { establishSession } from './session';

afterEach(() => vi.unstubAllGlobals());

function fakeLocation(hash: string) {
  return { hash, pathname: '/servers', search: '' } as Location;
}

function memoryStorage(): Storage {
  const map = new Map<string, string>();
  return {
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, value),
    removeItem: (key: string) => void map.delete(key),
    clear: () => map.clear(),
    key: () => null,
    get length() {
      return map.size;
    },
  };
}

describe('establishSession', () => {
  it('keeps the fragment token in sessionStorage, removes it from the address bar, and sends it as a header', async () => {
    const fetchMock = vi.fn(async () => new Response('{}', { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const history = { replaceState: vi.fn() } as unknown as History;
    const storage = memoryStorage();
    expect(await establishSession(fakeLocation('#token=abc'), history, storage)).toEqual({ state: 'ok', token: 'abc' });
    expect(history.replaceState).toHaveBeenCalledWith(null, '', '/servers');
    expect(storage.getItem('tooldeck.token')).toBe('abc');
    expect(fetchMock).toHaveBeenCalledWith('/trpc/system.info', { headers: { Authorization: 'Bearer abc' }, credentials: 'omit' });
  });

  it('after a reload, reuses the token this tab kept', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('{}', { status: 200 })));
    const storage = memoryStorage();
    storage.setItem('tooldeck.token', 'kept');
    expect(await establishSession(fakeLocation(''), { replaceState() {} } as unknown as History, storage)).toEqual({ state: 'ok', token: 'kept' });
  });

  it('reports a rejected token and forgets it', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(null, { status: 401 })));
    const storage = memoryStorage();
    expect(await establishSession(fakeLocation('#token=stale'), { replaceState() {} } as unknown as History, storage)).toEqual({ state: 'rejected' });
    expect(storage.getItem('tooldeck.token')).toBeNull();
  });

  it('without a token anywhere, asks for the printed link without calling the server', async () => {
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    expect(await establishSession(fakeLocation(''), { replaceState() {} } as unknown as History, memoryStorage())).toEqual({ state: 'missing-token' });
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
