import type { FetchLike } from '@modelcontextprotocol/client';

/**
 * A fetch that leaves nothing behind on a long-lived AbortSignal.
 *
 * The MCP SDK's HTTP transports pass their connection-lifetime signal to every request. Node's
 * fetch (undici) attaches a listener to that signal per Request and removes it only when the
 * Request is garbage-collected, so thousands of calls on one connection pile up listeners
 * (Node warns past 1,500: "Possible EventTarget memory leak detected") and keep them, with what
 * they hold, until a GC happens to run.
 *
 * Here each request gets its own signal that follows the caller's through one listener, and that
 * listener is removed as soon as the request is over: its body read to the end, canceled or
 * failed, or the request itself failed. Aborting the caller's signal still aborts every request
 * in flight, body streams included.
 */
export function fetchReleasingSignal(inner: FetchLike): FetchLike {
  return async (url, init) => {
    const outer = init?.signal;
    if (!outer || outer.aborted) return inner(url, init);
    const own = new AbortController();
    const follow = () => own.abort(outer.reason);
    outer.addEventListener('abort', follow, { once: true });
    const release = () => outer.removeEventListener('abort', follow);
    let response: Response;
    try {
      response = await inner(url, { ...init, signal: own.signal });
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body) {
      release();
      return response;
    }
    return withBodyEnd(response, release);
  };
}

/** The same response, `onEnd` called once when its body is read to the end, fails or is canceled. */
function withBodyEnd(response: Response, onEnd: () => void): Response {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason);
    },
  });
  const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  // Error messages name the URL a response came from (a redirect's, say); keep it.
  Object.defineProperty(wrapped, 'url', { value: response.url });
  return wrapped;
}
