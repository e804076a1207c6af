import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SamplingDecision, TracerProvider, type ReadableSpan, type Sampler, type SamplingResult, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Context, Tracer } from '@opentelemetry/api';

// The part of call tracing that records and exports spans, loaded by CallTracing only once export
// is switched on.

/** Where spans go: the options of `CallTracing.configureOtlp`, kept here so this module imports nothing of the tracer's. */
export interface TraceOtlpOptions {
  /** Full OTLP/HTTP traces endpoint, e.g. `http://collector:4318/v1/traces`. */
  url: string;
  headers?: Record<string, string>;
}

/** Forwards to the exporting processor of the moment, so export can be switched on and off without a new provider. */
export class SwitchableProcessor implements SpanProcessor {
  target?: SpanProcessor;

  onStart(span: Parameters<SpanProcessor['onStart']>[0], parentContext: Context): void {
    this.target?.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    this.target?.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.target?.forceFlush() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.target?.shutdown() ?? Promise.resolve();
  }
}

/**
 * Records spans only while something exports them. Unrecorded spans still get real ids (the SDK
 * hands back a non-recording span with a fresh trace and span id), which is all the wire and the
 * history need, at a fraction of a recorded span's cost per call. Their traceparent then says
 * "not sampled", which is true: nobody collects this side of the trace.
 */
export class ExportingSampler implements Sampler {
  exporting = false;

  shouldSample(): SamplingResult {
    return { decision: this.exporting ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return 'ExportingSampler';
  }
}

export interface SpanExportSdk {
  provider: TracerProvider;
  tracer: Tracer;
  processor: SwitchableProcessor;
  sampler: ExportingSampler;
  /** A batching processor exporting to `options` over OTLP/HTTP. */
  otlpProcessor(options: TraceOtlpOptions): SpanProcessor;
}

export function createSpanExportSdk(): SpanExportSdk {
  const processor = new SwitchableProcessor();
  const sampler = new ExportingSampler();
  const provider = new TracerProvider({ resource: resourceFromAttributes({ 'service.name': 'tooldeck' }), sampler, spanProcessors: [processor] });
  return {
    provider,
    tracer: provider.getTracer('tooldeck'),
    processor,
    sampler,
    otlpProcessor: (options) => new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: options.url, headers: options.headers }), scheduledDelayMillis: 1_000 }),
  };
}
