import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A test proxy between the MCP conformance suite and the Tooldeck gateway, for what the suite
 * cannot do itself:
 * - it sends no headers, so the proxy adds the agent's credential (`Authorization: Bearer NAME:SECRET`);
 * - its tools-call scenarios call the reference server's bare tool names (`test_simple_text`), while
 *   the gateway offers each tool as `<source>.<tool>`: the proxy adds the source to the names the
 *   suite calls (the body's `params.name` and the `Mcp-Name` header) and takes it off the names
 *   `tools/list` returns, in JSON and in SSE responses alike, streaming the latter event by event.
 *   Prompts are named the same way (`prompts/get`, a completion's `ref/prompt`, `prompts/list`);
 *   resource URIs pass through the gateway unchanged, so they need nothing.
 * Host and Origin naming the proxy itself are re-aimed at the gateway; any other Host or Origin
 * passes unchanged, so the gateway's own DNS-rebinding guard is what the suite tests.
 */
export async function startAgentCredentialProxy(options: { gatewayUrl: string; credential: string; source: string }): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(options.gatewayUrl);
  const prefix = `${options.source}.`;
  let ownPort = 0;

  const toGateway = (value: string): string => value.replace(new RegExp(`^(https?://)?(localhost|127\\.0\\.0\\.1):${ownPort}\\b`), (_, scheme: string | undefined) => `${scheme ?? ''}${target.hostname}:${target.port}`);

  const rewriteRequestBody = (text: string): string => {
    if (!text) return text;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return text;
    }
    const rename = (m: { method?: unknown; params?: { name?: unknown; ref?: { type?: unknown; name?: unknown } } }) => {
      if ((m?.method === 'tools/call' || m?.method === 'prompts/get') && typeof m.params?.name === 'string' && !m.params.name.startsWith(prefix)) m.params.name = prefix + m.params.name;
      const ref = m?.params?.ref;
      if (m?.method === 'completion/complete' && ref?.type === 'ref/prompt' && typeof ref.name === 'string' && !ref.name.startsWith(prefix)) ref.name = prefix + ref.name;
    };
    if (Array.isArray(message)) message.forEach(rename);
    else rename(message as never);
    return JSON.stringify(message);
  };

  const rewriteResponseMessage = (json: string): string => {
    let message: { result?: { tools?: Array<{ name?: string }>; prompts?: Array<{ name?: string }> } };
    try {
      message = JSON.parse(json);
    } catch {
      return json;
    }
    const named = message?.result?.tools ?? message?.result?.prompts;
    if (!Array.isArray(named)) return json;
    for (const item of named) if (typeof item.name === 'string' && item.name.startsWith(prefix)) item.name = item.name.slice(prefix.length);
    return JSON.stringify(message);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = rewriteRequestBody(Buffer.concat(chunks).toString('utf8'));
      const headers: IncomingHttpHeaders = { ...req.headers, authorization: `Bearer ${options.credential}` };
      if (headers.host) headers.host = toGateway(headers.host);
      if (typeof headers.origin === 'string') headers.origin = toGateway(headers.origin);
      const mcpName = headers['mcp-name'];
      if (typeof mcpName === 'string' && /"method"\s*:\s*"(tools\/call|prompts\/get)"/.test(body) && !mcpName.startsWith(prefix)) headers['mcp-name'] = prefix + mcpName;
      if (body.length) headers['content-length'] = String(Buffer.byteLength(body));
      const upstream = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
        const type = String(answer.headers['content-type'] ?? '');
        const outHeaders = { ...answer.headers };
        if (type.includes('text/event-stream')) {
          res.writeHead(answer.statusCode ?? 502, outHeaders);
          // Event by event: progress, logging and the server's own requests must arrive while a call runs.
          let pending = '';
          answer.on('data', (chunk: Buffer) => {
            pending += chunk.toString('utf8');
            const lines = pending.split('\n');
            pending = lines.pop() ?? '';
            res.write(lines.map((line) => (line.startsWith('data:') ? `data: ${rewriteResponseMessage(line.slice(5).trim())}` : line)).join('\n') + '\n');
          });
          answer.on('end', () => res.end(pending));
          return;
        }
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          const rewritten = type.includes('json') ? rewriteResponseMessage(text) : text;
          delete outHeaders['content-length'];
          res.writeHead(answer.statusCode ?? 502, outHeaders);
          res.end(rewritten);
        });
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ownPort = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${ownPort}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
