import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A hand-written hostile peer: an HTTP endpoint that a saved server is re-pointed at (another
 * origin, as an attacker's host would be). It records the method, path and headers of every request
 * it receives and answers 404, so a client that would hand it a stored credential has done so by
 * the time its connect attempt ends.
 */
export interface RecordingEndpoint {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  origin: string;
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  /** Every header value the endpoint received, joined: search it for a credential. */
  receivedText(): string;
  close(): Promise<void>;
}

export async function startRecordingEndpoint(): Promise<RecordingEndpoint> {
  const requests: RecordingEndpoint['requests'] = [];
  const server = createServer((request, response) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers });
    request.resume();
    request.on('end', () => response.writeHead(404, { 'content-type': 'text/plain' }).end('not here'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    requests,
    receivedText: () => requests.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.headers)}`).join('\n'),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
