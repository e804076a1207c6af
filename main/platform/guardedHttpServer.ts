import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './Logger';
import { checkHostAndOrigin, isLoopbackHost, urlHostFor } from './requestGuard';

/** What a route's handler is given: the request past every guard, and who the guards say is calling. */
export interface RoutedRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path, percent-escapes decoded. */
  path: string;
  /** A pattern route's capture groups (decoded). */
  params: string[];
  /** Who the server's `admit` let in; '' on an open route. */
  caller: string;
  /** The port the server listens on (for absolute URLs a handler builds). */
  port: number;
}

/** One entry of a server's route table. */
export interface HttpRoute {
  /** An exact path, or a pattern matched against the whole decoded path. */
  path: string | RegExp;
  /** How a pattern route is named where the server lists what it serves (`/history/{agent}`). */
  label?: string;
  /** Methods it answers (405 for others); default every method. */
  methods?: readonly string[];
  /** Served without `admit` (liveness, readiness): never anything a credential guards. */
  open?: boolean;
  handle(request: RoutedRequest): Promise<void> | void;
}

export interface GuardedServerOptions {
  /** What the server is, for its log lines and its 500 sentence ("the gateway"). */
  name: string;
  logger: Logger;
  host?: string;
  port?: number;
  /** Required for a host other than loopback: then any machine that can reach the port may try. */
  dangerouslyBindAll?: boolean;
  /** Host names callers may address besides the bound address (in a cluster: a Service's DNS names). */
  allowedHostNames?: readonly string[];
  /** A declared body above this is 413 before anything is read. */
  maxBodyBytes: number;
  routes: readonly HttpRoute[];
  /**
   * Who is calling, for every route that is not open: the caller's name, or undefined once it has
   * answered the refusal itself (401, 403, 429). Runs after Host/Origin, the path, the route and
   * the body cap, before any byte of the body is read.
   */
  admit?: (req: IncomingMessage, res: ServerResponse) => string | undefined;
}

export interface GuardedServer {
  readonly port: number;
  readonly host: string;
  /** `http://<host>:<port><path>`, the host written as a URL needs it. */
  url(path: string): string;
  close(): Promise<void>;
}

export class BindRefused extends Error {}

/**
 * The one HTTP server kit every door's face mounts on: the request guards once — Host and Origin
 * (a DNS-rebinding page is refused), a malformed percent-escape (400, never 500), the route table
 * (404 naming what is served, 405), the declared body size (413), then the caller (`admit`) — and
 * then the route. No cookie is read or set. A door adds routes; it never composes the guards again.
 */
export async function startGuardedServer(options: GuardedServerOptions): Promise<GuardedServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.dangerouslyBindAll) throw new BindRefused(`Refusing to bind ${host}: a non-loopback host needs --dangerously-bind-all`);
  const served = options.routes.map((route) => (typeof route.path === 'string' ? route.path : (route.label ?? route.path.source))).join(', ');
  let port = 0;
  const http: HttpServer = createServer((req, res) => {
    void handle(req, res).catch((error: Error) => {
      options.logger.warn(`${options.name} request failed`, { error: error.message });
      if (!res.headersSent) sendJson(res, 500, { error: { message: `The ${options.name} failed to answer this request.` } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const guard = checkHostAndOrigin(req.headers, port, host, options.allowedHostNames);
    if (!guard.ok) return sendJson(res, 403, { error: { message: guard.reason } });
    const rawPath = new URL(req.url ?? '/', 'http://server').pathname;
    const path = decodedPathOf(rawPath);
    if (path === undefined) return sendJson(res, 400, { error: { message: 'The request path has a malformed percent-escape.' } });
    let params: string[] = [];
    const route = options.routes.find((candidate) => {
      if (typeof candidate.path === 'string') return candidate.path === path;
      const match = candidate.path.exec(path);
      if (match) params = match.slice(1);
      return match !== null;
    });
    if (!route) return sendJson(res, 404, { error: { message: `Not found: the ${options.name} serves ${served}.` } });
    if (route.methods && !route.methods.includes(req.method ?? 'GET')) {
      res.setHeader('Allow', route.methods.join(', '));
      return sendJson(res, 405, { error: { message: 'Method not allowed' } });
    }
    if (Number(req.headers['content-length'] ?? 0) > options.maxBodyBytes) return sendJson(res, 413, { error: { message: `Request bodies are limited to ${options.maxBodyBytes} bytes.` } });
    let caller = '';
    if (!route.open && options.admit) {
      const admitted = options.admit(req, res);
      if (admitted === undefined) return;
      caller = admitted;
    }
    await route.handle({ req, res, path, params, caller, port });
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const urlHost = urlHostFor(host);
  return {
    port,
    host,
    url: (path) => `http://${urlHost}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The path with its percent-escapes decoded; undefined when one is malformed (`%E0%A4%A`). */
function decodedPathOf(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/** A JSON answer that no cache keeps; an error closes the connection (a flood is not read further). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  if (status >= 400) res.setHeader('Connection', 'close');
  res.end(JSON.stringify(body));
}

/** Reads the body, counting as it comes: undefined once it passes the cap (the rest is never read). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
