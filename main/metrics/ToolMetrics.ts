import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Attributes, Counter, Histogram } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { AppError } from '../../shared/errors';
import { sourceId, type InvocationRecord } from '../../shared/invocation';
import { checkFetchSite, checkHostAndOrigin, presentedToken, tokensEqual } from '../platform/requestGuard';
import { TOOL_LATENCY_BOUNDARIES_MS } from './latencyBoundaries';

export const DURATION_INSTRUMENT = 'tool.invoke.duration';
export const INVOCATIONS_INSTRUMENT = 'tool.invocations';
/** Task-augmented calls (MCP tasks), by tool, source and the task's status when the call was recorded. */
export const TASKS_INSTRUMENT = 'tool.tasks';
/**
 * Agents are configured, so their names are few; this cap keeps a label from growing without end
 * should a way in ever accept names it was not configured with. Later agents share `other`.
 */
export const MAX_AGENT_LABELS = 100;
export const OTHER_AGENTS_LABEL = 'other';

export interface PrometheusOptions {
  /** 0 picks a free port. */
  port: number;
  /** Loopback by default; any other address exposes the metrics to the network. */
  host?: string;
  /** When set, a scrape must send `Authorization: Bearer <token>` (Prometheus `authorization.credentials`). */
  bearerToken?: string;
}

export interface OtlpOptions {
  /** Full OTLP/HTTP metrics endpoint, e.g. `http://collector:4318/v1/metrics`. */
  url: string;
  /** Sent with every export (often an API key: resolve it from the SecretStore, never from config). */
  headers?: Record<string, string>;
  intervalMs?: number;
  /** How long one export may take, retries included (default 10 s). */
  timeoutMs?: number;
}

export interface ToolMetricsStatus {
  prometheus?: { url: string };
  otlp?: { url: string; intervalMs: number; lastExportAt?: number; lastError?: string };
}

export interface ToolMetricsOptions {
  serviceVersion?: string;
}

interface OtlpState {
  options: OtlpOptions & { intervalMs: number };
  exporter: OTLPMetricExporter;
  timer: NodeJS.Timeout;
  inFlight?: Promise<void>;
  lastExportAt?: number;
  lastError?: string;
}

/**
 * OpenTelemetry instruments for tool calls, named and tagged like RockBot's (`tool.invoke.duration`
 * in ms, `tool.invocations`, by tool_name, source and status). One Prometheus reader holds the
 * cumulative state: the scrape endpoint serves it and the OTLP push exports from it, so either can be
 * switched on, off or re-pointed at any time without resetting a counter.
 */
export class ToolMetrics {
  private readonly reader = new PrometheusExporter({ preventServerStart: true });
  private readonly provider: MeterProvider;
  private readonly duration: Histogram;
  private readonly invocations: Counter;
  private readonly tasks: Counter;
  private readonly agentLabels = new Set<string>();
  private server: Server | undefined;
  private prometheusUrl: string | undefined;
  private otlp: OtlpState | undefined;

