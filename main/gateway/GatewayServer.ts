import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';
import { checkHostAndOrigin, isLoopbackHost, urlHostFor } from '../platform/requestGuard';
import { writeWebResponse } from '../platform/writeWebResponse';
import type { Logger } from '../platform/Logger';
import type { GatewayCredentialCheck } from '../agents/AgentCredentials';
import { gatewayServer, type GatewayCallDeps, type GatewayPeer } from './GatewayMcpServer';
import { TokenBuckets } from './TokenBuckets';
import { gatewayReadiness, type SourceSync } from './gatewayReadiness';
import { MediationError, type Mediation } from '../mediation/Mediation';
import { wireFormatFor } from '../mediation/wireFormats';

/** Request bodies above this get 413: tool arguments are small; a flood is not read. */
export const GATEWAY_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface GatewayServerOptions extends GatewayCallDeps {
  credentials: GatewayCredentialCheck;
  logger: Logger;
  port?: number;
  host?: string;
  /** Required for a host other than loopback: then any machine that can reach the port may try a credential. */
  dangerouslyBindAll?: boolean;
  maxBodyBytes?: number;
  /** Requests per second and burst per agent. */
  rate?: { perSecond: number; burst: number };
  /** Model mediation (Clawdapus cllama's endpoints) on the same port, behind the same guards. */
  mediation?: Mediation;
  /** Host names agents may address besides the bound address (in a cluster: the gateway Service's DNS names). */
  allowedHostNames?: readonly string[];
  /** Told of each request refused because its agent went over its rate (the metrics count them). */
  onRateLimited?: (agent: string) => void;
  /** The sources' first sync: an agent's first tools/list, and /ready, wait for it (bounded); without it the gateway is ready at once. */
  sourceSync?: SourceSync;
  /** How long that wait may last (default FIRST_SYNC_BOUND_MS). */
  firstSyncBoundMs?: number;
  /** How long a session outlives its agent's closed event stream with nothing in flight (default SESSION_GONE_GRACE_MS). */
  sessionGoneGraceMs?: number;
}

/**
 * An agent that exits seldom says goodbye (a DELETE); what it leaves is its closed event stream
 * (the GET every official client SDK keeps open). Its session ends once that stream has been
 * closed this long with no request of the session in flight or arriving: longer than the SDKs'
 * reconnect delay, so a stream that reconnects keeps its session.
 */
export const SESSION_GONE_GRACE_MS = 10_000;

export interface RunningGateway {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Ends every session of `agent` at once (its credential was revoked). */
  endSessionsOf(agent: string): void;
  /** What agents may see changed: `notifications/tools/list_changed` to every session and listener. */
  toolsChanged(): void;
  close(): Promise<void>;
}

export class GatewayBindRefused extends Error {}

interface LegacySession {
  agent: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  gone: AbortController;
  /** Set while the agent's event stream is closed: ends the session when it fires. */
  goneTimer?: ReturnType<typeof setTimeout>;
}

/**
 * The MCP gateway's HTTP face: `/mcp` (Streamable HTTP; 2025-11-25 sessions and 2026-07-28
 * stateless requests side by side) and `/health`. Every request passes the guards before a byte of
 * MCP is read: Host and Origin (a DNS-rebinding page is refused), the body cap, the agent's
 * credential, the agent's rate. No cookie is set or read.
 */
