import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBody, decodeEnvelope, encodeBody, encodeEnvelope, MAX_HEADER_VALUE_CHARS, MAX_HEADERS, newMessageId, rockbotHeader, type RockBotEnvelope } from './rockbotEnvelope';

const text = fc.string({ minLength: 1, maxLength: 40 });
/** Header keys as RockBot names them: any text but the four that are envelope fields. */
const headerKey = fc.string({ minLength: 1, maxLength: 60 }).filter((key) => !['source', 'destination', 'traceparent', 'tracestate'].includes(key));

const envelope: fc.Arbitrary<RockBotEnvelope> = fc.record(
  {
    messageId: fc.uuid().map((id) => id.replaceAll('-', '')),
    type: fc.constantFrom('RockBot.Tools.ToolInvokeRequest', 'RockBot.Tools.ToolInvokeResponse', 'RockBot.Tools.ToolError', 'RockBot.Tools.Mcp.McpServersIndexed'),
    correlationId: text,
    replyTo: text,
    timestamp: fc.integer({ min: 0, max: 2 ** 40 }),
    userId: text,
    source: text,
    destination: text,
    traceparent: text,
    tracestate: text,
    headers: fc.uniqueArray(fc.tuple(headerKey, fc.string({ maxLength: 200 })), { maxLength: MAX_HEADERS - 4, selector: ([key]) => key }).map((pairs) => new Map(pairs)),
  },
  { requiredKeys: ['messageId', 'type', 'headers'] },
);

describe('RockBot envelope codec', () => {
  it('decodes what it encodes: every property and header, whatever the keys and values', () => {
    fc.assert(
      fc.property(envelope, (sent) => {
        const properties = encodeEnvelope(sent);
        expect(properties.contentType).toBe('application/json');
        expect(properties.deliveryMode).toBe(2);
        for (const key of Object.keys(properties.headers)) expect(key.startsWith('rb-')).toBe(true);
        const received = decodeEnvelope(properties);
        expect(received).toEqual({ ...sent, timestamp: properties.timestamp });
      }),
      { numRuns: 300 },
    );
  });

  it("reads RockBot's own rb- keys in both spellings: doubled (rb-rb-mcp-server) and single (rb-mcp-server)", () => {
    const doubled = decodeEnvelope({ headers: { 'rb-rb-mcp-server': 'everything', 'rb-rb-timeout-ms': '5000', 'rb-source': 'agent-a' } });
    expect(rockbotHeader(doubled, 'rb-mcp-server')).toBe('everything');
    expect(rockbotHeader(doubled, 'rb-timeout-ms')).toBe('5000');
    expect(doubled.source).toBe('agent-a');
    const single = decodeEnvelope({ headers: { 'rb-mcp-server': 'everything' } });
    expect(rockbotHeader(single, 'rb-mcp-server')).toBe('everything');
    // A sender's bytes (long strings some clients decode as bytes) read as text.
    expect(decodeEnvelope({ headers: { 'rb-source': Buffer.from('agent-b') } }).source).toBe('agent-b');
  });

  it('never throws on hostile properties and keeps a bounded, text-only header map', () => {
    const hostileValue = fc.oneof(fc.anything(), fc.string({ minLength: MAX_HEADER_VALUE_CHARS + 1, maxLength: MAX_HEADER_VALUE_CHARS + 2 }), fc.constant(Buffer.alloc(3, 0xff)));
    const hostileKey = fc.oneof(fc.string(), fc.constantFrom('rb-', 'rb-__proto__', 'rb-constructor', '__proto__', `rb-${'k'.repeat(300)}`), fc.string().map((key) => `rb-${key}`));
    const hostileProperties = fc.record(
      {
        messageId: fc.anything(),
        type: fc.anything(),
        correlationId: fc.anything(),
        replyTo: fc.anything(),
        timestamp: fc.anything(),
        userId: fc.anything(),
        headers: fc.oneof(fc.anything(), fc.dictionary(hostileKey, hostileValue, { maxKeys: 200 })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(hostileProperties, (properties) => {
        const decoded = decodeEnvelope(properties as never);
        expect(typeof decoded.messageId).toBe('string');
        expect(typeof decoded.type).toBe('string');
        expect(decoded.headers.size).toBeLessThanOrEqual(MAX_HEADERS);
        for (const [key, value] of decoded.headers) {
          expect(typeof key).toBe('string');
          expect(key).not.toBe('');
          expect(typeof value).toBe('string');
          expect(value.length).toBeLessThanOrEqual(MAX_HEADER_VALUE_CHARS);
        }
        for (const field of ['source', 'destination', 'traceparent', 'tracestate', 'correlationId', 'replyTo', 'userId'] as const) {
          if (decoded[field] !== undefined) expect(typeof decoded[field]).toBe('string');
        }
        // Nothing the sender wrote reaches an object's prototype.
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips JSON bodies and says why a body is refused, never throwing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const decoded = decodeBody(encodeBody(value));
        expect(decoded).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) });
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array().map((bytes) => Buffer.from(bytes)), fc.string(), fc.anything()), (body) => {
        const decoded = decodeBody(body);
        if (!decoded.ok) expect(decoded.reason).toMatch(/^the body /);
      }),
    );
    expect(decodeBody(Buffer.from('not json'))).toEqual({ ok: false, reason: expect.stringMatching(/^the body is not JSON/) });
    expect(decodeBody(Buffer.alloc(0))).toEqual({ ok: false, reason: 'the body is empty' });
  });

  it('reads the broker-validated user_id apart from the rb-source claim, and never from a header', () => {
    const decoded = decodeEnvelope({ userId: 'alice', headers: { 'rb-source': 'bob', 'rb-user-id': 'mallory', 'rb-userId': 'mallory' } });
    expect(decoded.userId).toBe('alice');
    expect(decoded.source).toBe('bob');
    expect(decodeEnvelope({ headers: { 'rb-userId': 'mallory' } }).userId).toBeUndefined();
    expect(decodeEnvelope({ userId: '' }).userId).toBeUndefined();
  });

  it('makes message ids as RockBot does: a GUID in "N" format', () => {
    expect(newMessageId()).toMatch(/^[0-9a-f]{32}$/);
  });
});
