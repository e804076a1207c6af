import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkFetchSite, checkHostAndOrigin, isLoopbackHost, urlHostFor } from '../platform/requestGuard';
import type { Logger } from '../platform/Logger';
import type { AgentMetrics } from '../agents/AgentMetrics';

export interface AgentMetricsServerOptions {
  metrics: AgentMetrics;
  logger: Logger;
  port: number;
  /** The gateway's own bind address: a non-loopback one was allowed with --dangerously-bind-all. */
  host: string;
  allowedHostNames?: readonly string[];
}

export interface RunningMetricsServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The gateway's `/metrics`, on a port of its own: it serves GET /metrics and nothing else, asks for
 * no credential and reads none (an Authorization header is never looked at), so a scraper — or the
 * console reading through the API server's pod proxy — never holds an agent credential, and a
 * credential never needs to reach it. What it serves is counts per agent name; no argument, tool
 * output or credential material is in any series.
 *
 * On a loopback bind (a desktop) the Host and Sec-Fetch-Site checks of every other listener apply
 * (as on the console's own metrics port), so neither a DNS-rebinding page nor another local site
 * reads it. On a pod's address it is served to whoever reaches the port,
 * as every Prometheus exporter is: the API server's proxy forwards the Host its own client used,
 * which no list given in advance could name.
 */
export async function startMetricsServer(options: AgentMetricsServerOptions): Promise<RunningMetricsServer> {
  const { metrics, host } = options;
  let port = 0;
  const server = createServer((req, res) => {
    void serve(req, res).catch((error: Error) => {
      options.logger.warn('gateway metrics request failed', { error: error.message });
      if (!res.headersSent) plain(res, 500, 'The metrics could not be collected.\n');
      else res.destroy();
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse) {
    if (isLoopbackHost(host)) {
      const verdict = [checkHostAndOrigin(req.headers, port, host, options.allowedHostNames), checkFetchSite(req.headers, 'api')].find((v) => !v.ok);
      if (verdict && !verdict.ok) return plain(res, 403, `${verdict.reason}\n`);
    }
    const path = new URL(req.url ?? '/', 'http://metrics').pathname;
    if (path !== '/metrics') return plain(res, 404, 'Not found: this port serves /metrics only.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return plain(res, 405, 'Method not allowed\n');
    }
    const text = await metrics.text();
    res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : text);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${urlHostFor(host)}:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function plain(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...(status >= 400 ? { Connection: 'close' } : {}) });
  res.end(text);
}
