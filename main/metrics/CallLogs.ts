import type { Attributes, Logger } from '@opentelemetry/api';
import type { LoggerProvider } from '@opentelemetry/sdk-logs';
import type { InvocationRecord } from '../../shared/invocation';

export interface CallLogsOptions {
  /** Full OTLP/HTTP logs endpoint, e.g. `http://collector:4318/v1/logs` (OTEL_EXPORTER_OTLP_LOGS_ENDPOINT). */
  url: string;
  serviceVersion?: string;
}

// SeverityNumber of the OpenTelemetry logs data model (INFO, WARN, ERROR).
const INFO = 9;
const WARN = 13;
const ERROR = 17;

/**
 * Every recorded call as an OTLP log record, named after the OpenTelemetry GenAI and MCP semantic
 * conventions (gen_ai.operation.name `execute_tool`, gen_ai.tool.name, mcp.method.name, error.type)
 * with Tooldeck's own beside them (source, status, latency, caller, replica, trace). Batched and
 * exported off the call path by the SDK; the OpenTelemetry packages load only when switched on.
 */
export class CallLogs {
  private constructor(
    private readonly provider: LoggerProvider,
    private readonly logger: Logger,
  ) {}

  static async start(options: CallLogsOptions): Promise<CallLogs> {
    const [{ BatchLogRecordProcessor, LoggerProvider }, { OTLPLogExporter }, { resourceFromAttributes }] = await Promise.all([
      import('@opentelemetry/sdk-logs'),
      import('@opentelemetry/exporter-logs-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'tooldeck', ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}) }),
      processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: options.url }) })],
    });
    return new CallLogs(provider, provider.getLogger('tooldeck.calls'));
  }

  emit(record: InvocationRecord): void {
    this.logger.emit({
      eventName: 'tooldeck.tool.call',
      timestamp: record.startedAt,
      severityNumber: record.status === 'ok' ? (record.isError ? WARN : INFO) : ERROR,
      severityText: record.status === 'ok' ? (record.isError ? 'WARN' : 'INFO') : 'ERROR',
      body: `${record.sourceKind}:${record.sourceName}.${record.tool} ${record.isError ? 'isError' : record.status} in ${record.latencyMs.toFixed(1)} ms`,
      attributes: callAttributes(record),
    });
  }

  /** Sends what is buffered (before exit, or for a test waiting on the collector). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown().catch(() => undefined);
  }
}

/** The record's attributes: the semantic conventions' names where one exists, `tooldeck.*` for the rest. */
export function callAttributes(record: InvocationRecord): Attributes {
  const failed = record.status !== 'ok' || record.isError === true;
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': record.tool,
    ...(record.agent ? { 'gen_ai.agent.name': record.agent } : {}),
    // Every MCP source is called with tools/call, and the gateway serves every call to agents as one.
    ...(record.sourceKind === 'mcp' || record.via === 'gateway' ? { 'mcp.method.name': 'tools/call' } : {}),
    ...(failed ? { 'error.type': record.errorCode ?? (record.isError ? 'tool_error' : record.status) } : {}),
    'tooldeck.call.id': record.id,
    'tooldeck.source': `${record.sourceKind}:${record.sourceName}`,
    'tooldeck.status': record.status,
    'tooldeck.latency_ms': record.latencyMs,
    ...(record.via ? { 'tooldeck.caller.via': record.via } : {}),
    ...(record.replica ? { 'tooldeck.replica': record.replica } : {}),
    ...(record.traceId ? { 'tooldeck.trace_id': record.traceId } : {}),
    ...(record.runId ? { 'tooldeck.run.id': record.runId } : {}),
  };
}
