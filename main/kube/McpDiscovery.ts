import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ToolSchema } from '../../shared/kube';
import type { DiscoveryOutcome } from '../reconcile/toolStatus';
import type { FetchLike } from './KubeRest';

export interface McpDiscoveryOptions {
  fetch: FetchLike;
  clientInfo: { name: string; version: string };
  timeoutMs?: number;
  /** Guards against a server whose nextCursor never ends. */
  maxPages?: number;
}

/**
 * Lists a tool server's tools over MCP Streamable HTTP at `url` (an apiserver proxy URL), with the
 * SDK client: it negotiates the protocol era (initialize + notifications/initialized for legacy
 * servers, stateless requests for 2026 ones) and reads JSON or SSE-framed replies.
 * Unreachable servers are a transient outcome; a server that answers wrongly is a permanent one.
 */
export async function discoverTools(url: string, options: McpDiscoveryOptions): Promise<DiscoveryOutcome> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const signal = AbortSignal.timeout(timeoutMs);
  const fetchWithDeadline: FetchLike = (input, init) => options.fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: fetchWithDeadline });
  const client = new Client(options.clientInfo, {
    versionNegotiation: { mode: 'auto', probe: { timeoutMs: Math.min(3_000, Math.round(timeoutMs / 4)) } },
    capabilities: {},
  });
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
    if (!client.getServerCapabilities()?.tools) return { ok: false, permanent: true, message: 'The server does not offer tools' };
    const tools: ToolSchema[] = [];
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= (options.maxPages ?? 100)) return { ok: false, permanent: true, message: `tools/list did not end after ${page} pages` };
      const result = await client.listTools(cursor ? { cursor } : {}, { cacheMode: 'bypass', signal, timeout: timeoutMs });
      tools.push(...(result.tools as ToolSchema[]));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return { ok: true, tools };
  } catch (error) {
    return { ok: false, permanent: error instanceof ProtocolError, message: describe(error) };
  } finally {
    // Ends the server's session (legacy era) so discovery leaves nothing behind.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

function describe(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}
