import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Testbed } from '../kube-testbed/testbed.mjs';

export interface ProxiedRequest {
  method: string;
  path: string;
}

/** Runs before a matching request is forwarded: a concurrent writer that always wins the race. */
export interface Interference {
  match: (request: ProxiedRequest) => boolean;
  times: number;
  write: () => Promise<void>;
}

/**
 * A TLS front for the test bed that stays at one address with one CA and token while the
 * apiserver behind it restarts (the test bed makes new certificates and a new token on every
 * start). It logs every request, so tests can count what a client sent, e.g. writes at steady state.
 */
export class CountingApiProxy {
  readonly requests: ProxiedRequest[] = [];
  private readonly server: https.Server;
  private upstream: { port: number; ca: string; token: string };
  private readonly interferences: Interference[] = [];
  private readonly open = new Set<{ destroy(): void }>();

  private constructor(testbed: Testbed, dataDir: string) {
    const pki = join(dataDir, 'pki');
    this.upstream = upstreamOf(testbed);
    // The first apiserver's serving certificate (127.0.0.1, signed by the first CA) keeps clients' trust across restarts.
    this.server = https.createServer({ cert: readFileSync(join(pki, 'apiserver.crt')), key: readFileSync(join(pki, 'apiserver.key')) }, (req, res) => void this.forward(req, res));
  }

  static async start(testbed: Testbed, dataDir: string): Promise<CountingApiProxy> {
    const proxy = new CountingApiProxy(testbed, dataDir);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Points at a restarted test bed. */
  retarget(testbed: Testbed) {
    this.upstream = upstreamOf(testbed);
  }

  interfere(interference: Interference) {
    this.interferences.push(interference);
  }

  /** Requests that change cluster state (proxied MCP traffic to tools excluded). */
  writesSince(index: number): ProxiedRequest[] {
    return this.requests.slice(index).filter((r) => r.method !== 'GET' && !/\/proxy(\/|$)/.test(r.path));
  }

  /** Breaks every open request on both sides, as a dying apiserver would. */
  severConnections() {
    for (const connection of this.open) connection.destroy();
    this.open.clear();
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async forward(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) {
    const request = { method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]! };
    this.requests.push(request);
    const interference = this.interferences.find((i) => i.times > 0 && i.match(request));
    if (interference) {
      interference.times--;
      await interference.write().catch(() => undefined);
    }
    const { port, ca, token } = this.upstream;
    const upstream = https.request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, ca, headers: { ...req.headers, host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` } },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
        upstreamRes.once('error', () => res.destroy());
        upstreamRes.once('aborted', () => res.destroy());
      },
    );
    upstream.once('error', (error) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'ServiceUnavailable', message: `apiserver unreachable: ${error.message}`, code: 503 }));
    });
    const handle = { destroy: () => (upstream.destroy(), res.destroy()) };
    this.open.add(handle);
    res.once('close', () => {
      this.open.delete(handle);
      upstream.destroy();
    });
    req.pipe(upstream);
  }
}

function upstreamOf(testbed: Testbed) {
  return { port: Number(new URL(testbed.server).port), ca: testbed.ca, token: testbed.token };
}

/** A kubeconfig that reaches the test bed through the proxy. */
export function proxiedKubeconfig(proxyUrl: string, caData: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: front',
    '  cluster:',
    `    server: ${proxyUrl}`,
    `    certificate-authority-data: ${caData}`,
    'users:',
    '- name: front',
    '  user:',
    '    token: forwarded-by-the-proxy',
    'contexts:',
    '- name: front',
    '  context: {cluster: front, user: front, namespace: default}',
    'current-context: front',
    '',
  ].join('\n');
}
