import { randomUUID } from 'node:crypto';

/**
 * RockBot's message envelope as it travels over RabbitMQ (RockBot.Messaging.RabbitMQ): not a JSON
 * wrapper but the AMQP properties — `message_id` (a GUID in "N" format, no dashes), `type` (the CLR
 * type name of the body), `correlation_id`, `reply_to`, `timestamp` (unix seconds), `content_type`
 * `application/json`, persistent delivery — and headers. Every envelope header key K travels as
 * `rb-K` and the receiver strips one `rb-`, so a key RockBot already names `rb-…` (its MCP server
 * header `rb-mcp-server`, `rb-timeout-ms`) arrives as `rb-rb-mcp-server`. The source and destination
 * agents and the W3C trace context travel the same way (`rb-source`, `rb-traceparent`).
 */

export const HEADER_PREFIX = 'rb-';
export const JSON_CONTENT_TYPE = 'application/json';

/** What the codec keeps of a sender's headers: anything beyond is dropped, never grown into memory. */
export const MAX_HEADERS = 64;
export const MAX_HEADER_KEY_CHARS = 256;
export const MAX_HEADER_VALUE_CHARS = 8 * 1024;
/** A body larger than this is refused as invalid, before it is parsed. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The envelope fields that travel as `rb-` headers rather than in the header map. */
const FIELD_HEADERS = ['source', 'destination', 'traceparent', 'tracestate'] as const;
type FieldHeader = (typeof FIELD_HEADERS)[number];

export interface RockBotEnvelope {
  messageId: string;
  /** The CLR type name of the body, e.g. `RockBot.Tools.ToolInvokeRequest`. */
  type: string;
  correlationId?: string;
  /** The topic the answer goes to (a routing key on the `rockbot` exchange). */
  replyTo?: string;
  /** Unix seconds. */
  timestamp?: number;
  /**
   * The AMQP `user_id` property: RabbitMQ accepts a message that sets it only when it equals the
   * publishing connection's broker user, so it is the one sender identity a consumer can trust
   * (`rb-source` is only a claim). Absent when the publisher left it out.
   */
  userId?: string;
  /** The sending agent as it names itself (`rb-source`): a claim, not checked by the broker. */
  source?: string;
  destination?: string;
  traceparent?: string;
  tracestate?: string;
  /** The envelope's other headers under RockBot's own keys (one `rb-` stripped), e.g. `rb-mcp-server`. */
  headers: ReadonlyMap<string, string>;
}

/** AMQP basic properties in the camelCase both Node clients (rabbitmq-client, amqplib) use. */
export interface AmqpProperties {
  messageId?: string;
  type?: string;
  correlationId?: string;
  replyTo?: string;
  timestamp?: number;
  /** Validated by RabbitMQ against the connection's user when set (amqplib and rabbitmq-client both call it `userId`). */
  userId?: string;
  contentType?: string;
  deliveryMode?: number;
  headers?: Record<string, unknown>;
}

/** A fresh RockBot message id: a GUID without dashes. */
export function newMessageId(): string {
  return randomUUID().replaceAll('-', '');
}

/** The envelope as AMQP properties: RockBot's fields, persistent, JSON, each header `rb-`-prefixed. */
export function encodeEnvelope(envelope: RockBotEnvelope): Required<Pick<AmqpProperties, 'messageId' | 'type' | 'contentType' | 'deliveryMode' | 'timestamp' | 'headers'>> & AmqpProperties {
  const headers: Record<string, string> = {};
  for (const field of FIELD_HEADERS) {
    const value = envelope[field];
    if (value !== undefined) headers[HEADER_PREFIX + field] = value;
  }
  for (const [key, value] of envelope.headers) headers[HEADER_PREFIX + key] = value;
  return {
    messageId: envelope.messageId,
    type: envelope.type,
    ...(envelope.correlationId !== undefined ? { correlationId: envelope.correlationId } : {}),
    ...(envelope.replyTo !== undefined ? { replyTo: envelope.replyTo } : {}),
    ...(envelope.userId !== undefined ? { userId: envelope.userId } : {}),
    timestamp: envelope.timestamp ?? Math.floor(Date.now() / 1000),
    contentType: JSON_CONTENT_TYPE,
    deliveryMode: 2,
    headers,
  };
}

