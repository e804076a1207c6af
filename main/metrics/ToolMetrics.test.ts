import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { invocation } from '../store/testing/testRecords';
import { ToolMetrics } from './ToolMetrics';

const running: ToolMetrics[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((metrics) => metrics.shutdown()));
});

function toolMetrics(): ToolMetrics {
  const metrics = new ToolMetrics({ serviceVersion: '0.1.0' });
  running.push(metrics);
  return metrics;
}

function observeSample(metrics: ToolMetrics): void {
  metrics.observe(invocation({ id: '1', sourceName: 'everything', tool: 'echo', latencyMs: 3 }));
  metrics.observe(invocation({ id: '2', sourceName: 'everything', tool: 'echo', latencyMs: 40 }));
  metrics.observe(invocation({ id: '3', sourceName: 'everything', tool: 'echo', latencyMs: 7_000, status: 'timeout' }));
  metrics.observe(invocation({ id: '4', sourceKind: 'a2a', sourceName: 'planner', tool: 'plan', latencyMs: 0.3 }));
}

/** An OTLP/HTTP endpoint that keeps what it receives. */
async function otlpReceiver() {
  const requests: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`;
  return { url, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function rawStatus(port: number, path: string, headers: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    })
      .on('error', reject)
      .end();
  });
}

describe('ToolMetrics', () => {
  it('serves the counter and the latency histogram with their labels to a Prometheus scrape', async () => {
    const metrics = toolMetrics();
    observeSample(metrics);
    const { url } = await metrics.startPrometheus({ port: 0 });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

    const response = await fetch(url);
    expect(response.status).toBe(200);
    const text = await response.text();
    const echo = 'tool_name="echo",source="mcp:everything",status="ok",otel_scope_name="tooldeck"';
    // Prometheus names: dots become underscores, the counter gains _total, the unit stays metadata.
    expect(text).toContain('# TYPE tool_invocations_total counter');
    expect(text).toContain(`tool_invocations_total{${echo}} 2`);
    expect(text).toContain('tool_invocations_total{tool_name="echo",source="mcp:everything",status="timeout",otel_scope_name="tooldeck"} 1');
    expect(text).toContain('tool_invocations_total{tool_name="plan",source="a2a:planner",status="ok",otel_scope_name="tooldeck"} 1');
    expect(text).toContain('# TYPE tool_invoke_duration histogram');
    expect(text).toContain('# UNIT tool_invoke_duration ms');
    expect(text).toContain(`tool_invoke_duration_count{${echo}} 2`);
    expect(text).toContain(`tool_invoke_duration_sum{${echo}} 43`);
    expect(text).toContain(`tool_invoke_duration_bucket{${echo},le="2.5"} 0`);
    expect(text).toContain(`tool_invoke_duration_bucket{${echo},le="5"} 1`);
    expect(text).toContain(`tool_invoke_duration_bucket{${echo},le="50"} 2`);
    expect(text).toContain(`tool_invoke_duration_bucket{${echo},le="+Inf"} 2`);
    expect(text).toContain('tool_invoke_duration_bucket{tool_name="plan",source="a2a:planner",status="ok",otel_scope_name="tooldeck",le="0.5"} 1');
    expect(text).toMatch(/target_info\{service_name="tooldeck",[^}]*service_version="0\.1\.0"/);

    expect((await fetch(url.replace('/metrics', '/other'))).status).toBe(404);
    expect(metrics.status()).toEqual({ prometheus: { url } });
  });

  it('answers only its own Host, no foreign Origin or other site, and a bearer token when configured', async () => {
    const metrics = toolMetrics();
    observeSample(metrics);
    const { url } = await metrics.startPrometheus({ port: 0, bearerToken: 'scrape-secret' });
    const port = Number(new URL(url).port);
    const status = (headers: Record<string, string>) => rawStatus(port, '/metrics', headers);
    const auth = { Authorization: 'Bearer scrape-secret' };
    expect(await status({ Host: `127.0.0.1:${port}`, ...auth })).toBe(200);
    expect(await status({ Host: `localhost:${port}`, ...auth })).toBe(200);
    expect(await status({ Host: `rebound.attacker.test:${port}`, ...auth })).toBe(403);
    expect(await status({ Host: `127.0.0.1:${port}`, Origin: 'http://127.0.0.1:5173', ...auth })).toBe(403);
    expect(await status({ Host: `127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-site', ...auth })).toBe(403);
    expect(await status({ Host: `127.0.0.1:${port}` })).toBe(401);
    expect(await status({ Host: `127.0.0.1:${port}`, Authorization: 'Bearer wrong' })).toBe(401);
    await metrics.shutdown();
  });

  it('keeps counting across a stop and restart of the endpoint, and reports a busy port', async () => {
    const metrics = toolMetrics();
    observeSample(metrics);
    const { url } = await metrics.startPrometheus({ port: 0 });
    await metrics.stopPrometheus();
    await expect(fetch(url)).rejects.toThrow();
    expect(metrics.status()).toEqual({});

    metrics.observe(invocation({ id: '5', tool: 'echo', latencyMs: 1 }));
    const port = Number(new URL(url).port);
    const restarted = await metrics.startPrometheus({ port, host: '127.0.0.1' });
    expect(await (await fetch(restarted.url)).text()).toContain('tool_invocations_total{tool_name="echo",source="mcp:everything",status="ok",otel_scope_name="tooldeck"} 3');

    const other = toolMetrics();
    await expect(other.startPrometheus({ port })).rejects.toMatchObject({ code: 'InvalidInput', message: `Port ${port} on 127.0.0.1 is already in use.` });
  });

  it('pushes the same instruments over OTLP/HTTP with the configured headers', async () => {
    const receiver = await otlpReceiver();
    try {
      const metrics = toolMetrics();
      observeSample(metrics);
      await metrics.configureOtlp({ url: receiver.url, headers: { 'x-api-key': 'k-123' }, intervalMs: 60_000 });
      await metrics.flushOtlp();

      expect(receiver.requests).toHaveLength(1);
      const [request] = receiver.requests;
      expect(request!.path).toBe('/v1/metrics');
      expect(request!.headers['x-api-key']).toBe('k-123');
      const payload = JSON.parse(request!.body) as {
        resourceMetrics: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeMetrics: { metrics: { name: string; unit?: string; sum?: { dataPoints: unknown[] }; histogram?: { dataPoints: unknown[] } }[] }[];
        }[];
      };
      const [resourceMetrics] = payload.resourceMetrics;
      expect(resourceMetrics!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'tooldeck' } });
      const byName = new Map(resourceMetrics!.scopeMetrics.flatMap((s) => s.metrics).map((m) => [m.name, m]));
      expect(byName.get('tool.invoke.duration')).toMatchObject({ unit: 'ms' });
      expect(byName.get('tool.invoke.duration')?.histogram?.dataPoints).toHaveLength(3);
      expect(byName.get('tool.invocations')?.sum?.dataPoints).toHaveLength(3);
      expect(request!.body).toContain('"key":"source","value":{"stringValue":"mcp:everything"}');
      expect(metrics.status().otlp).toMatchObject({ url: receiver.url, intervalMs: 60_000, lastExportAt: expect.any(Number) });

      await metrics.configureOtlp(undefined);
      expect(metrics.status().otlp).toBeUndefined();
    } finally {
      await receiver.close();
    }
  });

  it('records a failing OTLP endpoint in its status instead of throwing', async () => {
    const receiver = await otlpReceiver();
    const deadUrl = receiver.url;
    await receiver.close();
    const metrics = toolMetrics();
    observeSample(metrics);
    await metrics.configureOtlp({ url: deadUrl, intervalMs: 60_000, timeoutMs: 500 });
    await expect(metrics.flushOtlp()).resolves.toBeUndefined();
    expect(metrics.status().otlp?.lastError).toBeTruthy();
    await expect(metrics.configureOtlp({ url: 'not a url' })).rejects.toMatchObject({ code: 'InvalidInput' });
  });
});
