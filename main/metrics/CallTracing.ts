import { randomBytes } from 'node:crypto';
import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { SpanExportSdk, TraceOtlpOptions } from './spanExport';

export type { TraceOtlpOptions } from './spanExport';

export { SpanKind };

/** What stage() and within() hand out while nothing records: every method is a no-op. */
const UNRECORDED_STAGE: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** A W3C `traceparent`: version 00, trace id, parent (span) id, flags. */
export const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * Trace context for every call (W3C Trace Context, MCP SEP-414): the invocation pipeline opens a
 * span per call with a child per stage (validate, policy, attempt n, transport); the MCP and A2A
 * clients put their span's `traceparent` into each request's `_meta` (and the HTTP header), and
 * the call's record keeps the trace id. Spans are exported over OTLP/HTTP when configured, else
 * only their ids are used.
 *
 * The parent of a span is always passed explicitly (the pipeline hands its span to the executor in
 * the ExecutionContext). There is no "current span" carried by AsyncLocalStorage: that would turn
 * on Node's promise hooks for the whole process, which measured a quarter of the MCP SDK's own cost
 * per call (every promise anywhere pays for them), to save passing one argument.
 */
export class CallTracing {
  /**
   * The OpenTelemetry SDK's provider and exporter, loaded when export is first switched on: while
   * nothing exports, a span is only its ids (see start()), and a one-shot CLI command would spend
   * a good part of its start-up loading an SDK it never uses.
   */
  private sdk?: SpanExportSdk;
  private otlp?: { url: string };
  private readonly ids = new RandomTraceIds();

  /** Whether spans are being exported (else stages share the call's span: see stage()). */
  get exporting(): boolean {
    return this.sdk?.sampler.exporting === true;
  }

  /** A span under `parent`, or the root of a new trace. */
  start(name: string, attributes?: Attributes, options?: { kind?: SpanKind; parent?: Span }): Span {
    // No default parameters: `= {}` would make two objects per call even while nothing is exported.
    const parent = options?.parent;
    // While nothing exports, a span is only its ids: made here directly, what the SDK would hand
    // back (a non-recording span with fresh ids) without its sampler, attribute copy and context.
    if (!this.sdk?.sampler.exporting) return trace.wrapSpanContext({ traceId: parent?.spanContext().traceId ?? this.ids.traceId(), spanId: this.ids.spanId(), traceFlags: 0 });
    return this.sdk.tracer.startSpan(name, { kind: options?.kind ?? SpanKind.INTERNAL, attributes: attributes ?? {} }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
  }

  /**
   * A stage of a call under way (validate, policy): a span of its own while spans are exported;
   * otherwise a shared no-op span, because unexported stages would cost each call a span (ids,
   * attributes) that nobody reads — the wire and history use only the call's own span.
   */
  stage(name: string, parent: Span, attributes?: Attributes): Span {
    return this.exporting ? this.start(name, attributes, { parent }) : UNRECORDED_STAGE;
  }

  /**
   * Runs `fn` in a child span of `parent` named `name`, which ends (with an error status if `fn`
   * throws) when it settles. While nothing exports, `fn` gets `parent` itself (see stage()), so
   * what it sends carries the call's own trace context.
   */
  async within<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL, parent?: Span): Promise<T> {
    if (!this.exporting && parent) return fn(parent);
    const span = this.start(name, attributes, { kind, parent });
    try {
      return await fn(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
      throw error;
    } finally {
      span.end();
    }
  }

  /**
   * The `traceparent` of a request sent outside any call (a list refresh, a ping): a span of its
   * own, so every request can still be found by trace.
   */
  outgoing(name: string): string {
    const own = this.start(name, {}, { kind: SpanKind.CLIENT });
    own.end();
    return traceparentOf(own);
  }

  /** Exports spans over OTLP/HTTP from now on; undefined stops exporting. */
  async configureOtlp(options: TraceOtlpOptions | undefined): Promise<void> {
    const previous = this.sdk?.processor.target;
    if (this.sdk) {
      this.sdk.processor.target = undefined;
      this.sdk.sampler.exporting = false;
    }
    this.otlp = undefined;
    await previous?.shutdown().catch(() => undefined);
    if (!options) return;
    this.sdk ??= (await import('./spanExport')).createSpanExportSdk();
    this.sdk.processor.target = this.sdk.otlpProcessor(options);
    this.sdk.sampler.exporting = true;
    this.otlp = { url: options.url };
  }

  status(): { otlp?: { url: string } } {
    return this.otlp ? { otlp: { url: this.otlp.url } } : {};
  }

  /** Sends what is buffered (before exit, or for a test waiting on the collector). */
  flush(): Promise<void> {
    return this.sdk?.provider.forceFlush() ?? Promise.resolve();
  }

  async shutdown(): Promise<void> {
    await this.sdk?.provider.shutdown().catch(() => undefined);
  }
}

/**
 * W3C trace and span ids (random, never all zero) cut from a pool of random hex, so a call costs a
 * substring rather than a call into the system's random source and a hex encoding per id.
 */
class RandomTraceIds {
  private pool = '';
  private offset = 0;

  traceId(): string {
    return this.hex(32);
  }

  spanId(): string {
    return this.hex(16);
  }

  private hex(digits: number): string {
    for (;;) {
      if (this.offset + digits > this.pool.length) {
        this.pool = randomBytes(4096).toString('hex');
        this.offset = 0;
      }
      const id = this.pool.slice(this.offset, this.offset + digits);
      this.offset += digits;
      // An all-zero id is invalid in W3C Trace Context; draw again (odds 2^-64 or less).
      if (id !== ALL_ZERO[digits]) return id;
    }
  }
}

const ALL_ZERO: Record<number, string> = { 16: '0'.repeat(16), 32: '0'.repeat(32) };

export function traceparentOf(span: Span): string {
  const context = span.spanContext();
  return `00-${context.traceId}-${context.spanId}-${context.traceFlags & 1 ? '01' : '00'}`;
}

/**
 * A caller's span from its W3C `traceparent` (an agent's, sent with its call), to start the call's
 * span under, so the call continues the agent's trace. Undefined for anything malformed or with an
 * all-zero id, which the spec says to ignore.
 */
export function remoteParent(traceparent: string | undefined): Span | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (!match || match[1] === ALL_ZERO[32] || match[2] === ALL_ZERO[16]) return undefined;
  return trace.wrapSpanContext({ traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16) & 1, isRemote: true });
}

/** The process's tracing: one, like the OpenTelemetry global, so every client puts the same context on the wire. */
export const callTracing = new CallTracing();
