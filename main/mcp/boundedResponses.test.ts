import type { FetchLike } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { fetchWithinMessageLimit } from './boundedResponses';
import { RESULT_TOO_LARGE_CODE } from './LinearReadBuffer';

// The byte-level behaviour of the limit, on bodies cut into chosen pieces (a socket decides its own
// pieces, so a real server could not show every split); connectionFailures.test.ts runs the same
// limit against a real MCP server over Streamable HTTP and HTTP+SSE.

/**
 * A fetch whose response body arrives in exactly these pieces (of `pieceBytes` each, or of the sizes
 * listed and then one of the rest); `canceled` tells whether the body was given up.
 */
function serving(text: string, pieceBytes: number | number[], headers: Record<string, string>) {
  const bytes = Buffer.from(text);
  const state = { canceled: false, pulled: 0 };
  const fetchLike: FetchLike = async () => {
    let at = 0;
    const sizes = typeof pieceBytes === 'number' ? [] : [...pieceBytes];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        const size = typeof pieceBytes === 'number' ? pieceBytes : (sizes.shift() ?? bytes.length - at);
        controller.enqueue(new Uint8Array(bytes.subarray(at, at + size)));
        at += size;
        state.pulled = at;
      },
      cancel() {
        state.canceled = true;
      },
    });
    return new Response(body, { status: 200, headers });
  };
  return { fetchLike, state };
}

const SSE = { 'content-type': 'text/event-stream' };
const JSON_BODY = { 'content-type': 'application/json' };
const post = (message: unknown) => ({ method: 'POST', body: JSON.stringify(message) });
const call = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'blob' } });

/** The JSON-RPC messages in an event stream, as the SDK's parser would see them. */
function messagesIn(stream: string): unknown[] {
  return stream
    .split(/\r?\n\r?\n/)
    .flatMap((event) => event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.replace(/^data: ?/, '')))
    .map((data) => JSON.parse(data) as unknown);
}

describe('fetchWithinMessageLimit: event streams, event by event', () => {
  const events = [
    ': a comment, then an event with an id\n\n',
    'event: message\nid: 7\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n',
    'event: message\r\ndata: {"result":{"content":[]},"jsonrpc":"2.0","id":1}\r\n\r\n',
    'data: {"jsonrpc":"2.0","id":2,"result":{}}\n\n',
  ].join('');

  it('passes events within the limit on unchanged, whatever the pieces', async () => {
    for (const piece of [1, 2, 3, 7, 64, events.length]) {
      const { fetchLike } = serving(events, piece, SSE);
      const response = await fetchWithinMessageLimit(fetchLike, { maxMessageBytes: 200 })('http://x/mcp', post(call(1)));
      expect(await response.text()).toBe(events);
    }
  });

  it('replaces an oversized event with an error reply for its request, whether its id comes first or last, and goes on', async () => {
    const filler = 'x'.repeat(5000);
    for (const oversized of [`data: {"jsonrpc":"2.0","id":"a-7","result":{"text":"${filler}"}}\n\n`, `event: message\r\ndata: {"result":{"text":"${filler}"},"jsonrpc":"2.0","id":42}\r\n\r\n`]) {
      for (const piece of [1, 97, 4096, 100_000]) {
        const receiving: number[] = [];
        const { fetchLike } = serving(`${oversized}data: {"jsonrpc":"2.0","id":9,"result":{}}\n\n`, piece, SSE);
        // A GET stream: no request was posted, so the id can only come from the event itself.
        const response = await fetchWithinMessageLimit(fetchLike, { maxMessageBytes: 1000, onReceiving: () => receiving.push(1) })('http://x/mcp', { method: 'GET' });
        const [tooLarge, next] = messagesIn(await response.text()) as Array<{ id: unknown; error?: { code: number; message: string; data: unknown } }>;
        expect(tooLarge).toMatchObject({ id: oversized.includes('"a-7"') ? 'a-7' : 42, error: { code: RESULT_TOO_LARGE_CODE, data: { resultTooLarge: { bytes: Buffer.byteLength(oversized), limit: 1000 } } } });
        expect(tooLarge!.error!.message).toMatch(/^The reply is 5 KiB, over the 1000 bytes a result may have; it was not read$/);
        expect(next).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
        // Arriving bytes of an unfinished event count as the answer under way (as on stdio).
        if (piece < oversized.length) expect(receiving.length).toBeGreaterThan(0);
      }
    }
  });

  it('answers the posted request when an oversized event does not show its id, and drops it on a stream that answers none', async () => {
    const progress = 'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}\n\n';
    const event = `data: ${'y'.repeat(3000)}\n\n`;
    const unreadable = `${progress}${event}data: {"jsonrpc":"2.0","id":3,"result":{}}\n\n`;
    // Pieces of 512 bytes; and pieces that end exactly where the events do, so that one holds only
    // the oversized event (nothing in it to pass on: the stream must still go on).
    for (const pieces of [512, [progress.length, event.length]]) {
      const posted = await fetchWithinMessageLimit(serving(unreadable, pieces, SSE).fetchLike, { maxMessageBytes: 1000 })('http://x/mcp', post(call(3)));
      expect(messagesIn(await posted.text())).toEqual([
        expect.objectContaining({ method: 'notifications/progress' }),
        expect.objectContaining({ id: 3, error: expect.objectContaining({ code: RESULT_TOO_LARGE_CODE }) }),
        { jsonrpc: '2.0', id: 3, result: {} },
      ]);
      const unposted = await fetchWithinMessageLimit(serving(unreadable, pieces, SSE).fetchLike, { maxMessageBytes: 1000 })('http://x/mcp', { method: 'GET' });
      expect(messagesIn(await unposted.text())).toEqual([expect.objectContaining({ method: 'notifications/progress' }), { jsonrpc: '2.0', id: 3, result: {} }]);
    }
  });
});