  constructor(options: ToolMetricsOptions = {}) {
    this.provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'tooldeck', ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}) }),
      readers: [this.reader],
    });
    const meter = this.provider.getMeter('tooldeck');
    this.duration = meter.createHistogram(DURATION_INSTRUMENT, {
      unit: 'ms',
      description: 'Duration of tool invocations',
      advice: { explicitBucketBoundaries: [...TOOL_LATENCY_BOUNDARIES_MS] },
    });
    this.invocations = meter.createCounter(INVOCATIONS_INSTRUMENT, { description: 'Tool invocations' });
    this.tasks = meter.createCounter(TASKS_INSTRUMENT, { description: 'Tool invocations that ran as MCP tasks' });
  }

  observe(rec: InvocationRecord): void {
    const attributes: Attributes = { tool_name: rec.tool, source: sourceId({ kind: rec.sourceKind, name: rec.sourceName }), status: rec.status };
    // Who called and how, when the record knows: `via` has a handful of values, `agent` one per
    // configured agent (the operator's calls carry none), capped in case names ever are not bounded.
    if (rec.via !== undefined) attributes.via = rec.via;
    if (rec.agent !== undefined) attributes.agent = this.agentLabel(rec.agent);
    this.duration.record(rec.latencyMs, attributes);
    this.invocations.add(1, attributes);
    if (rec.taskId) this.tasks.add(1, { tool_name: rec.tool, source: attributes.source, task_status: rec.taskStatus ?? 'unknown' });
  }

  /** The agent's name as a label value; past MAX_AGENT_LABELS distinct names, `other`. */
  private agentLabel(agent: string): string {
    if (this.agentLabels.has(agent)) return agent;
    if (this.agentLabels.size >= MAX_AGENT_LABELS) return OTHER_AGENTS_LABEL;
    this.agentLabels.add(agent);
    return agent;
  }

  /** Serves `/metrics` in the Prometheus text format; calling it again moves the endpoint. */
  async startPrometheus({ port, host = '127.0.0.1', bearerToken }: PrometheusOptions): Promise<{ url: string }> {
    await this.stopPrometheus();
    let boundPort = port;
    const server = createServer((request, response) => {
      // The console's own checks: a DNS-rebinding page or another local site reads nothing here.
      const verdict = [checkHostAndOrigin(request.headers, boundPort, host), checkFetchSite(request.headers, 'api')].find((v) => !v.ok);
      if (verdict && !verdict.ok) return void response.writeHead(verdict.status, { 'content-type': 'text/plain', connection: 'close' }).end(`${verdict.reason}\n`);
      if (bearerToken !== undefined && !tokensEqual(bearerToken, presentedToken(request.headers))) {
        return void response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer', connection: 'close' }).end('A bearer token is required\n');
      }
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (request.method === 'GET' && path === '/metrics') {
        this.reader.getMetricsRequestHandler(request, response);
        return;
      }
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are served at /metrics\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new AppError('InvalidInput', error.code === 'EADDRINUSE' ? `Port ${port} on ${host} is already in use.` : `Cannot serve metrics on ${host}:${port}: ${error.message}`, {
            cause: error,
          }),
        ),
      );
      server.listen(port, host, resolve);
    });
    const address = server.address() as AddressInfo;
    boundPort = address.port;
    this.server = server;
    this.prometheusUrl = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`;
    return { url: this.prometheusUrl };
  }

  async stopPrometheus(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.prometheusUrl = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Pushes to an OTLP/HTTP endpoint every `intervalMs` (default 60 s); `undefined` stops pushing. */
  async configureOtlp(options: OtlpOptions | undefined): Promise<void> {
    const previous = this.otlp;
    this.otlp = undefined;
    if (previous) {
      clearInterval(previous.timer);
      await previous.inFlight;
      await previous.exporter.shutdown();
    }
    if (!options) return;
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new AppError('InvalidInput', `The OTLP endpoint "${options.url}" is not a URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('InvalidInput', 'The OTLP endpoint must be an http or https URL.');
    const intervalMs = Math.max(1_000, options.intervalMs ?? 60_000);
    const state: OtlpState = {
      options: { ...options, intervalMs },
      exporter: new OTLPMetricExporter({ url: options.url, headers: options.headers ?? {}, timeoutMillis: options.timeoutMs ?? 10_000 }),
      timer: setInterval(() => void this.exportOtlp(state), intervalMs),
    };
    state.timer.unref();
    this.otlp = state;
  }

  /** Exports to the OTLP endpoint now (e.g. before quitting); resolves once it answered or failed. */
  async flushOtlp(): Promise<void> {
    if (this.otlp) await this.exportOtlp(this.otlp);
  }

  status(): ToolMetricsStatus {
    const otlp = this.otlp;
    return {
      ...(this.prometheusUrl ? { prometheus: { url: this.prometheusUrl } } : {}),
      ...(otlp
        ? {
            otlp: {
              url: otlp.options.url,
              intervalMs: otlp.options.intervalMs,
              ...(otlp.lastExportAt !== undefined ? { lastExportAt: otlp.lastExportAt } : {}),
              ...(otlp.lastError !== undefined ? { lastError: otlp.lastError } : {}),
            },
          }
        : {}),
    };
  }

  async shutdown(): Promise<void> {
    await this.flushOtlp();
    await this.configureOtlp(undefined);
    await this.stopPrometheus();
    await this.provider.shutdown();
  }

  private exportOtlp(state: OtlpState): Promise<void> {
    // A slow collector must not pile up exports: one at a time, the next tick carries newer totals.
    if (state.inFlight) return state.inFlight;
    const run = this.exportOnce(state).finally(() => {
      if (state.inFlight === run) state.inFlight = undefined;
    });
    state.inFlight = run;
    return run;
  }

  private async exportOnce(state: OtlpState): Promise<void> {
    try {
      const { resourceMetrics } = await this.reader.collect();
      const result = await new Promise<{ code: number; error?: Error }>((resolve) => state.exporter.export(resourceMetrics, resolve));
      // ExportResultCode.SUCCESS is 0.
      if (result.code === 0) {
        state.lastExportAt = Date.now();
        state.lastError = undefined;
      } else {
        state.lastError = result.error?.message ?? 'export failed';
      }
    } catch (error) {
      state.lastError = (error as Error).message;
    }
  }
}
