import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { AppError } from '../../shared/errors';
import { tooLargeMessage, type InputLimit } from '../../shared/inputLimits';

/** A limit of shared/inputLimits.ts, and whether only regular files may be read. */
export interface ReadLimit extends InputLimit {
  /**
   * Refuse anything but a regular file before reading a byte. For files found in a folder (a
   * workspace, the collections folder), where a FIFO would block the reader forever and a device
   * never ends; a path the user names (`-f /dev/stdin`) may be a pipe.
   */
  regularOnly?: boolean;
}

/** The step of the AppError a read over its limit fails with, for callers that list such files instead. */
export const TOO_LARGE_STEP = 'tooLarge';

const CHUNK_BYTES = 64 * 1024;

/** tooLargeMessage as an InvalidInput AppError with step `tooLarge`. */
export function tooLargeError(subject: string, limit: InputLimit, size?: number): AppError {
  return new AppError('InvalidInput', tooLargeMessage(subject, limit, size), { step: TOO_LARGE_STEP });
}

function notRegular(path: string, limit: ReadLimit): AppError {
  return new AppError('InvalidInput', `${path} is not a regular file, so it is not read as ${limit.what}.`);
}

// O_NONBLOCK lets a FIFO be opened (and then refused) without waiting for a writer; Windows has none.
const openFlags = (limit: ReadLimit) => constants.O_RDONLY | (limit.regularOnly ? (constants.O_NONBLOCK ?? 0) : 0);

/** `-` and `/dev/stdin` name the process's standard input, whatever it is: a pipe, a file, a socket, a terminal. */
const STDIN_PATHS = new Set(['-', '/dev/stdin']);

/**
 * Reads at most `maxBytes` from a file, a FIFO, a pipe (`-` or `/dev/stdin`) or a device
 * (`/dev/zero`), counting the bytes as they come: the size a file claims is only a shortcut, never
 * trusted, so memory stays bounded whatever the path names. Over the limit: an InvalidInput
 * AppError with step `tooLarge` naming the limit. Errors of opening and reading (ENOENT, EISDIR…)
 * pass through.
 */
export async function readBounded(path: string, limit: ReadLimit): Promise<Buffer> {
  // Opening /dev/stdin fails (ENXIO) when standard input is a socket, as a spawning parent may make
  // it, and reading fd 0 directly fails (EAGAIN) when it is non-blocking: the stream handles both.
  if (STDIN_PATHS.has(path) && !limit.regularOnly) return readBoundedStream(process.stdin, path, limit);
  const handle = await open(path, openFlags(limit));
  try {
    const info = await handle.stat();
    if (limit.regularOnly && !info.isFile()) throw notRegular(path, limit);
    if (info.isFile() && info.size > limit.maxBytes) throw tooLargeError(path, limit, info.size);
    return await readCounted(async (buffer) => (await handle.read(buffer, 0, buffer.length, null)).bytesRead, path, limit);
  } finally {
    await handle.close();
  }
}

/** Reads chunks until the end, or fails as soon as one byte more than the limit has come. */
async function readCounted(readInto: (buffer: Buffer) => Promise<number>, path: string, limit: ReadLimit): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    // One byte past the limit is asked for, so a file of exactly maxBytes is told from a larger one.
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limit.maxBytes + 1 - total));
    const bytesRead = await readInto(buffer);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > limit.maxBytes) throw tooLargeError(path, limit);
  }
}

/** readBounded for the few synchronous readers (a kubeconfig, loaded by a synchronous client). */
export function readBoundedSync(path: string, limit: ReadLimit): Buffer {
  const fd = openSync(path, openFlags(limit));
  try {
    const info = fstatSync(fd);
    if (limit.regularOnly && !info.isFile()) throw notRegular(path, limit);
    if (info.isFile() && info.size > limit.maxBytes) throw tooLargeError(path, limit, info.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limit.maxBytes + 1 - total));
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limit.maxBytes) throw tooLargeError(path, limit);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Bytes as the text of a YAML or JSON file: UTF-8 (a leading byte-order mark dropped). Anything
 * else is refused in one sentence rather than parsed into pages of errors quoting binary.
 */
export function decodeText(bytes: Buffer, path: string, limit: Pick<ReadLimit, 'what'>): string {
  if (!isUtf8(bytes)) throw new AppError('InvalidInput', `${path} is not UTF-8 text (a binary file?); ${limit.what} must be UTF-8.`);
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** readBounded, then decodeText. */
export async function readBoundedText(path: string, limit: ReadLimit): Promise<string> {
  return decodeText(await readBounded(path, limit), path, limit);
}

/** Reads at most `maxBytes` of a stream (an HTTP response body), counting as it comes; the rest is never buffered. */
export async function readBoundedStream(stream: AsyncIterable<Uint8Array> | null, subject: string, limit: ReadLimit): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  if (!stream) return Buffer.alloc(0);
  for await (const chunk of stream) {
    total += chunk.byteLength;
    if (total > limit.maxBytes) throw tooLargeError(subject, limit);
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, total);
}