describe('fetchWithinMessageLimit: whole bodies', () => {
  const reply = (id: number, text: string) => JSON.stringify({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id });

  it('passes a body within the limit on unchanged', async () => {
    const body = reply(1, 'small');
    const response = await fetchWithinMessageLimit(serving(body, 3, JSON_BODY).fetchLike, { maxMessageBytes: 1000 })('http://x/mcp', post(call(1)));
    expect(await response.text()).toBe(body);
  });

  it('answers the posted request (or each request of a batch) when a JSON body is over the limit, naming its whole size', async () => {
    const body = reply(5, 'z'.repeat(10_000));
    const single = await fetchWithinMessageLimit(serving(body, 1024, JSON_BODY).fetchLike, { maxMessageBytes: 4096 })('http://x/mcp', post(call(5)));
    const answer = (await single.json()) as { id: number; error: { code: number; message: string } };
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: RESULT_TOO_LARGE_CODE, data: { resultTooLarge: { bytes: Buffer.byteLength(body), limit: 4096 } } } });
    expect(answer.error.message).toBe('The reply is 10 KiB, over the 4 KiB a result may have; it was not read');

    const batch = await fetchWithinMessageLimit(serving(body, 1024, JSON_BODY).fetchLike, { maxMessageBytes: 4096 })('http://x/mcp', post([call(5), { jsonrpc: '2.0', method: 'notifications/initialized' }, call('b')]));
    expect(((await batch.json()) as Array<{ id: unknown }>).map((m) => m.id)).toEqual([5, 'b']);
  });

  it('does not read a body whose Content-Length is over the limit', async () => {
    const body = reply(6, 'z'.repeat(10_000));
    const { fetchLike, state } = serving(body, 1024, { ...JSON_BODY, 'content-length': String(Buffer.byteLength(body)) });
    const response = await fetchWithinMessageLimit(fetchLike, { maxMessageBytes: 4096 })('http://x/mcp', post(call(6)));
    expect(await response.json()).toMatchObject({ id: 6, error: { code: RESULT_TOO_LARGE_CODE, data: { resultTooLarge: { bytes: Buffer.byteLength(body) } } } });
    expect(state.canceled).toBe(true);
    expect(state.pulled).toBeLessThanOrEqual(1024);
  });

  it('fails to read any other body over the limit, naming its size and the limit', async () => {
    const response = await fetchWithinMessageLimit(serving('<html>'.padEnd(10_000, '.'), 1024, { 'content-type': 'text/html' }).fetchLike, { maxMessageBytes: 4096 })('http://x/mcp', post(call(1)));
    await expect(response.text()).rejects.toThrow('A response of 10 KiB, over the 4 KiB a message may have, was not read');
  });
});
