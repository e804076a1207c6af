import type { FetchLike } from '@modelcontextprotocol/client';
import { EDGE_BYTES, formatBytes, replyIdOf, tooLargeReply } from './LinearReadBuffer';

export interface ResponseLimits {
  /** Largest message accepted, in bytes: a JSON body, or one event of an event stream. */
  maxMessageBytes: number;
  /** Bytes of a message are arriving (a large result is being received). */
  onReceiving?: () => void;
}

/**
 * The hard limit on one message, over HTTP as LinearReadBuffer enforces it over stdio: without it
 * the SDK reads any body whole (a JSON reply with `response.json()`, an event with the event-stream
 * parser), so a huge result costs its size several times over in memory before anything can refuse
 * it. Each response body is counted as it arrives:
 *
 * - an event stream (Streamable HTTP's `text/event-stream` replies, its GET stream, the legacy
 *   HTTP+SSE stream) per event: events within the limit pass unchanged, an event over it is not
 *   kept but skipped to its end and replaced by an error reply for its request, so the call fails
 *   with ResultTooLarge and the stream, and the connection, go on;
 * - any other body whole: a JSON reply over the limit becomes an error reply for the requests that
 *   were posted (the body answers those and no other); any other body over the limit fails to read.
 *
 * The error names the size and the limit as on stdio. The request an oversized event answers is
 * read from its first or last bytes (where JSON-RPC replies put their id); when neither shows it and
 * the stream answers a single posted request, it is that one. Events end at a blank line of LF or
 * CRLF line endings (what servers write); a stream that ends its lines with CR alone counts as one
 * event, which only a stream of CR-only events larger in all than the limit would notice.
 */
export function fetchWithinMessageLimit(inner: FetchLike, limits: ResponseLimits): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    // The request ids are read from the posted body only when a reply is over the limit: parsing
    // what was just sent on every call would cost each call for a case that almost never happens.
    const posted = () => postedRequestIds(init?.body);
    if (mediaType === 'text/event-stream') {
      return withBody(response, limitEvents(response.body, limits, () => {
        const { ids } = posted();
        return ids.length === 1 ? ids[0] : undefined;
      }));
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    const answer = () => {
      const ids = posted();
      return response.ok && mediaType === 'application/json' && ids.ids.length > 0 ? ids : undefined;
    };
    return withBody(response, limitWholeBody(response.body, limits, Number.isFinite(declared) ? declared : undefined, answer));
  };
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const LF = 0x0a;
const CR = 0x0d;
const encoder = new TextEncoder();

type RequestId = string | number;

/** The ids of the JSON-RPC requests a POST body carries, and whether it was a batch. */
function postedRequestIds(body: unknown): { ids: RequestId[]; batch: boolean } {
  if (typeof body !== 'string') return { ids: [], batch: false };
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return { ids: [], batch: false };
  }
  const batch = Array.isArray(message);
  const ids = (batch ? (message as unknown[]) : [message]).flatMap((m) => {
    const { id, method } = (m ?? {}) as { id?: unknown; method?: unknown };
    return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? [id] : [];
  });
  return { ids, batch };
}

/** The same response with another body (status, headers but a length that may no longer hold, URL). */
function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers });
  // Error messages name the URL a response came from (a redirect's, say); keep it.
  Object.defineProperty(wrapped, 'url', { value: response.url });
  return wrapped;
}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * A whole body, held until its end (the SDK reads it whole anyway) so that an oversized one can be
 * answered instead: it is read to its end without being kept, to name its size, unless its
 * Content-Length already says it.
 */
