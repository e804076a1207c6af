import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GatewayStatus } from '../../shared/gateway';
import { AppError } from '../../shared/errors';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { createCore, type Core } from '../core';
import { trafficPerAgent } from '../kube/operator/readGatewayReplicas';
import { readPrometheusText } from '../metrics/prometheusText';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { GATEWAY_SERIES, AgentMetrics } from './AgentMetrics';

const pod = `x-claw:
  pod: metricstest
  tools-defaults:
    - service: everything
      allow: [echo]
services:
  builder:
    image: example/builder
    x-claw:
      cllama: passthrough
      tools:
        - ...
        - service: everything
          allow: [get-sum]
  flooder:
    image: example/flooder
    x-claw:
      cllama: passthrough
`;
const permission = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: builder-sums-need-approval
spec:
  tool_ref: everything--get-sum
  apply_mode: scoped
  target_agents: [builder]
  operation_rules:
    - {operation_class: "*", verdict: approval_required}
`;

/** A plain HTTP exchange, so the Host header and the method can be what a test needs. */
function get(port: number, path: string, options: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: options.host ?? `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('the gateway’s /metrics', { timeout: 60_000 }, () => {
  let core: Core;
  let status: GatewayStatus;
  let metricsPort: number;
  let builder: string;
  let flooder: string;

  beforeAll(async () => {
    const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-metrics-ws-'));
    writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
    writeFileSync(join(workspaceDir, 'permissions.yaml'), permission);
    core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-gateway-metrics-')), secretStore: new MemorySecretStore(), logger: silentLogger });
    await core.mcp.save({ config: everythingStdio('everything') as never });
    await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
    builder = await core.agents.credentials.create('builder');
    flooder = await core.agents.credentials.create('flooder');
    status = await core.gateway.start({ port: 0, metricsPort: 0, rate: { perSecond: 1, burst: 20 } });
    metricsPort = Number(new URL(status.metricsUrl!).port);
  }, 60_000);

  afterAll(async () => {
    await core?.close();
  });

  const traffic = async () => {
    const answer = await get(metricsPort, '/metrics');
    expect(answer.status).toBe(200);
    return { text: answer.body, agents: trafficPerAgent(readPrometheusText(answer.body, new Set(Object.values(GATEWAY_SERIES))).samples) };
  };

  async function connect(credential: string) {
    const client = new Client({ name: 'agent-under-test', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(status.url!), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
    return client;
  }

  it('counts each agent’s calls, errors, held calls and how their approvals ended, without arguments or credentials', async () => {
    const client = await connect(builder);
    await client.callTool({ name: 'everything.echo', arguments: { message: 'argument-that-must-not-leak' } });
    const held = client.callTool({ name: 'everything.get-sum', arguments: { a: 1, b: 2 } });
    // Held now: one call waits for a person.
    await vi.waitFor(async () => expect((await traffic()).agents).toEqual([{ agent: 'builder', calls: 2, errors: 0, held: 1, approved: 0, refused: 0, rateLimited: 0 }]), { timeout: 20_000, interval: 50 });
    const [pending] = (await core.approvals.list()).filter((approval) => approval.status.phase === 'Pending');
    await core.approvals.decide(pending!.metadata.name, 'deny', 'alice', 'not now');
    expect(await held).toMatchObject({ isError: true });
    const after = await traffic();
    expect(after.agents).toEqual([{ agent: 'builder', calls: 2, errors: 1, held: 0, approved: 0, refused: 1, rateLimited: 0 }]);
    expect(after.text).toContain(`${GATEWAY_SERIES.errors}{agent="builder",status="denied"} 1`);
    expect(after.text).toContain(`${GATEWAY_SERIES.decided}{agent="builder",decision="denied"} 1`);
    for (const secret of ['argument-that-must-not-leak', builder.split(':')[1]!, flooder.split(':')[1]!, 'not now', 'alice']) expect(after.text).not.toContain(secret);
    await client.close();
  });

  it('counts requests over an agent’s rate, and nothing for a credential it does not know', async () => {
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const post = (credential: string) => get(status.port!, '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${credential}` }, body: initialize });
    let limited = 0;
    while (limited < 3) if ((await post(flooder)).status === 429) limited += 1;
    expect((await post('intruder:not-a-real-secret')).status).toBe(403);
    const { agents, text } = await traffic();
    expect(agents.find((row) => row.agent === 'flooder')).toMatchObject({ rateLimited: 3, calls: 0 });
    expect(text).not.toContain('intruder');
  });

  it('serves /metrics only, asks no credential, and keeps the Host check on a loopback bind', async () => {
    const metrics = await get(metricsPort, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await get(metricsPort, '/mcp')).status).toBe(404);
    expect((await get(metricsPort, '/health')).status).toBe(404);
    expect((await get(metricsPort, '/metrics', { method: 'POST' })).status).toBe(405);
    // A DNS-rebinding page reaches the port under its own name.
    expect((await get(metricsPort, '/metrics', { host: `evil.example:${metricsPort}` })).status).toBe(403);
    expect((await get(metricsPort, '/metrics', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    // And the MCP port does not serve the metrics.
    expect((await get(status.port!, '/metrics')).status).toBe(404);
  });

  it('stops serving metrics with the gateway, and a metrics port in use leaves neither running', async () => {
    await core.gateway.stop();
    await expect(get(metricsPort, '/metrics')).rejects.toThrow();
    const other = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-gateway-metrics-2-')), secretStore: new MemorySecretStore(), logger: silentLogger });
    try {
      const first = await other.gateway.start({ port: 0, metricsPort: 0 });
      const taken = Number(new URL(first.metricsUrl!).port);
      await other.gateway.stop();
      const blocker = await core.gateway.start({ port: 0, metricsPort: taken });
      await expect(other.gateway.start({ port: 0, metricsPort: taken })).rejects.toThrow();
      expect(other.gateway.status()).toEqual({ running: false, error: `Metrics port ${taken} is in use; pick another.` });
      expect(blocker.metricsUrl).toBe(`http://127.0.0.1:${taken}/metrics`);
    } finally {
      await other.close();
      await core.gateway.stop();
    }
  });
});

describe('AgentMetrics', () => {
  it('names how a held call’s approval ended by the step it was refused with, and counts no decision for a call never held', async () => {
    const metrics = new AgentMetrics();
    const refusing = (step?: string) => metrics.countApprovals({ hold: async (_request, options) => (options?.onPending?.({} as never), Promise.reject(new AppError('PolicyDenied', 'no', step ? { step } : {}))) });
    const request = { agent: 'a', tool: 't', operationClass: 'read', input: {}, reason: 'r', policyVersion: 'v', taskRef: 'x' };
    for (const step of ['expired', 'canceled', 'binding', undefined]) await refusing(step).hold(request).catch(() => undefined);
    await metrics.countApprovals({ hold: () => Promise.reject(new Error('store unreachable')) }).hold(request).catch(() => undefined);
    await metrics.countApprovals({ hold: async (_request, options) => (options?.onPending?.({} as never), {} as never) }).hold(request);
    const samples = readPrometheusText(await metrics.text(), new Set([GATEWAY_SERIES.decided, GATEWAY_SERIES.held])).samples;
    expect(samples.map((s) => [s.name, Object.fromEntries(s.labels), s.value])).toEqual([
      [GATEWAY_SERIES.held, { agent: 'a' }, 0],
      [GATEWAY_SERIES.decided, { agent: 'a', decision: 'expired' }, 1],
      [GATEWAY_SERIES.decided, { agent: 'a', decision: 'canceled' }, 1],
      [GATEWAY_SERIES.decided, { agent: 'a', decision: 'binding' }, 1],
      [GATEWAY_SERIES.decided, { agent: 'a', decision: 'failed' }, 1],
      [GATEWAY_SERIES.decided, { agent: 'a', decision: 'approved' }, 1],
    ]);
  });
});
