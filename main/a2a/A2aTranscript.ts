import type { A2aTranscriptEntry } from '../../shared/a2a';
import { describeFetchFailure } from './errorMapping';

type FetchInput = Parameters<typeof fetch>[0];

export interface TranscriptMasking {
  /** Secret values in force for this agent (tokens, keys); masked wherever they appear. */
  secretValues?: () => Iterable<string>;
  /** Extra header names whose values are secret (custom secret headers). */
  secretHeaders?: Iterable<string>;
}

const MASK = '***';
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'apikey', 'x-auth-token'];
const SECRET_QUERY = new Set(['api_key', 'apikey', 'api-key', 'key', 'token', 'access_token', 'client_secret']);
const SECRET_JSON_FIELDS = /("(?:access_token|refresh_token|id_token|client_secret|password|token|apiKey|api_key)"\s*:\s*")((?:[^"\\]|\\.)*)(")/g;
const SECRET_FIELD_HINT = /token|secret|password|api_?key/i;
const SECRET_FORM_FIELDS = /((?:^|&)(?:client_secret|password|refresh_token|access_token)=)([^&]*)/g;

/**
 * Every HTTP exchange with an agent, per agent and in order: JSON-RPC requests and responses, REST
 * calls, each SSE event of a stream, and transport errors. Secrets are masked before an entry is
 * stored; each agent keeps only its latest entries and bodies are capped.
 *
 * Masking and formatting run after the response has been handed back (on the next turn of the event
 * loop, or at the latest when someone reads the transcript), so recording adds almost nothing to a
 * call's latency. The secret values are captured when the call is made, so a later token refresh
 * cannot unmask an earlier entry.
 */
export class A2aTranscript {
  private readonly byAgent = new Map<string, A2aTranscriptEntry[]>();
  private seq = 0;
  private pending: Array<() => void> = [];
  private flushScheduled = false;

  constructor(private readonly limits: { maxEntriesPerAgent?: number; maxBodyChars?: number } = {}) {}

  entries(agent: string): A2aTranscriptEntry[] {
    this.flush();
    return [...(this.byAgent.get(agent) ?? [])];
  }

  agents(): string[] {
    this.flush();
    return [...this.byAgent.keys()];
  }

  clear(agent?: string) {
    this.flush();
    if (agent === undefined) this.byAgent.clear();
    else this.byAgent.delete(agent);
  }

  /** Returns a fetch that records through this transcript before handing the call to `base`. */
  wrapFetch(agent: string, base: typeof fetch, masking: TranscriptMasking = {}): typeof fetch {
    const secretHeaders = new Set([...SECRET_HEADERS, ...[...(masking.secretHeaders ?? [])].map((h) => h.toLowerCase())]);
    const maskValues = (text: string, secrets: string[]) => {
      let out = text;
      for (const value of secrets) if (value.length >= 4 && out.includes(value)) out = out.split(value).join(MASK);
      return out;
    };
    const maskText = (text: string, secrets: string[]) =>
      maskValues(SECRET_FIELD_HINT.test(text) ? text.replace(SECRET_JSON_FIELDS, `$1${MASK}$3`).replace(SECRET_FORM_FIELDS, `$1${MASK}`) : text, secrets);
    const maskUrl = (raw: string, secrets: string[]) => {
      if (!raw.includes('?')) return maskValues(raw, secrets);
      try {
        const url = new URL(raw);
        for (const key of [...url.searchParams.keys()]) if (SECRET_QUERY.has(key.toLowerCase())) url.searchParams.set(key, MASK);
        return maskValues(url.toString(), secrets);
      } catch {
        return maskValues(raw, secrets);
      }
    };
    const maskHeaders = (headers: ConstructorParameters<typeof Headers>[0], secrets: string[]) => {
      const out: Record<string, string> = {};
      new Headers(headers).forEach((value, name) => (out[name] = secretHeaders.has(name) ? maskHeaderValue(value) : maskValues(value, secrets)));
      return out;
    };

    const wrapped = async (input: FetchInput, init?: RequestInit): Promise<Response> => {
      const started = performance.now();
      const secrets = [...(masking.secretValues?.() ?? [])];
      const request = input instanceof Request ? input : undefined;
      const url = request ? request.url : String(input);
      const bodyText = typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : undefined;
      const requestHeaders = init?.headers ?? request?.headers;
      const since = () => Math.round((performance.now() - started) * 100) / 100;
      let requestSeq = 0;
      let shownUrl = '';
      let label = '';
      const at = Date.now();
      this.defer(() => {
        label = rpcMethodOf(bodyText) ?? `${(init?.method ?? request?.method ?? 'GET').toUpperCase()} ${pathOf(url)}`;
        shownUrl = maskUrl(url, secrets);
        requestSeq = this.add(agent, at, {
          direction: 'request',
          method: label,
          url: shownUrl,
          headers: maskHeaders(requestHeaders, secrets),
          ...this.capped(bodyText === undefined ? undefined : maskText(bodyText, secrets)),
        }).seq;
      });
      const record = (direction: A2aTranscriptEntry['direction'], extra: () => Partial<A2aTranscriptEntry>, status?: number, keep?: (entry: A2aTranscriptEntry) => void) => {
        const latencyMs = since();
        const when = Date.now();
        this.defer(() => {
          const entry = this.add(agent, when, { direction, method: label, url: shownUrl, ...(status === undefined ? {} : { status }), requestSeq, latencyMs, ...extra() });
          keep?.(entry);
        });
      };

      let response: Response;
      try {
        response = await base(input, init);
      } catch (error) {
        record('error', () => ({ body: describeError(error) }));
        throw error;
      }
      const status = response.status;
      const responseHeaders = response.headers;
      const isStream = (responseHeaders.get('content-type') ?? '').startsWith('text/event-stream');
      if (isStream && response.body) {
        record('response', () => ({ headers: maskHeaders(responseHeaders, secrets) }), status);
        let ended = false;
        const signal = init?.signal ?? request?.signal;
        signal?.addEventListener(
          'abort',
          () => {
            if (!ended) record('error', () => ({ body: 'stream closed by the client' }), status);
          },
          { once: true },
        );
        const tapped = response.body.pipeThrough(
          sseTap(
            (data) => record('event', () => this.capped(maskText(data, secrets)), status),
            (error) => record('error', () => ({ body: describeError(error) }), status),
            () => (ended = true),
          ),
        );
        return new Response(tapped, { status, statusText: response.statusText, headers: responseHeaders });
      }
      // The entry is made when the headers arrive; the body joins it when the caller reads it. Reading
      // through the caller's own text()/json() spares a second pass over the body (a copy would cost a
      // few percent of every call); a body read as a stream or bytes is left out of the transcript.
      let entry: A2aTranscriptEntry | undefined;
      record('response', () => ({ headers: maskHeaders(responseHeaders, secrets) }), status, (made) => (entry = made));
      const readText = response.text.bind(response);
      let body: Promise<string> | undefined;
      const text = () =>
        (body ??= readText().then(
          (value) => {
            const latencyMs = since();
            this.defer(() => entry && Object.assign(entry, { latencyMs, ...this.capped(maskText(value, secrets)) }));
            return value;
          },
          (error: unknown) => {
            record('error', () => ({ body: describeError(error) }), status);
            throw error;
          },
        ));
      Object.defineProperties(response, {
        text: { value: text, configurable: true },
        json: { value: async () => JSON.parse(await text()), configurable: true },
      });
      return response;
    };
    return wrapped as typeof fetch;
  }

  private defer(work: () => void) {
    this.pending.push(work);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush() {
    this.flushScheduled = false;
    const work = this.pending;
    this.pending = [];
    for (const item of work) item();
  }

  private capped(body: string | undefined): { body?: string; truncated?: boolean } {
    if (body === undefined) return {};
    const max = this.limits.maxBodyChars ?? 16_000;
    return body.length > max ? { body: body.slice(0, max), truncated: true } : { body };
  }

  private add(agent: string, at: number, fields: Omit<A2aTranscriptEntry, 'seq' | 'agent' | 'at'>): A2aTranscriptEntry {
    const entry = { seq: ++this.seq, agent, at, ...fields };
    let list = this.byAgent.get(agent);
    if (!list) this.byAgent.set(agent, (list = []));
    list.push(entry);
    const max = this.limits.maxEntriesPerAgent ?? 500;
    if (list.length > max) list.splice(0, list.length - max);
    return entry;
  }
}

/** Keeps the scheme word so a reader can still tell Bearer from Basic. */
function maskHeaderValue(value: string): string {
  const scheme = /^(Bearer|Basic|Token|Digest)\s+/i.exec(value);
  return scheme ? `${scheme[1]} ${MASK}` : MASK;
}

function rpcMethodOf(body: string | undefined): string | undefined {
  if (!body || body[0] !== '{') return undefined;
  // The SDK serializes `jsonrpc` then `method` first; read that without parsing the whole body.
  const quick = /^\{"jsonrpc":"2\.0","method":"([^"\\]+)"/.exec(body);
  if (quick) return quick[1];
  try {
    const parsed = JSON.parse(body) as { method?: unknown };
    return typeof parsed.method === 'string' ? parsed.method : undefined;
  } catch {
    return undefined;
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function describeError(error: unknown): string {
  const name = (error as Error)?.name;
  if (name === 'AbortError') return 'aborted by the client';
  if (name === 'TimeoutError') return 'timed out';
  return describeFetchFailure(error);
}

/** Passes bytes through untouched and reports the `data:` payload of each SSE event as it completes. */
function sseTap(onEvent: (data: string) => void, onError: (error: unknown) => void, onEnd: () => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let buffer = '';
  const drain = (final: boolean) => {
    const events = buffer.split(/\r?\n\r?\n/);
    buffer = final ? '' : (events.pop() ?? '');
    for (const event of events) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) onEvent(data);
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      try {
        buffer += decoder.decode(chunk, { stream: true });
        drain(false);
      } catch (error) {
        onError(error);
      }
    },
    flush() {
      buffer += decoder.decode();
      drain(true);
      onEnd();
    },
  });
}