function limitWholeBody(
  source: ReadableStream<Uint8Array>,
  limits: ResponseLimits,
  declared: number | undefined,
  answerFor: () => { ids: RequestId[]; batch: boolean } | undefined,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const tooLarge = (bytes: number, controller: ReadableStreamDefaultController<Uint8Array>) => {
    const answer = answerFor();
    if (!answer) return controller.error(new Error(`A response of ${formatBytes(bytes)}, over the ${formatBytes(limits.maxMessageBytes)} a message may have, was not read`));
    const replies = answer.ids.map((id) => tooLargeReply(id, bytes, limits.maxMessageBytes));
    controller.enqueue(encoder.encode(JSON.stringify(answer.batch ? replies : replies[0])));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (declared !== undefined && declared > limits.maxMessageBytes) {
          await reader.cancel();
          return tooLarge(declared, controller);
        }
        const held: Uint8Array[] = [];
        let bytes = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.byteLength;
          limits.onReceiving?.();
          if (bytes <= limits.maxMessageBytes) held.push(value);
          else held.length = 0;
        }
        if (bytes > limits.maxMessageBytes) return tooLarge(bytes, controller);
        for (const chunk of held) controller.enqueue(chunk);
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * An event stream, event by event: each event's bytes are held until its blank line and then passed
 * on unchanged, unless they exceed the limit; then the rest of that event is only counted, and at its
 * end an error reply for its request takes its place.
 */
function limitEvents(source: ReadableStream<Uint8Array>, limits: ResponseLimits, postedId: () => RequestId | undefined): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let held: Buffer[] = [];
  let heldBytes = 0;
  /** Set while an oversized event is being skipped: its size so far, its first and latest bytes. */
  let skipping: { bytes: number; head: string; tail: Buffer } | undefined;
  /** The two bytes before the chunk being read, to find a blank line split between chunks. */
  let before = [0, 0];

  const take = (piece: Buffer) => {
    if (piece.length === 0) return;
    if (skipping) {
      skipping.bytes += piece.length;
      skipping.tail = keepLast(Buffer.concat([skipping.tail, piece]), EDGE_BYTES);
      return;
    }
    held.push(piece);
    heldBytes += piece.length;
    if (heldBytes > limits.maxMessageBytes) {
      const all = Buffer.concat(held, heldBytes);
      skipping = { bytes: heldBytes, head: all.subarray(0, EDGE_BYTES).toString('utf8'), tail: keepLast(all, EDGE_BYTES) };
      held = [];
      heldBytes = 0;
    }
  };

  /** Passes the event that just ended on (or its replacement); false when nothing was passed on. */
  const endEvent = (controller: ReadableStreamDefaultController<Uint8Array>): boolean => {
    if (skipping) {
      const { bytes, head, tail } = skipping;
      skipping = undefined;
      const id = replyIdOf(dataOf(head), lastDataOf(tail.toString('utf8'))) ?? postedId();
      // An oversized event that answers nothing Tooldeck can tell is dropped: nothing waits for it.
      if (id === undefined) return false;
      controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(tooLargeReply(id, bytes, limits.maxMessageBytes))}\n\n`));
      return true;
    }
    if (heldBytes === 0) return false;
    // Piece by piece, as they came: a large event is not copied once more here.
    for (const piece of held) controller.enqueue(piece);
    held = [];
    heldBytes = 0;
    return true;
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Read until something is passed on (or the stream ends): a pull that resolves without
        // enqueuing is not called again, and the reader waiting on it would wait forever.
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            // An unfinished last event is passed on as it is; the parser decides what it is worth.
            endEvent(controller);
            controller.close();
            return;
          }
          if (value.byteLength === 0) continue;
          const chunk = asBuffer(value);
          let enqueued = false;
          let from = 0;
          for (let at = chunk.indexOf(LF, from); at >= 0; at = chunk.indexOf(LF, at + 1)) {
            const previous = at >= 1 ? chunk[at - 1]! : before[1]!;
            const earlier = at >= 2 ? chunk[at - 2]! : at === 1 ? before[1]! : before[0]!;
            if (previous !== LF && !(previous === CR && earlier === LF)) continue;
            take(chunk.subarray(from, at + 1));
            if (endEvent(controller)) enqueued = true;
            from = at + 1;
          }
          take(chunk.subarray(from));
          before = chunk.length >= 2 ? [chunk[chunk.length - 2]!, chunk[chunk.length - 1]!] : [before[1]!, chunk[0]!];
          // The event under way has started arriving: its call's answer has begun.
          if (skipping || heldBytes > 0) limits.onReceiving?.();
          if (enqueued) return;
        }
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The value of an event's first `data:` line (the start of its JSON), from the event's first bytes. */
function dataOf(head: string): string {
  const match = /(?:^|\n)data: ?(.*)/.exec(head);
  return match?.[1] ?? '';
}

/** The value of an event's last line (the end of its JSON), from the event's last bytes. */
function lastDataOf(tail: string): string {
  const lines = tail.replace(/[\r\n]+$/, '').split(/\r?\n/);
  return (lines[lines.length - 1] ?? '').replace(/^data: ?/, '');
}

function keepLast(buffer: Buffer, bytes: number): Buffer {
  return buffer.length <= bytes ? buffer : Buffer.from(buffer.subarray(buffer.length - bytes));
}
