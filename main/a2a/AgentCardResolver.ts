import { isLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import type { A2aCardView, A2aProtocolVersion } from '../../shared/a2a';
import { AppError } from '../../shared/errors';
import { isRecord, toCardView, type RawCard } from './cardView';
import { describeFetchFailure } from './errorMapping';

export interface ResolvedCard {
  /** Where the card was actually found. */
  cardUrl: string;
  raw: RawCard;
  protocolVersion: A2aProtocolVersion;
  view: A2aCardView;
}

export interface ResolveOptions {
  /** The fetch to use; pass a transcript-wrapped one to record the card request. */
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const WELL_KNOWN = ['/.well-known/agent-card.json', '/.well-known/agent.json'];

/**
 * Finds and reads an agent card. Accepts a base URL (tries the 1.0/0.3 well-known path, then the 0.2
 * one) or the card's own URL. Fails with an AppError whose `step` says which stage broke:
 * `fetch` (URL, network, HTTP status), `parse` (not JSON), `validate` (not a usable card).
 */
export class AgentCardResolver {
  constructor(private readonly options: { fetch?: typeof fetch; timeoutMs?: number } = {}) {}

  async resolve(target: string, options: ResolveOptions = {}): Promise<ResolvedCard> {
    const candidates = cardUrlCandidates(target);
    const misses: string[] = [];
    for (const [index, url] of candidates.entries()) {
      const response = await this.fetchCard(url, options);
      if (response.ok) return await readCard(url, response);
      await response.body?.cancel();
      const last = index === candidates.length - 1;
      if (response.status === 401 || response.status === 403) {
        throw new AppError('Unauthorized', `The agent card at ${url} requires credentials (HTTP ${response.status}).`, { step: 'fetch' });
      }
      misses.push(`${url} (HTTP ${response.status})`);
      if (last || response.status >= 500) {
        throw new AppError(response.status === 404 ? 'NotFound' : 'ConnectionFailed', `No agent card found: ${misses.join('; ')}.`, {
          step: 'fetch',
          retryable: response.status >= 500,
        });
      }
    }
    throw new AppError('Internal', 'No card URL to try.', { step: 'fetch' });
  }

  private async fetchCard(url: string, options: ResolveOptions): Promise<Response> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 10_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const doFetch = options.fetch ?? this.options.fetch ?? fetch;
    try {
      return await doFetch(url, { headers: { Accept: 'application/json', 'A2A-Version': '1.0', ...options.headers }, signal });
    } catch (error) {
      if (options.signal?.aborted) throw new AppError('Canceled', `Fetching the agent card at ${url} was canceled.`, { step: 'fetch' });
      if (timeout.aborted) throw new AppError('Timeout', `The agent card at ${url} did not arrive within ${this.options.timeoutMs ?? 10_000} ms.`, { step: 'fetch' });
      throw new AppError('ConnectionFailed', `Cannot reach ${url}: ${describeFetchFailure(error)}.`, { step: 'fetch', cause: error });
    }
  }
}

export function cardUrlCandidates(target: string): string[] {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new AppError('InvalidInput', `Not a URL: ${target}`, { step: 'fetch' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('InvalidInput', `Only http(s) agent URLs are supported, not ${url.protocol}`, { step: 'fetch' });
  }
  if (url.pathname.endsWith('.json')) return [url.toString()];
  const base = url.toString().replace(/[?#].*$/, '').replace(/\/+$/, '');
  return WELL_KNOWN.map((path) => `${base}${path}`);
}

async function readCard(url: string, response: Response): Promise<ResolvedCard> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const type = response.headers.get('content-type') ?? 'no content type';
    const snippet = text.trim().slice(0, 80).replace(/\s+/g, ' ');
    throw new AppError('ExecutionFailed', `The agent card at ${url} is not JSON (${type}): ${snippet || '(empty body)'}`, { step: 'parse' });
  }
  if (!isRecord(parsed)) {
    throw new AppError('ExecutionFailed', `The agent card at ${url} is not a JSON object.`, { step: 'validate' });
  }
  const protocolVersion = detectProtocolVersion(parsed);
  if (!protocolVersion) {
    throw new AppError(
      'ExecutionFailed',
      `The document at ${url} is not an agent card: it declares no interface (neither supportedInterfaces as in A2A 1.0 nor url as in 0.3).`,
      { step: 'validate' },
    );
  }
  return { cardUrl: url, raw: parsed, protocolVersion, view: toCardView(parsed, protocolVersion) };
}

/** 1.0 cards list supportedInterfaces; 0.3 (and 0.2) cards carry url/preferredTransport/protocolVersion. */
export function detectProtocolVersion(raw: RawCard): A2aProtocolVersion | undefined {
  if (Array.isArray(raw.supportedInterfaces) && raw.supportedInterfaces.length > 0) return '1.0';
  if (isLegacyAgentCard(raw) && typeof raw.url === 'string') return '0.3';
  return undefined;
}
