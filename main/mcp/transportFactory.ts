import { SSEClientTransport, StreamableHTTPClientTransport, type FetchLike, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServerConfig } from '../../shared/mcp';
import { callTracing, TRACEPARENT } from '../metrics/CallTracing';
import { withParentDeathSignal } from '../platform/parentDeathSignal';
import { fetchReleasingSignal } from '../platform/fetchReleasingSignal';
import { fetchWithinMessageLimit } from './boundedResponses';
import { LinearReadBuffer } from './LinearReadBuffer';

/** The hard limit on one result (settings.json `limits.maxResultMiB`): 64 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 64 * 1024 * 1024;

export interface BuiltTransport {
  transport: Transport;
  /** stdio only: the child's stderr, piped so the transcript and the doctor can show it. */
  stdio?: StdioClientTransport;
}

export interface TransportLimits {
  /**
   * Largest message accepted from a server (a stdio line, an HTTP JSON body, one event of an event
   * stream); a larger reply becomes an error for its call.
   */
  maxMessageBytes: number;
  /** Bytes of a message are arriving (a large result is being received). */
  onReceiving?: () => void;
}

/**
 * A transport for a saved server; HTTP transports carry its headers and bearer token, and send
 * through `authFetch` (MCP authorization) when given.
 */
export function createTransport(config: McpServerConfig, bearerToken?: string, authFetch?: FetchLike, limits: TransportLimits = { maxMessageBytes: DEFAULT_MAX_RESULT_BYTES }): BuiltTransport {
  if (config.transport === 'stdio') {
    const env = { ...getDefaultEnvironment(), ...config.env };
    const launch = withParentDeathSignal(config.command, config.args, env.PATH, config.cwd);
    const stdio = new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env,
      cwd: config.cwd,
      stderr: 'pipe',
    });
    // The SDK's own line buffer is quadratic in the size of a message and closes the connection on
    // one that is too big; this one is linear and answers an oversized reply with an error instead.
    (stdio as unknown as { _readBuffer: LinearReadBuffer })._readBuffer = new LinearReadBuffer({ maxMessageBytes: limits.maxMessageBytes, onReceiving: limits.onReceiving });
    return { transport: stdio, stdio };
  }
  const headers: Record<string, string> = { ...config.headers };
  if (bearerToken) headers.Authorization = `Bearer ${bearerToken}`;
  const url = new URL(config.url);
  // fetch() refuses URLs with credentials: `user:password@` becomes HTTP Basic, as curl does.
  if (url.username || url.password) {
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
      headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    }
    url.username = '';
    url.password = '';
  }
  // The transports hand their connection-lifetime signal to every request: see fetchReleasingSignal.
  // Every body is counted as it arrives, so the result limit holds over HTTP as over stdio.
  const send: FetchLike = fetchReleasingSignal(fetchWithinMessageLimit(withTraceparentHeader(authFetch ?? fetch), limits));
  const transport =
    config.transport === 'http'
      ? new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: send })
      : new SSEClientTransport(url, {
          requestInit: { headers },
          fetch: send,
          // The event stream is a GET of its own; it needs the same headers.
          eventSourceInit: { fetch: (input, init) => send(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
        });
  return { transport };
}

/**
 * Trace context on the wire (SEP-414): every request (and notification) Tooldeck sends carries
 * the current call's `traceparent` in `_meta`, or one of its own outside a call. Wraps `send`
 * in place, like the transcript, so the SDK keeps its own transport instance.
 */
export function traceOutgoing(transport: Transport) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const outgoing = message as { method?: unknown; params?: Record<string, unknown> };
    if (typeof outgoing.method === 'string') {
      const params = outgoing.params ?? {};
      const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
      if (typeof meta.traceparent !== 'string') {
        outgoing.params = { ...params, _meta: { ...meta, traceparent: callTracing.outgoing(`mcp ${outgoing.method}`) } };
      }
    }
    return send(message, options);
  };
}

/**
 * Streamable HTTP (and the legacy SSE transport's posts): the `traceparent` header names the same
 * trace as the message's `_meta`, so HTTP-level tools (proxies, gateways) see it too.
 */
export function withTraceparentHeader(base: FetchLike): FetchLike {
  return (input, init) => {
    const traceparent = typeof init?.body === 'string' ? traceparentInBody(init.body) : undefined;
    if (!traceparent) return base(input, init);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', traceparent);
    return base(input, { ...init, headers });
  };
}

function traceparentInBody(body: string): string | undefined {
  if (!body.includes('"traceparent"')) return undefined;
  try {
    const message = JSON.parse(body) as { params?: { _meta?: { traceparent?: unknown } } } | Array<unknown>;
    const value = Array.isArray(message) ? undefined : message.params?._meta?.traceparent;
    return typeof value === 'string' && TRACEPARENT.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lets the transcript see every message without replacing the transport object (the SDK treats
 * its own stdio transport specially, so it must stay that exact instance).
 */
export function observeTransport(transport: Transport, onOutgoing: (message: unknown) => void, onIncoming: (message: unknown) => void) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    onOutgoing(message);
    return send(message, options);
  };
  let handler = transport.onmessage;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      handler = next
        ? (message, extra) => {
            onIncoming(message);
            next(message, extra);
          }
        : next;
    },
  });
}
