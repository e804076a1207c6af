import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invocation } from '../store/testing/testRecords';
import { CallLogs } from './CallLogs';

interface OtlpLogRecord {
  eventName?: string;
  severityText?: string;
  body?: { stringValue?: string };
  attributes?: Array<{ key: string; value: { stringValue?: string; doubleValue?: number; intValue?: string } }>;
}

/** An OTLP/HTTP collector for the test: keeps the log records of every JSON export it receives. */
function startLogsCollector(): Promise<{ url: string; records: OtlpLogRecord[]; service: string[]; close(): Promise<void> }> {
  const records: OtlpLogRecord[] = [];
  const service: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceLogs: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeLogs: Array<{ logRecords: OtlpLogRecord[] }> }>;
      };
      for (const resource of body.resourceLogs) {
        service.push(...resource.resource.attributes.filter((a) => a.key === 'service.name').map((a) => a.value.stringValue ?? ''));
        for (const scope of resource.scopeLogs) records.push(...scope.logRecords);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/logs`, records, service, close: () => new Promise((done) => server.close(() => done())) }),
    ),
  );
}

const attributes = (record: OtlpLogRecord) => Object.fromEntries((record.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? a.value.doubleValue ?? Number(a.value.intValue)]));

describe('call records as OTLP log records (OpenTelemetry GenAI and MCP semantic conventions)', () => {
  let collector: Awaited<ReturnType<typeof startLogsCollector>>;
  let logs: CallLogs;

  beforeAll(async () => {
    collector = await startLogsCollector();
    logs = await CallLogs.start({ url: collector.url, serviceVersion: '1.2.3' });
  });
  afterAll(async () => {
    await logs?.shutdown();
    await collector?.close();
  });

  it('names the tool, the MCP method, the agent and the error, with Tooldeck’s source, status, replica and trace beside them', async () => {
    logs.emit(invocation({ id: 'ok-call', tool: 'echo', via: 'gateway', agent: 'planner-bot', replica: 'gateway-5c7d-a', traceId: 'ab'.repeat(16) }));
    logs.emit(invocation({ id: 'failed-call', sourceKind: 'http', sourceName: 'weather', tool: 'forecast', status: 'timeout', errorCode: 'Timeout', via: 'cli' }));
    await logs.flush();
    await expect.poll(() => collector.records.length).toBe(2);
    const [ok, failed] = collector.records;
    expect(collector.service).toContain('tooldeck');
    expect(ok!.severityText).toBe('INFO');
    expect(ok!.body?.stringValue).toBe('mcp:everything.echo ok in 12.5 ms');
    expect(attributes(ok!)).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.agent.name': 'planner-bot',
      'mcp.method.name': 'tools/call',
      'tooldeck.call.id': 'ok-call',
      'tooldeck.source': 'mcp:everything',
      'tooldeck.status': 'ok',
      'tooldeck.latency_ms': 12.5,
      'tooldeck.caller.via': 'gateway',
      'tooldeck.replica': 'gateway-5c7d-a',
      'tooldeck.trace_id': 'ab'.repeat(16),
    });
    expect(failed!.severityText).toBe('ERROR');
    expect(attributes(failed!)).toMatchObject({ 'gen_ai.tool.name': 'forecast', 'error.type': 'Timeout', 'tooldeck.source': 'http:weather', 'tooldeck.status': 'timeout' });
    expect(attributes(failed!)).not.toHaveProperty('mcp.method.name');
  });
});