export async function startGateway(options: GatewayServerOptions): Promise<RunningGateway> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.dangerouslyBindAll) throw new GatewayBindRefused(`Refusing to bind ${host}: a non-loopback host needs --dangerously-bind-all`);
  const maxBodyBytes = options.maxBodyBytes ?? GATEWAY_MAX_BODY_BYTES;
  const buckets = new TokenBuckets(options.rate);
  const stopping = new AbortController();
  const sessions = new Map<string, LegacySession>();
  /** Each HTTP request's own end (the agent hung up): a call waiting on it is canceled. */
  const requestEnds = new WeakMap<Request, AbortSignal>();
  // The bound starts now: a gateway that listens is a gateway whose first answers are being waited for.
  const readiness = gatewayReadiness(options.sourceSync, { logger: options.logger, ...(options.firstSyncBoundMs !== undefined ? { boundMs: options.firstSyncBoundMs } : {}) });
  const deps: GatewayCallDeps = { ...options, sourcesSynced: readiness };

  const peerFor = (agent: string, sessionId: string, gone: AbortSignal): GatewayPeer => ({ agent, sessionId, gone, requestSignal: (request) => (request ? requestEnds.get(request) : undefined) });

  // 2026-07-28: no session; one server instance per request, for the agent its credential names.
  const modern: McpHttpHandler = createMcpHandler(
    (ctx) => {
      const agent = String(ctx.authInfo?.clientId ?? '');
      const id = `r-${randomUUID()}`;
      return gatewayServer(deps, peerFor(agent, id, stopping.signal));
    },
    { legacy: 'reject', maxRequestBodySize: maxBodyBytes, onerror: (error) => options.logger.debug('gateway request failed', { error: error.message }) },
  );

  const endSession = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    clearTimeout(session.goneTimer);
    session.gone.abort(new Error('session ended'));
    options.traffic.closeSession(id);
    void session.transport.close().catch(() => undefined);
    void session.server.close().catch(() => undefined);
  };

  const legacy = async (request: Request, agent: string, parsedBody: unknown): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      // Another agent's session is answered as no session at all.
      if (!session || session.agent !== agent) return jsonError(404, -32001, 'Session not found');
      // Any request of the session says its agent is still there.
      clearTimeout(session.goneTimer);
      if (request.method === 'GET') {
        requestEnds.get(request)?.addEventListener(
          'abort',
          () => {
            if (sessions.get(sessionId) !== session) return;
            session.goneTimer = setTimeout(() => endSession(sessionId), options.sessionGoneGraceMs ?? SESSION_GONE_GRACE_MS);
            session.goneTimer.unref?.();
          },
          { once: true },
        );
      }
      return session.transport.handleRequest(request, { parsedBody, authInfo: authInfo(agent) });
    }
    const gone = new AbortController();
    // The session id exists only once initialize is answered: the peer gets it then.
    const peer = peerFor(agent, '', AbortSignal.any([gone.signal, stopping.signal]));
    // `server` is made below; the transport calls back with the session id only while serving initialize, after that.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBodyBytes,
      onsessioninitialized: (id) => {
        peer.sessionId = id;
        sessions.set(id, { agent, transport, server, gone });
        const clientName = (parsedBody as { params?: { clientInfo?: { name?: unknown } } } | undefined)?.params?.clientInfo?.name;
        options.traffic.openSession({ id, agent, era: '2025-11-25', openedAt: Date.now(), ...(typeof clientName === 'string' ? { clientName: clientName.slice(0, 200) } : {}) });
      },
      onsessionclosed: (id) => endSession(id),
    });
    const server = gatewayServer(deps, peer);
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody, authInfo: authInfo(agent) });
    if (!transport.sessionId) void server.close().catch(() => undefined);
    return response;
  };

  let port = 0;
  const http: HttpServer = createServer((req, res) => {
    void handle(req, res).catch((error: Error) => {
      options.logger.warn('gateway request failed', { error: error.message });
      if (!res.headersSent) send(res, 500, { error: { message: 'The gateway failed to answer this request.' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const guard = checkHostAndOrigin(req.headers, port, host, options.allowedHostNames);
    if (!guard.ok) return send(res, 403, { error: { message: guard.reason } });
    const path = new URL(req.url ?? '/', 'http://gateway').pathname;
    if (path === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: { message: 'Method not allowed' } });
      return send(res, 200, { ok: true });
    }
    if (path === '/ready') {
      // Liveness is /health; this says whether an agent listing its tools now gets them all.
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: { message: 'Method not allowed' } });
      const status = readiness.status();
      return send(res, status.ready ? 200 : 503, status.ready ? { ready: true, connected: status.connected, pending: status.pending } : { ready: false, connecting: status.pending, connected: status.connected });
    }
    const format = wireFormatFor(path);
    const decodedPath = decodedPathOf(path);
    if (decodedPath === undefined) return send(res, 400, { error: { message: 'The request path has a malformed percent-escape.' } });
    const historyOf = /^\/history\/([^/]+)$/.exec(decodedPath)?.[1];
    if (path !== '/mcp' && !(options.mediation && (format || historyOf !== undefined))) return send(res, 404, { error: { message: `Not found: the gateway serves /mcp${options.mediation ? ', /v1/chat/completions, /v1/messages, /history/{agent}' : ''}, /health and /ready.` } });
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) return send(res, 413, { error: { message: `Request bodies are limited to ${maxBodyBytes} bytes.` } });
    const credential = options.credentials.check({ authorization: req.headers.authorization, 'x-api-key': req.headers['x-api-key'] });
    if (!credential.ok) {
      if (credential.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="tooldeck-gateway"');
      return send(res, credential.status, { error: { message: credential.reason } });
    }
    const { agent } = credential;
    const wait = buckets.take(agent);
    if (wait !== undefined) {
      options.onRateLimited?.(agent);
      res.setHeader('Retry-After', String(wait));
      return send(res, 429, { error: { message: `Too many requests from agent ${agent}; retry in ${wait} s.` } });
    }
    if (historyOf !== undefined) {
      // An agent reads its own mediated turns only.
      if (historyOf !== agent) return send(res, 403, { error: { message: 'An agent reads only its own history.' } });
      return send(res, 200, options.mediation!.history(agent));
    }
    let parsed: unknown;
    if (req.method === 'POST') {
      const body = await readBody(req, maxBodyBytes);
      if (!body) return send(res, 413, { error: { message: `Request bodies are limited to ${maxBodyBytes} bytes.` } });
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        if (path !== '/mcp') return send(res, 400, { error: { message: 'The body is not JSON.' } });
        return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON.' } });
      }
    }
    if (format) {
      if (req.method !== 'POST' || !parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return send(res, 400, { error: { message: 'Send the request as a JSON object in a POST.' } });
      try {
        return await options.mediation!.handle(agent, format, parsed as Record<string, unknown>, res);
      } catch (error) {
        if (res.headersSent) return void res.end();
        if (error instanceof MediationError) return send(res, error.status, { error: { message: error.message } });
        throw error;
      }
    }
    const ended = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) ended.abort(new Error('the agent hung up'));
    });
    // The body travels parsed (`parsedBody`): both transports and the classifier read that and never
    // the request's own body, so the Request carries none — no copy of the bytes, no clone to classify.
    const request = toWebRequest(req, port);
    requestEnds.set(request, ended.signal);
    const legacyRequest = await isLegacyRequest(request, parsed, { maxRequestBodySize: maxBodyBytes });
    const response = legacyRequest ? await legacy(request, agent, parsed) : await modern.fetch(request, { authInfo: authInfo(agent), parsedBody: parsed });
    await writeWebResponse(response, res);
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const urlHost = urlHostFor(host);
  // The sources' resource and prompt lists changed: agents re-list (each sees only what it is granted).
  const stopLists = options.upstream?.onListsChanged((what) => {
    for (const session of sessions.values()) void (what === 'resources' ? session.server.sendResourceListChanged() : session.server.sendPromptListChanged()).catch(() => undefined);
    if (what === 'resources') modern.notify.resourcesChanged();
    else modern.notify.promptsChanged();
  });
  const stopWatching = options.credentials.onChange(() => {
    for (const [id, session] of sessions) if (!options.credentials.isLive(session.agent)) endSession(id);
  });

  return {
    url: `http://${urlHost}:${port}/mcp`,
    port,
    host,
    toolsChanged() {
      for (const session of sessions.values()) void session.server.sendToolListChanged().catch(() => undefined);
      modern.notify.toolsChanged();
    },
    endSessionsOf(agent) {
      for (const [id, session] of sessions) if (session.agent === agent) endSession(id);
    },
    async close() {
      stopWatching();
      stopLists?.();
      readiness.close();
      stopping.abort(new Error('the gateway is stopping'));
      for (const id of [...sessions.keys()]) endSession(id);
      await modern.close().catch(() => undefined);
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    },
  };
}

/** The path with its percent-escapes decoded; undefined when one is malformed (`%E0%A4%A`): the request is answered 400, never 500. */
function decodedPathOf(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

function authInfo(agent: string) {
  return { token: '', clientId: agent, scopes: [] as string[] };
}

/** Reads the body, counting as it comes: undefined once it passes the cap (the rest is never read). */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
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

function toWebRequest(req: IncomingMessage, port: number): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // Cookies are never read: browsers send them to every port of the host.
    if (name === 'cookie' || value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://127.0.0.1:${port}${req.url ?? '/mcp'}`, { method: req.method, headers });
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  if (status >= 400) res.setHeader('Connection', 'close');
  res.end(JSON.stringify(body));
}

function jsonError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), { status, headers: { 'Content-Type': 'application/json' } });
}
