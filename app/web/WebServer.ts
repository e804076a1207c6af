import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { Core } from '../../main/core';
import { appRouter } from '../../main/rpc/router';
import { SECURITY_HEADERS } from '../common/contentSecurityPolicy';
import { checkFetchSite, checkHostAndOrigin, declaredBodyTooLarge, DEFAULT_MAX_BODY_BYTES, isLoopbackHost, presentedToken, tokensEqual, urlHostFor } from '../../main/platform/requestGuard';
import { operatorCaller } from '../../shared/caller';
import { serveToolApprovals, TOOL_APPROVALS_PATH } from './toolApprovalsApi';

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
  /** Request bodies above this get 413 before they are buffered (default 8 MiB). */
  maxBodyBytes?: number;
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

/** The raw answer to a WebSocket upgrade (written to the socket: Node's response object is not used there). */
const UPGRADE_REFUSAL = [
  'HTTP/1.1 403 Forbidden',
  'Connection: close',
  'Content-Length: 0',
  ...Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`),
].join('\r\n') + '\r\n\r\n';

export class BindRefusedError extends Error {}

export async function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.dangerouslyBindAll) {
    throw new BindRefusedError(`Refusing to bind ${host}: a non-loopback host needs --dangerously-bind-all`);
  }
  const token = options.token ?? randomBytes(32).toString('base64url');
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const staticRoot = resolve(options.staticDir);
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    // A chunked body (no Content-Length) is counted as it arrives and cut off at the same cap.
    maxBodySize: maxBodyBytes,
    createContext: () => ({ core: options.core, fromBrowser: true, caller: operatorCaller('ui') }),
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') options.core.logger.error('rpc failed', { path, message: error.message });
    },
  });

  let port = 0;
  const server: Server = createServer((req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const origin = checkHostAndOrigin(req.headers, port, host);
    if (!origin.ok) return refuse(res, origin.status, origin.reason);
    const path = new URL(req.url ?? '/', 'http://placeholder').pathname;

    // The API — tRPC and Orloj's ToolApproval endpoints — answers only the operator's own pages and tools.
    const toolApprovals = path === TOOL_APPROVALS_PATH || path.startsWith(`${TOOL_APPROVALS_PATH}/`);
    if (path.startsWith('/trpc/') || toolApprovals) {
      const site = checkFetchSite(req.headers, 'api');
      if (!site.ok) return refuse(res, site.status, site.reason);
      // Before authentication: an oversized body is refused unread whoever sends it.
      if (declaredBodyTooLarge(req.headers, maxBodyBytes)) return refuse(res, 413, `Request bodies are limited to ${maxBodyBytes} bytes`);
      if (!tokensEqual(token, presentedToken(req.headers))) return refuse(res, 401, 'A valid console token is required (Authorization: Bearer …)');
      if (toolApprovals) return void serveToolApprovals(req, res, path, options.core.approvals, options.core.logger);
      return trpc(req, res);
    }
    const site = checkFetchSite(req.headers, 'static');
    if (!site.ok) return refuse(res, site.status, site.reason);
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Method not allowed');
    return void serveStatic(staticRoot, path, res);
  });
  // The console speaks no WebSocket: an upgrade is answered and the socket closed, never kept. The
  // refusal carries the security headers every other answer carries.
  server.on('upgrade', (_req, socket) => {
    socket.end(UPGRADE_REFUSAL);
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  const urlHost = urlHostFor(host);
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

/**
 * Refusals carry JSON (the renderer reads `error`) and close the connection, so a body the client
 * is still sending is never read.
 */
function refuse(res: ServerResponse, status: number, error: string) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Connection', 'close');
  res.end(JSON.stringify({ error }));
}
