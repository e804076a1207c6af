import { z } from 'zod';
import { readBoundedStream } from '../platform/readBounded';

/**
 * MCP Server Cards (SEP-2127, a draft): what a server says about itself at
 * `/.well-known/mcp/server-card` of its origin, read before connecting. The draft's shape is a
 * superset of server.json; only what Tooldeck shows is read, bounded, and anything else is ignored.
 * A card is a claim, not a fact: after connecting, its declared tools are compared with tools/list.
 */

export const SERVER_CARD_PATH = '/.well-known/mcp/server-card';
const CARD_LIMIT = { maxBytes: 1024 * 1024, what: 'a server card' };

export const ServerCard = z.object({
  name: z.string().max(200).optional(),
  title: z.string().max(200).optional(),
  version: z.string().max(255).optional(),
  description: z.string().max(2_000).optional(),
  /** The tools it declares; absent when the card does not list them (the draft allows "dynamic"). */
  tools: z
    .array(z.object({ name: z.string().min(1).max(256), description: z.string().max(2_000).optional() }))
    .max(2_000)
    .optional()
    .catch(undefined),
});
export type ServerCard = z.infer<typeof ServerCard>;

type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

/**
 * The card of the server at `endpoint` (any URL of it: its origin is asked), or undefined when it
 * publishes none or it cannot be read. No credential is sent and redirects are not followed, so
 * the request reaches no other origin than the one the user is about to trust.
 */
export async function fetchServerCard(endpoint: string, fetchImpl: FetchLike = fetch): Promise<ServerCard | undefined> {
  try {
    const url = new URL(SERVER_CARD_PATH, endpoint);
    const response = await fetchImpl(url.href, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    if (response.status !== 200) {
      await response.body?.cancel();
      return undefined;
    }
    const parsed = ServerCard.safeParse(JSON.parse((await readBoundedStream(response.body, url.href, CARD_LIMIT)).toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Where a card's declared tools and the server's tools/list disagree (empty lists when they agree). */
export function diffCardTools(card: ServerCard, listed: readonly string[]): { undeclared: string[]; missing: string[] } {
  if (!card.tools) return { undeclared: [], missing: [] };
  const declared = new Set(card.tools.map((tool) => tool.name));
  const have = new Set(listed);
  return { undeclared: listed.filter((name) => !declared.has(name)), missing: [...declared].filter((name) => !have.has(name)) };
}
