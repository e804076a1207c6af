import { parseJSONRPCMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';

/** JSON-RPC error code (server-defined range) for a reply larger than the client accepts. */
export const RESULT_TOO_LARGE_CODE = -32099;

export interface LinearReadBufferOptions {
  /** Largest message accepted, in bytes; a larger reply becomes an error reply to its request. */
  maxMessageBytes: number;
  /** Bytes of a message are arriving (called per chunk while a message is incomplete). */
  onReceiving?: () => void;
}

/**
 * The stdio transport's line buffer, in linear time: chunks are kept in a list and only the newest
 * is scanned for a newline, so a 50 MB reply costs one copy, not one per chunk (the SDK's buffer
 * concatenates on every chunk — quadratic — and rescans from the start). A reply over
 * `maxMessageBytes` is not buffered: it is skipped to its newline and, when its request id can be
 * read from its first bytes, answered in its place with an error reply naming the size and the
 * limit, so the call fails clearly and the connection stays up.
 *
 * Fits the SDK's StdioClientTransport in place of its private `_readBuffer` (append, readMessage,
 * clear): see McpConnection.
 */
export class LinearReadBuffer {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Set while an oversized message is being skipped: its size so far, its first and latest bytes. */
  private skipping?: { bytes: number; head: string; tail: Buffer };
  /** Complete messages, or the error reading one gave (thrown from readMessage, as the SDK's buffer does). */
  private readonly ready: Array<{ message: JSONRPCMessage } | { error: unknown }> = [];

  constructor(private readonly options: LinearReadBufferOptions) {}

  append(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(0x0a, from);
      const end = newline < 0 ? chunk.length : newline;
      const piece = chunk.subarray(from, end);
      if (this.skipping) {
        this.skipping.bytes += piece.length;
        this.skipping.tail = keepLast(Buffer.concat([this.skipping.tail, piece]), EDGE_BYTES);
      } else {
        this.chunks.push(piece);
        this.length += piece.length;
        if (this.length > this.options.maxMessageBytes) this.startSkipping();
      }
      if (newline < 0) {
        if (this.skipping || this.length > 0) this.options.onReceiving?.();
        return;
      }
      this.endLine();
      from = newline + 1;
    }
  }

  readMessage(): JSONRPCMessage | null {
    const next = this.ready.shift();
    if (!next) return null;
    if ('error' in next) throw next.error;
    return next.message;
  }

  clear(): void {
    this.chunks = [];
    this.length = 0;
    this.skipping = undefined;
    this.ready.length = 0;
  }

  private startSkipping() {
    const all = Buffer.concat(this.chunks, this.length);
    this.skipping = { bytes: this.length, head: all.subarray(0, EDGE_BYTES).toString('utf8'), tail: keepLast(all, EDGE_BYTES) };
    this.chunks = [];
    this.length = 0;
  }

  private endLine() {
    if (this.skipping) {
      const { bytes } = this.skipping;
      const id = replyIdOf(this.skipping.head, this.skipping.tail.toString('utf8'));
      this.skipping = undefined;
      if (id !== undefined) {
        this.ready.push({ message: tooLargeReply(id, bytes, this.options.maxMessageBytes) as JSONRPCMessage });
      } else {
        this.ready.push({ error: new Error(`A message of ${formatBytes(bytes)}, over the ${formatBytes(this.options.maxMessageBytes)} limit, was skipped; the request it answers could not be told`) });
      }
      return;
    }
    if (this.length === 0) return;
    const bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
    // A CRLF line loses its CR; the byte is checked first, so most lines are not scanned again.
    const line = bytes.toString('utf8', 0, bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length);
    this.chunks.length = 0;
    this.length = 0;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      // Not JSON: skipped, as the SDK does (McpConnection quotes such lines for the doctor).
      return;
    }
    try {
      this.ready.push({ message: parseJSONRPCMessage(json) });
    } catch (error) {
      this.ready.push({ error });
    }
  }
}

/**
 * What an oversized reply is replaced with: an error reply to its request naming the size and the
 * limit (McpToolExecutor turns its code into ResultTooLarge). Used for stdio and HTTP alike.
 */
export function tooLargeReply(id: string | number, bytes: number, limit: number) {
  return {
    jsonrpc: '2.0' as const,
    id,
    error: {
      code: RESULT_TOO_LARGE_CODE,
      message: `The reply is ${formatBytes(bytes)}, over the ${formatBytes(limit)} a result may have; it was not read`,
      data: { resultTooLarge: { bytes, limit } },
    },
  };
}

/** How much of each end of an oversized reply is kept, to find its request id. */
export const EDGE_BYTES = 4096;
const ID = '("(?:[^"\\\\]|\\\\.){0,200}"|-?\\d{1,16})';
/** `{"jsonrpc":"2.0","id":7,…` — the id written first. */
const ID_FIRST = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID}`);
/** `…,"jsonrpc":"2.0","id":7}` — the id written last (the official SDKs' order). */
const ID_LAST = new RegExp(`"id"\\s*:\\s*${ID}\\s*(?:,\\s*"jsonrpc"\\s*:\\s*"2\\.0"\\s*)?\\}\\s*$`);

/** The request a reply answers, read from its first or last bytes; undefined when neither shows it. */
export function replyIdOf(head: string, tail: string): string | number | undefined {
  const found = ID_FIRST.exec(head)?.[1] ?? ID_LAST.exec(tail.replace(/\r$/, ''))?.[1];
  return found === undefined ? undefined : (JSON.parse(found) as string | number);
}

function keepLast(buffer: Buffer, bytes: number): Buffer {
  return buffer.length <= bytes ? buffer : Buffer.from(buffer.subarray(buffer.length - bytes));
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
  return `${bytes} bytes`;
}
