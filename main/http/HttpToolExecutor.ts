import { AppError } from '../../shared/errors';
import type { HttpBinding, ToolEntry, ToolResult } from '../../shared/registry';
import type { SecretStore } from '../platform/SecretStore';
import type { ExecutionContext, ToolExecutor } from '../registry/types';

const PATH_PARAM = /\{([A-Za-z0-9_]+)\}/g;
/** Bodies past this are cut while reading; the pipeline caps results far below it anyway. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Statuses that say "not now" rather than "no": retried when the tool's runtime allows. */
const TRANSIENT = new Set([429, 502, 503, 504]);

export interface HttpToolExecutorOptions {
  fetch?: typeof fetch;
  /** Where `auth.env` is looked up; process.env by default. */
  env?: Record<string, string | undefined>;
  /** Fallback for the token: the secret `http:<service>/token`. */
  secretStore?: SecretStore;
}

/** The SecretStore key that holds an HTTP service's token when no environment variable does. */
export function httpTokenSecretKey(service: string): string {
  return `http:${service}/token`;
}

/**
 * Calls Clawdapus HTTP tools: `{param}` placeholders in the path are filled from the arguments
 * (URL-encoded), the remaining arguments go in the query string for GET and as a JSON body
 * otherwise (wrapped in `body_key` when the descriptor sets one), and a bearer token comes from the
 * descriptor's `auth.env` variable or the SecretStore.
 */
export class HttpToolExecutor implements ToolExecutor {
  private readonly fetch: typeof fetch;
  private readonly env: Record<string, string | undefined>;

  constructor(private readonly options: HttpToolExecutorOptions = {}) {
    this.fetch = options.fetch ?? fetch;
    this.env = options.env ?? process.env;
  }

  async execute(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext): Promise<ToolResult> {
    const binding = entry.http;
    if (!binding) throw new AppError('ExecutionFailed', `${entry.name} has no HTTP binding.`);
    const { url, body } = buildRequest(entry.name, binding, args);
    const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const authorization = await this.authorization(entry, binding);
    if (authorization) headers.authorization = authorization;

    let response: Response;
    try {
      response = await this.fetch(url, { method: binding.method, headers, body, signal: ctx.signal });
    } catch (error) {
      if (ctx.signal.aborted) throw new AppError('Canceled', `The call to ${entry.name} was canceled.`, { cause: error });
      const reason = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
      throw new AppError('ConnectionFailed', `${entry.name}: cannot reach ${url.origin}: ${reason}`, { cause: error });
    }
    const text = await readText(response);
    if (TRANSIENT.has(response.status)) {
      throw new AppError('ConnectionFailed', `${entry.name}: ${url.origin} answered HTTP ${response.status}; try again later.`);
    }
    const data = parseJson(text, response.headers.get('content-type'));
    if (!response.ok) {
      const structured = {
        ok: false,
        status_code: response.status,
        error: { code: `http_${response.status}`, message: `Service returned HTTP ${response.status}`, ...(data !== undefined || text ? { details: data ?? text } : {}) },
      };
      return { content: [{ type: 'text', text: `HTTP ${response.status}${text ? `: ${text}` : ''}` }], structuredContent: structured, isError: true };
    }
    const result: ToolResult = { content: [{ type: 'text', text }] };
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) result.structuredContent = data;
    return result;
  }

  private async authorization(entry: ToolEntry, binding: HttpBinding): Promise<string | undefined> {
    const auth = binding.auth;
    if (!auth || auth.type === 'none') return undefined;
    const secretKey = httpTokenSecretKey(entry.source.name);
    const token = (auth.env ? this.env[auth.env] : undefined) || (await this.options.secretStore?.get(secretKey));
    if (!token) {
      const where = auth.env ? `set $${auth.env} or store the secret ${secretKey}` : `store the secret ${secretKey}`;
      throw new AppError('Unauthorized', `${entry.name} needs a token: ${where}.`);
    }
    return auth.type === 'bearer' ? `Bearer ${token}` : token;
  }
}

function buildRequest(toolName: string, binding: HttpBinding, args: Record<string, unknown>): { url: URL; body?: string } {
  const remaining: Record<string, unknown> = { ...args };
  const path = binding.path.replace(PATH_PARAM, (_match, name: string) => {
    if (!(name in remaining)) {
      throw new AppError('InvalidArguments', `${toolName}: the argument "${name}" is required to fill the path ${binding.path}.`);
    }
    const value = remaining[name];
    delete remaining[name];
    if (value === null || typeof value === 'object') {
      throw new AppError('InvalidArguments', `${toolName}: the argument "${name}" must be a string, number or boolean to go in the path.`);
    }
    return encodeURIComponent(String(value));
  });
  const url = new URL(binding.baseUrl.replace(/\/+$/, '') + path);
  if (binding.method === 'GET') {
    for (const [key, value] of Object.entries(remaining)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item === undefined || item === null) continue;
        url.searchParams.append(key, typeof item === 'object' ? JSON.stringify(item) : String(item));
      }
    }
    return { url };
  }
  return { url, body: JSON.stringify(binding.bodyKey ? { [binding.bodyKey]: remaining } : remaining) };
}

async function readText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_RESPONSE_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES));
}

function parseJson(text: string, contentType: string | null): unknown {
  if (!text || !(contentType?.includes('json') || /^[[{]/.test(text.trimStart()))) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
