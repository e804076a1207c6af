import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError } from './KubeApiError';
import { RequestStats } from './RequestStats';

export interface KubeRequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** The Accept header; e.g. PARTIAL_OBJECT_METADATA reads an object's metadata without its data. */
  accept?: string;
  timeoutMs?: number;
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export const CONTENT_TYPE = {
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
  apply: 'application/apply-patch+yaml',
  /** An object's metadata only (meta.k8s.io PartialObjectMetadata): how a Secret's labels are read without its values. */
  partialObjectMetadata: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
} as const;

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The REST calls of the reconciler, on the TLS material and credentials client-node reads from the
 * kubeconfig. It keeps one keep-alive agent per client: client-node 2.0's generated APIs open a new
 * undici Agent (a new TLS connection) for every request and cannot reach subresources with
 * server-side apply. Every request is counted in `stats`.
 */
export class KubeRest {
  readonly server: string;
  private agent?: http.Agent;

  constructor(
    private readonly kc: KubeConfig,
    readonly stats = new RequestStats(),
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new KubeApiError(0, 'NoCluster', 'The kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
  }

  async request<T>(method: string, path: string, options: KubeRequestOptions = {}): Promise<T> {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: options.accept ?? CONTENT_TYPE.json };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? CONTENT_TYPE.json;
      // Sized, never chunked: the API server leaves a chunked DELETE body (DeleteOptions) unread on
      // the keep-alive connection, and the next request on it is answered 400 Bad Request.
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    let res: http.IncomingMessage;
    try {
      res = await this.send(method, url, headers, body, undefined, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    } catch (error) {
      this.stats.record(method, url.pathname, 0);
      throw new KubeApiError(0, 'Unreachable', `Cannot reach ${this.server}: ${(error as Error).message}`, { cause: error });
    }
    const text = await readBody(res).catch((error: Error) => {
      this.stats.record(method, url.pathname, 0);
      throw new KubeApiError(0, 'Unreachable', `Connection to ${this.server} broke: ${error.message}`, { cause: error });
    });
    const status = res.statusCode ?? 0;
    this.stats.record(method, url.pathname, status);
    if (status >= 400) throw toApiError(status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /**
   * A fetch for paths on this apiserver (the service and pod proxies), with the cluster's
   * credentials. It refuses other origins, so the bearer token never leaves for another host.
   */
  readonly fetch: FetchLike = async (input, init = {}) => {
    const url = new URL(String(input));
    if (url.origin !== new URL(this.server).origin) throw new TypeError(`Refusing to send cluster credentials to ${url.origin}`);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const method = (init.method ?? 'GET').toUpperCase();
    const body = init.body === undefined || init.body === null ? undefined : typeof init.body === 'string' ? init.body : Buffer.from(await new Response(init.body).arrayBuffer());
    let res: http.IncomingMessage;
    try {
      res = await this.send(method, url, headers, body, init.signal ?? undefined);
    } catch (error) {
      this.stats.record(method, url.pathname, 0);
      throw error;
    }
    this.stats.record(method, url.pathname, res.statusCode ?? 0);
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (Array.isArray(value)) value.forEach((v) => responseHeaders.append(key, v));
      else if (value !== undefined) responseHeaders.set(key, value);
    }
    const status = res.statusCode ?? 502;
    const noBody = status === 204 || status === 304 || method === 'HEAD';
    if (noBody) res.resume();
    return new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage, headers: responseHeaders });
  };

  close() {
    this.agent?.destroy();
    this.agent = undefined;
  }

  private async send(method: string, url: URL, headers: Record<string, string>, body: string | Buffer | undefined, signal?: AbortSignal, timeoutMs?: number): Promise<http.IncomingMessage> {
    const { agent, authHeaders } = await this.connection();
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method, agent, headers: { ...headers, ...authHeaders }, signal });
      if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.once('response', resolve);
      req.once('error', reject);
      req.end(body);
    });
  }

  private async connection(): Promise<{ agent: http.Agent; authHeaders: Record<string, string> }> {
    const opts: https.RequestOptions = {};
    // Called per request: token refreshes (exec and OIDC auth providers) happen in here.
    await this.kc.applyToHTTPSOptions(opts);
    const authHeaders: Record<string, string> = {};
    for (const [key, value] of Object.entries(opts.headers ?? {})) {
      if (value !== undefined) authHeaders[key.toLowerCase()] = String(value);
    }
    if (opts.auth) authHeaders.authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    if (!this.agent) {
      const cluster = this.kc.getCurrentCluster();
      if (cluster?.proxyUrl && opts.agent) this.agent = opts.agent as http.Agent;
      else if (this.server.startsWith('https:')) {
        this.agent = new https.Agent({
          keepAlive: true,
          maxSockets: 16,
          ca: opts.ca,
          cert: opts.cert,
          key: opts.key,
          pfx: opts.pfx,
          passphrase: opts.passphrase,
          servername: opts.servername,
          ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
        });
      } else this.agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    }
    return { agent: this.agent, authHeaders };
  }
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.once('error', reject);
  });
}

function toApiError(status: number, text: string): KubeApiError {
  try {
    const parsed = JSON.parse(text) as { reason?: string; message?: string };
    return new KubeApiError(status, parsed.reason ?? String(status), parsed.message ?? text);
  } catch {
    return new KubeApiError(status, String(status), text.slice(0, 500) || `HTTP ${status}`);
  }
}
