import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { Core } from '../../main/core';
import { appRouter } from '../../main/rpc/router';
import { SECURITY_HEADERS } from '../common/contentSecurityPolicy';
import { checkHostAndOrigin, isLoopbackHost, presentedToken, SESSION_COOKIE, tokensEqual } from './requestGuard';

export interface WebServerOptions {
  core: Core;
  /** Folder with the built renderer (index.html and assets). */
  staticDir: string;
  port?: number;
  host?: string;
  /** Required for any non-loopback host: the console then answers the network, guarded only by its token. */
  dangerouslyBindAll?: boolean;
  /** Fixed token for tests; a fresh 256-bit one otherwise. */
  token?: string;
}

export interface RunningWebServer {
  readonly port: number;
  readonly host: string;
  readonly token: string;
  /** The URL to open: the token rides in the fragment, which browsers never send to a server. */
  readonly url: string;
  readonly origin: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
};

export class BindRefusedError extends Error {}

export async function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.dangerouslyBindAll) {
    throw new BindRefusedError(`Refusing to bind ${host}: a non-loopback host needs --dangerously-bind-all`);
  }
  const token = options.token ?? randomBytes(32).toString('base64url');
  const staticRoot = resolve(options.staticDir);
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    createContext: () => ({ core: options.core }),
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') options.core.deps.logger.error('rpc failed', { path, message: error.message });
    },
  });

  let port = 0;
  const server: Server = createServer((req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const verdict = checkHostAndOrigin({ host: req.headers.host, origin: req.headers.origin }, port, host);
    if (!verdict.ok) return sendText(res, verdict.status, verdict.reason);
    const path = new URL(req.url ?? '/', 'http://placeholder').pathname;

    if (path === '/auth/session') return void createSession(req, res, token);
    if (path.startsWith('/trpc/')) {
      if (!tokensEqual(token, presentedToken(req.headers))) return sendJson(res, 401, { error: 'A valid session token is required' });
      return trpc(req, res);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method not allowed');
    return void serveStatic(staticRoot, path, res);
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const origin = `http://${urlHost}:${port}`;

  return {
    port,
    host,
    token,
    origin,
    url: `${origin}/#token=${token}`,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

/** Swaps the fragment token for an HttpOnly cookie so page scripts never hold it afterwards. */
async function createSession(req: IncomingMessage, res: ServerResponse, token: string) {
  if (req.method !== 'POST') return sendText(res, 405, 'Method not allowed');
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 4096) return sendJson(res, 413, { error: 'Request too large' });
  }
  let given: unknown;
  try {
    given = (JSON.parse(body) as { token?: unknown }).token;
  } catch {
    return sendJson(res, 400, { error: 'Expected JSON {"token": "..."}' });
  }
  if (typeof given !== 'string' || !tokensEqual(token, given)) return sendJson(res, 401, { error: 'Invalid token' });
  res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`);
  res.setHeader('Cache-Control', 'no-store');
  res.statusCode = 204;
  res.end();
}

async function serveStatic(root: string, urlPath: string, res: ServerResponse) {
  let relative: string;
  try {
    relative = normalize(decodeURIComponent(urlPath)).replace(/^([/\\])+/, '');
  } catch {
    return sendText(res, 400, 'Bad path');
  }
  let file = join(root, relative);
  if (file !== root && !file.startsWith(root + sep)) return sendText(res, 404, 'Not found');
  let info = await stat(file).catch(() => undefined);
  if (!info || info.isDirectory()) {
    // Client-side routes fall back to the shell; missing assets stay 404.
    if (extname(relative) && relative !== '') return sendText(res, 404, 'Not found');
    file = join(root, 'index.html');
    info = await stat(file).catch(() => undefined);
    if (!info) return sendText(res, 503, 'The console has not been built: run `npm run build`');
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
  res.setHeader('Content-Length', info.size);
  res.setHeader('Cache-Control', file.endsWith('index.html') ? 'no-store' : 'public, max-age=31536000, immutable');
  createReadStream(file).pipe(res);
}

function sendText(res: ServerResponse, status: number, text: string) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(text);
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}
