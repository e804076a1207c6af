import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';
import { A2aAgentService } from '../a2a/A2aAgentService';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from '../mcp/McpService';
import { pipelineFor } from '../mcp/testing/pipelineFor';
import { withTraceparentHeader } from '../mcp/transportFactory';
import { A2aCatalogSync } from '../a2a/A2aCatalogSync';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { ToolCatalog } from '../registry/ToolCatalog';
import { callTracing, TRACEPARENT } from './CallTracing';
import { agentCaller, operatorCaller } from '../../shared/caller';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: { stringValue?: string } }>;
}

/** An OTLP/HTTP collector for the test: keeps the spans of every JSON export it receives. */
function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
        spans,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

describe('trace context (W3C, SEP-414)', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  const mcp = new McpService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-trace-')), secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' } });
  const tools = pipelineFor(mcp);

  beforeAll(async () => {
    collector = await startCollector();
    await callTracing.configureOtlp({ url: collector.url });
    await mcp.init();
    await mcp.save({ config: everythingStdio('traced') as never });
  }, 30_000);
  afterAll(async () => {
    await callTracing.configureOtlp(undefined);
    tools.close();
    await mcp.close();
    await collector.close();
  });

  it('puts the call’s traceparent in the request’s _meta, keeps the trace id in the record, and exports a span per stage', async () => {
    const outcome = await tools.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:traced.echo', arguments: { message: 'traced' }, confirmed: true });
    const traceId = outcome.record.traceId!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    const sent = mcp
      .transcript('traced')!
      .list()
      .filter((e) => e.direction === 'out' && e.method === 'tools/call')
      .map((e) => JSON.parse(e.text) as { params: { _meta?: { traceparent?: string } } })
      .at(-1)!;
    const traceparent = sent.params._meta!.traceparent!;
    expect(traceparent).toMatch(TRACEPARENT);
    expect(traceparent.split('-')[1]).toBe(traceId);

    await callTracing.flush();
    const spans = collector.spans.filter((s) => s.traceId === traceId);
    const byName = new Map(spans.map((s) => [s.name, s]));
    expect([...byName.keys()].sort()).toEqual(['attempt 1', 'policy', 'tool.invoke', 'transport', 'validate']);
    const root = byName.get('tool.invoke')!;
    expect(root.parentSpanId ?? '').toBe('');
    for (const stage of ['validate', 'policy', 'attempt 1']) expect(byName.get(stage)!.parentSpanId).toBe(root.spanId);
    expect(byName.get('transport')!.parentSpanId).toBe(byName.get('attempt 1')!.spanId);
    // The request carried the transport span's context: its span id is the wire's parent id.
    expect(traceparent.split('-')[2]).toBe(byName.get('transport')!.spanId);
  });

  it('says on the call’s span who called and how: the way in always, the agent when an agent called', async () => {
    const byAgent = await tools.pipeline.invoke({ caller: agentCaller('planner-bot', 'gateway'), name: 'mcp:traced.echo', arguments: { message: 'agent' }, confirmed: true });
    const byOperator = await tools.pipeline.invoke({ caller: operatorCaller('ui'), name: 'mcp:traced.echo', arguments: { message: 'operator' }, confirmed: true });
    await callTracing.flush();
    const callerAttributes = (traceId: string) =>
      Object.fromEntries(
        (collector.spans.find((s) => s.traceId === traceId && s.name === 'tool.invoke')?.attributes ?? [])
          .filter((a) => a.key.startsWith('tooldeck.caller.'))
          .map((a) => [a.key, a.value.stringValue]),
      );
    expect(callerAttributes(byAgent.record.traceId!)).toEqual({ 'tooldeck.caller.via': 'gateway', 'tooldeck.caller.agent': 'planner-bot' });
    expect(callerAttributes(byOperator.record.traceId!)).toEqual({ 'tooldeck.caller.via': 'ui' });
  });

  it('without an exporter still gives each call a trace of its own, marked not sampled, and records nothing', async () => {
    await callTracing.configureOtlp(undefined);
    try {
      const before = collector.spans.length;
      const first = await tools.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:traced.echo', arguments: { message: 'one' }, confirmed: true });
      const second = await tools.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:traced.echo', arguments: { message: 'two' }, confirmed: true });
      expect(first.record.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(second.record.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(second.record.traceId).not.toBe(first.record.traceId);
      const sent = mcp
        .transcript('traced')!
        .list()
        .filter((e) => e.direction === 'out' && e.method === 'tools/call')
        .map((e) => (JSON.parse(e.text) as { params: { _meta?: { traceparent?: string } } }).params._meta?.traceparent)
        .at(-1)!;
      expect(sent).toMatch(TRACEPARENT);
      expect(sent.split('-')[1]).toBe(second.record.traceId);
      expect(sent.split('-')[3]).toBe('00');
      await callTracing.flush();
      expect(collector.spans.length).toBe(before);
    } finally {
      await callTracing.configureOtlp({ url: collector.url });
    }
  });

  it('gives every other request a traceparent of its own (list refreshes, pings)', async () => {
    await mcp.refresh('traced');
    const listed = mcp
      .transcript('traced')!
      .list()
      .filter((e) => e.direction === 'out' && e.method === 'tools/list')
      .map((e) => (JSON.parse(e.text) as { params?: { _meta?: { traceparent?: string } } }).params?._meta?.traceparent);
    expect(listed.length).toBeGreaterThan(0);
    for (const value of listed) expect(value).toMatch(TRACEPARENT);
  });

  it('sends the same traceparent as the HTTP header of a Streamable HTTP request', async () => {
    const seen: Array<string | null> = [];
    const fetch = withTraceparentHeader(async (_input, init) => {
      seen.push(new Headers(init?.headers).get('traceparent'));
      return new Response('{}');
    });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await fetch('http://127.0.0.1/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { traceparent } } }) });
    await fetch('http://127.0.0.1/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'x', params: { _meta: { traceparent: 'not-a-traceparent' } } }) });
    expect(seen).toEqual([traceparent, null]);
  });
});

describe('trace context on A2A messages', () => {
  let peers: PeerSet;
  beforeAll(async () => {
    peers = await startPeers({ sample: { kind: 'sample', options: { stepDelayMs: 10 } } });
  });
  afterAll(() => peers?.stop());

  it('carries a traceparent in the message metadata and the HTTP header, the same one', async () => {
    const service = new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-trace-')), secretStore: new MemorySecretStore(), logger: silentLogger });
    await service.send(peers.urls.sample!, 'hello');
    const request = service.transcriptOf(peers.urls.sample!).find((e) => e.direction === 'request' && /SendMessage|message\/send/.test(e.method))!;
    const header = request.headers?.traceparent;
    expect(header).toMatch(TRACEPARENT);
    expect(request.body).toContain(`"traceparent":"${header}"`);
    await service.close();
  });

  it('carries the registry call’s own trace on an A2A skill call through the pipeline, exported or not', async () => {
    const service = new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-trace-')), secretStore: new MemorySecretStore(), logger: silentLogger });
    const catalog = new ToolCatalog();
    const sync = new A2aCatalogSync(service, catalog, silentLogger);
    const pipeline = new InvocationPipeline({ catalog });
    const collector = await startCollector();
    try {
      await service.save({ name: 'sample', url: peers.urls.sample! });
      await sync.sync('sample');
      const sent = () => {
        const request = service.transcriptOf('sample').filter((e) => e.direction === 'request' && /Send(Streaming)?Message|message\/(send|stream)/.test(e.method)).at(-1)!;
        return request.headers!.traceparent!;
      };

      const quiet = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'a2a:sample.echo', arguments: { text: 'untraced' } });
      expect(quiet.record.status).toBe('ok');
      expect(sent()).toMatch(TRACEPARENT);
      expect(sent().split('-')[1]).toBe(quiet.record.traceId);

      await callTracing.configureOtlp({ url: collector.url });
      const traced = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'a2a:sample.echo', arguments: { text: 'traced' } });
      expect(sent().split('-')[1]).toBe(traced.record.traceId);
      await callTracing.flush();
      const spans = collector.spans.filter((span) => span.traceId === traced.record.traceId);
      const byName = new Map(spans.map((span) => [span.name, span]));
      // The transport span is the attempt's child, and the wire names it as the parent.
      expect(byName.get('transport')!.parentSpanId).toBe(byName.get('attempt 1')!.spanId);
      expect(sent().split('-')[2]).toBe(byName.get('transport')!.spanId);
    } finally {
      await callTracing.configureOtlp(undefined);
      await collector.close();
      await service.close();
    }
  });
});
