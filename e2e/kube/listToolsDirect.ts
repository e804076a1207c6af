/**
 * tools/list by hand (initialize, notifications/initialized, tools/list with nextCursor): the
 * reference the reconciler's discovery is compared with, read straight from the server.
 */
export async function listToolsDirect(url: string): Promise<unknown[]> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const call = async (body: object) => {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    return { res, message: parseMessage(text) };
  };
  const init = await call({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'reference', version: '1' } } });
  const session = init.res.headers.get('mcp-session-id');
  if (session) headers['mcp-session-id'] = session;
  headers['mcp-protocol-version'] = (init.message?.result as { protocolVersion: string }).protocolVersion;
  await call({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let id = 2; ; id++) {
    const { message } = await call({ jsonrpc: '2.0', id, method: 'tools/list', params: cursor ? { cursor } : {} });
    const result = message?.result as { tools: unknown[]; nextCursor?: string };
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  if (session) await fetch(url, { method: 'DELETE', headers });
  return tools;
}

function parseMessage(text: string): { result?: unknown } | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (trimmed.startsWith('{')) return JSON.parse(trimmed);
  const data = trimmed
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
  return data.length ? JSON.parse(data[data.length - 1]!) : undefined;
}
