import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchReleasingSignal } from './fetchReleasingSignal';

/** A real HTTP server: /short answers at once, /endless streams until the client goes away. */
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/short') return res.end('done');
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const tick = setInterval(() => res.write('data: tick\n\n'), 5);
    res.on('close', () => clearInterval(tick));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const send = fetchReleasingSignal(fetch);
const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('fetchReleasingSignal', () => {
  it('holds one listener on the caller’s signal while the body is open and none once it is read', async () => {
    const connection = new AbortController();
    const response = await send(`${base}/short`, { signal: connection.signal });
    expect(listeners(connection.signal)).toBe(1);
    expect(await response.text()).toBe('done');
    expect(listeners(connection.signal)).toBe(0);
  });

  it('releases the listener when the body is canceled unread', async () => {
    const connection = new AbortController();
    const response = await send(`${base}/endless`, { signal: connection.signal });
    await response.body!.cancel();
    expect(listeners(connection.signal)).toBe(0);
  });

  it('aborting the caller’s signal still ends a body stream in flight, and releases the listener', async () => {
    const connection = new AbortController();
    const response = await send(`${base}/endless`, { signal: connection.signal });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    connection.abort(new Error('connection closed'));
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return 'ended quietly';
      })(),
    ).rejects.toThrow();
    expect(listeners(connection.signal)).toBe(0);
  });

  it('releases the listener when the request itself fails', async () => {
    const connection = new AbortController();
    await expect(send('http://127.0.0.1:1/', { signal: connection.signal })).rejects.toThrow();
    expect(listeners(connection.signal)).toBe(0);
  });

  it('a thousand requests on one signal leave it as they found it', async () => {
    const connection = new AbortController();
    for (let i = 0; i < 1_000; i++) await (await send(`${base}/short`, { signal: connection.signal })).text();
    expect(listeners(connection.signal)).toBe(0);
  });
});
