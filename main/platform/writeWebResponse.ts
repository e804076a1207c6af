import type { ServerResponse } from 'node:http';

/**
 * Headers of a fetch Response never copied onto Node's: cookies (nobody here sets one on another's
 * behalf) and the framing headers Node writes itself (fetch has already decoded the body, so its
 * length and encoding no longer describe what is written).
 */
const NOT_COPIED = new Set(['set-cookie', 'content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * Writes a fetch `Response` (an SDK handler's, an upstream's) to a Node response as it streams:
 * backpressure is honoured, and when the client goes away the body is cancelled, so an endless
 * stream stops being read.
 */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!NOT_COPIED.has(name)) headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (done) break;
    if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  res.end();
}
