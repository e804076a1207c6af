import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedApp {
  html: string;
  csp: string;
  permissionsPolicy: string;
}

export interface AppOriginHandlers {
  /** The app with this id, if it is served from this origin. */
  app(appId: string): ServedApp | undefined;
  violation(appId: string, report: unknown): void;
}

const MAX_REPORT_BYTES = 16 * 1024;

/**
 * One loopback origin that serves MCP App HTML and nothing else: `GET /app/<id>` (only to an
 * iframe, with the app's CSP) and the CSP violation reports of those apps. It is never the
 * console's origin, holds no credential and has no API, so an app can reach nothing of Tooldeck
 * through it; it talks to the console only through the host bridge (postMessage) in the page.
 */
export class AppOriginServer {
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(handlers: AppOriginHandlers): Promise<AppOriginServer> {
    let host = '';
    const server = createServer((req, res) => handle(req, res, host, handlers));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = server.address() as AddressInfo;
    host = `127.0.0.1:${port}`;
    return new AppOriginServer(server, `http://${host}`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function handle(req: IncomingMessage, res: ServerResponse, host: string, handlers: AppOriginHandlers) {
  const fail = (status: number, text: string) => void res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`${text}\n`);
  // DNS rebinding: only this very address.
  if (req.headers.host !== host) return fail(421, 'Wrong host');
  const match = /^\/app\/([A-Za-z0-9_-]{16,64})(\/csp)?$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
  if (!match) return fail(404, 'Not found');
  const [, appId, report] = match;
  if (report) {
    if (req.method !== 'POST') return fail(405, 'POST only');
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REPORT_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        handlers.violation(appId!, JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        // Not a report: nothing to record.
      }
      res.writeHead(204).end();
    });
    return;
  }
  if (req.method !== 'GET') return fail(405, 'GET only');
  // The HTML is for the console's iframe only, not for a page that fetches it.
  const dest = req.headers['sec-fetch-dest'];
  if (dest !== undefined && dest !== 'iframe') return fail(403, 'Apps are served to iframes only');
  const app = handlers.app(appId!);
  if (!app) return fail(404, 'No such app (closed or expired)');
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': app.csp,
    'permissions-policy': app.permissionsPolicy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'cross-origin-resource-policy': 'cross-origin',
  });
  res.end(app.html);
}
