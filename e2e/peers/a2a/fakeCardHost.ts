import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Test support: a plain HTTP server that serves fixed bodies by path, for the broken cards no real
 * agent would serve (HTML instead of JSON, missing fields, undeclared schemes). Named Fake because
 * that is what it is.
 */
export interface FakeCardHost {
  url: string;
  close(): Promise<void>;
}

export type FakeRoutes = Record<string, { status?: number; contentType?: string; body: string | object }>;

export async function startFakeCardHost(routes: (baseUrl: string) => FakeRoutes): Promise<FakeCardHost> {
  let table: FakeRoutes = {};
  const server = createServer((req, res) => {
    const route = table[new URL(req.url ?? '/', 'http://x').pathname];
    if (!route) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const body = typeof route.body === 'string' ? route.body : JSON.stringify(route.body);
    res.writeHead(route.status ?? 200, { 'Content-Type': route.contentType ?? (typeof route.body === 'string' ? 'text/html' : 'application/json') }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  table = routes(url);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on: bound once by the OS, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
