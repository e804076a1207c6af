import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';
import { readBody, sendJson, startGuardedServer, type HttpRoute, type RoutedRequest } from '../platform/guardedHttpServer';
import { writeWebResponse } from '../platform/writeWebResponse';
import type { Logger } from '../platform/Logger';
import type { GatewayCredentialCheck } from '../agents/AgentCredentials';
import { gatewayServer, type GatewayCallDeps, type GatewayPeer } from './GatewayMcpServer';
import { TokenBuckets } from './TokenBuckets';
import { gatewayReadiness, type SourceSync } from './gatewayReadiness';
import { NO_SOURCE_GRANTS, relayResourceListen } from './relayedFeatures';

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
  /** Other doors' routes on the same port, behind the same guards (mediation's `/v1/…` and `/history/{agent}`). */
  routes?: readonly HttpRoute[];
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


interface LegacySession {
  agent: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  gone: AbortController;
  /** Set while the agent's event stream is closed: ends the session when it fires. */
  goneTimer?: ReturnType<typeof setTimeout>;
}

/**
 * The MCP gateway's HTTP face, mounted on the one server kit (platform/guardedHttpServer.ts):
 * `/mcp` (Streamable HTTP; 2025-11-25 sessions and 2026-07-28 stateless requests side by side),
 * `/health`, `/ready`, and the routes other doors mount on the port (mediation's). Every request
 * passes the kit's guards before a byte of MCP is read: Host and Origin, the path, the body cap,
 * then the agent's credential and its rate (`admit`). No cookie is set or read.
 */
export async function startGateway(options: GatewayServerOptions): Promise<RunningGateway> {
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
  /** The agent a request's credential names, within its rate; undefined once the refusal is answered. */
  const admit = (req: IncomingMessage, res: ServerResponse): string | undefined => {
    const credential = options.credentials.check({ authorization: req.headers.authorization, 'x-api-key': req.headers['x-api-key'] });
    if (!credential.ok) {
      if (credential.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="tooldeck-gateway"');
      sendJson(res, credential.status, { error: { message: credential.reason } });
      return undefined;
    }
    const wait = buckets.take(credential.agent);
    if (wait !== undefined) {
      options.onRateLimited?.(credential.agent);
      res.setHeader('Retry-After', String(wait));
      sendJson(res, 429, { error: { message: `Too many requests from agent ${credential.agent}; retry in ${wait} s.` } });
      return undefined;
    }
    return credential.agent;
  };

  /** One MCP request of an admitted agent: parsed once, then to its era's transport. */
  async function mcp({ req, res, caller: agent }: RoutedRequest) {
    let parsed: unknown;
    if (req.method === 'POST') {
      const body = await readBody(req, maxBodyBytes);
      if (!body) return sendJson(res, 413, { error: { message: `Request bodies are limited to ${maxBodyBytes} bytes.` } });
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON.' } });
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
    if (!legacyRequest && options.upstream && (parsed as { method?: unknown } | undefined)?.method === 'subscriptions/listen') {
      // The resources a 2026-07-28 agent listens to: subscribed upstream while its stream is open.
      if (!readiness.ready) await readiness.whenReady();
      const closed = new AbortController();
      res.on('close', () => closed.abort());
      relayResourceListen({ upstream: options.upstream, sourceGrants: options.sourceGrants ?? (() => NO_SOURCE_GRANTS) }, agent, parsed, AbortSignal.any([closed.signal, stopping.signal]), (uri) => modern.notify.resourceUpdated(uri));
    }
    const response = legacyRequest ? await legacy(request, agent, parsed) : await modern.fetch(request, { authInfo: authInfo(agent), parsedBody: parsed });
    await writeWebResponse(response, res);
  }

  const routes: HttpRoute[] = [
    { path: '/health', methods: ['GET', 'HEAD'], open: true, handle: ({ res }) => sendJson(res, 200, { ok: true }) },
    {
      // Liveness is /health; this says whether an agent listing its tools now gets them all.
      path: '/ready',
      methods: ['GET', 'HEAD'],
      open: true,
      handle: ({ res }) => {
        const status = readiness.status();
        sendJson(res, status.ready ? 200 : 503, status.ready ? { ready: true, connected: status.connected, pending: status.pending } : { ready: false, connecting: status.pending, connected: status.connected });
      },
    },
    { path: '/mcp', handle: mcp },
    ...(options.routes ?? []),
  ];
  const server = await startGuardedServer({
    name: 'gateway',
    logger: options.logger,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.dangerouslyBindAll ? { dangerouslyBindAll: true } : {}),
    ...(options.allowedHostNames ? { allowedHostNames: options.allowedHostNames } : {}),
    maxBodyBytes,
    routes,
    admit,
  });
  port = server.port;
  const { host } = server;
  // The sources' resource and prompt lists changed: agents re-list (each sees only what it is granted).
  const listChanged = (what: 'resources' | 'prompts') => {
    for (const session of sessions.values()) void (what === 'resources' ? session.server.sendResourceListChanged() : session.server.sendPromptListChanged()).catch(() => undefined);
    if (what === 'resources') modern.notify.resourcesChanged();
    else modern.notify.promptsChanged();
  };
  const relistResourcesAndPrompts = () => {
    listChanged('resources');
    listChanged('prompts');
  };
  const stopLists = options.upstream?.onListsChanged(listChanged);
  const stopWatching = options.credentials.onChange(() => {
    for (const [id, session] of sessions) if (!options.credentials.isLive(session.agent)) endSession(id);
  });

  return {
    url: server.url('/mcp'),
    port,
    host,
    toolsChanged() {
      for (const session of sessions.values()) void session.server.sendToolListChanged().catch(() => undefined);
      modern.notify.toolsChanged();
      // The same changes (grants, the catalog) may change which sources' resources and prompts an agent sees.
      if (options.upstream) relistResourcesAndPrompts();
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
      await server.close();
    },
  };
}

function authInfo(agent: string) {
  return { token: '', clientId: agent, scopes: [] as string[] };
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

function jsonError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), { status, headers: { 'Content-Type': 'application/json' } });
}