/**
 * AMQP properties as RockBot's envelope. Never throws, whatever the sender put there: a header whose
 * value is not text (a number, a table, an array) or whose key or value is too long is dropped, as
 * is every header after the first MAX_HEADERS; keys without the `rb-` prefix are not RockBot's and
 * are ignored. Property values that are not strings count as absent.
 */
export function decodeEnvelope(properties: AmqpProperties): RockBotEnvelope {
  const fields: Partial<Record<FieldHeader, string>> = {};
  const headers = new Map<string, string>();
  const raw = properties.headers;
  if (raw && typeof raw === 'object') {
    let kept = 0;
    for (const key of Object.keys(raw)) {
      if (kept >= MAX_HEADERS) break;
      if (!key.startsWith(HEADER_PREFIX) || key.length > MAX_HEADER_KEY_CHARS) continue;
      const value = headerText(raw[key]);
      if (value === undefined) continue;
      const name = key.slice(HEADER_PREFIX.length);
      if (name === '') continue;
      kept++;
      if ((FIELD_HEADERS as readonly string[]).includes(name)) fields[name as FieldHeader] = value;
      else headers.set(name, value);
    }
  }
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const timestamp = typeof properties.timestamp === 'number' && Number.isFinite(properties.timestamp) ? properties.timestamp : undefined;
  return {
    messageId: text(properties.messageId) ?? '',
    type: text(properties.type) ?? '',
    ...optional('correlationId', text(properties.correlationId)),
    ...optional('replyTo', text(properties.replyTo)),
    ...optional('timestamp', timestamp),
    ...optional('userId', text(properties.userId)),
    ...fields,
    headers,
  };
}

/**
 * One of RockBot's own `rb-…` header keys, in either spelling it may arrive in: RockBot doubles the
 * prefix (`rb-rb-mcp-server` on the wire, `rb-mcp-server` once stripped); a sender that sets the
 * AMQP header `rb-mcp-server` itself arrives as `mcp-server`.
 */
export function rockbotHeader(envelope: RockBotEnvelope, key: `rb-${string}`): string | undefined {
  return envelope.headers.get(key) ?? envelope.headers.get(key.slice(HEADER_PREFIX.length));
}

export type DecodedBody = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * A message body as JSON. rabbitmq-client already parses `application/json` bodies it can parse
 * (and hands over the raw bytes of those it cannot), so both shapes are accepted.
 */
export function decodeBody(body: unknown): DecodedBody {
  let text: string;
  if (Buffer.isBuffer(body)) {
    if (body.length > MAX_BODY_BYTES) return { ok: false, reason: `the body is ${body.length} bytes, more than the ${MAX_BODY_BYTES} accepted` };
    text = body.toString('utf8');
  } else if (typeof body === 'string') {
    if (Buffer.byteLength(body) > MAX_BODY_BYTES) return { ok: false, reason: `the body is more than the ${MAX_BODY_BYTES} bytes accepted` };
    text = body;
  } else if (body !== null && typeof body === 'object') {
    return { ok: true, value: body };
  } else {
    return { ok: false, reason: 'the body is empty' };
  }
  if (text.trim() === '') return { ok: false, reason: 'the body is empty' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: `the body is not JSON (${(error as Error).message})` };
  }
}

/** A body as RockBot writes it: camelCase JSON, UTF-8. */
export function encodeBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

function headerText(value: unknown): string | undefined {
  // .NET's RabbitMQ client sends string headers as AMQP long strings; some clients decode those as bytes.
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
  if (text === undefined || text.length > MAX_HEADER_VALUE_CHARS) return undefined;
  return text;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
