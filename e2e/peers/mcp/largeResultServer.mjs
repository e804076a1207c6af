// A real MCP server (the official SDK) whose `blob` tool returns a text result of a requested
// size, for testing how clients cope with huge results. Over stdio by default; with PORT set (0 for
// any free port) it serves HTTP on 127.0.0.1 instead and prints `listening on port N`:
//   /mcp        stateless Streamable HTTP, replies as event streams (the SDK's default)
//   /mcp-json   stateless Streamable HTTP, replies as JSON bodies
//   /sse        the legacy HTTP+SSE transport (its posts go to /messages)
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function largeResultServer() {
  const server = new McpServer({ name: 'large-result-server', version: '1.0.0' });
  server.registerTool(
    'blob',
    { description: 'Returns a text block of the requested size in megabytes', inputSchema: { megabytes: z.number().min(0).max(200) } },
    async ({ megabytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(Math.round(megabytes * 1024 * 1024)) }] }),
  );
  return server;
}

if (process.env.PORT === undefined) {
  await largeResultServer().connect(new StdioServerTransport());
} else {
  /** Legacy HTTP+SSE sessions, by id: each event stream has its own transport and server. */
  const legacy = new Map();
  const http = createServer(async (req, res) => {
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      legacy.set(transport.sessionId, transport);
      res.on('close', () => legacy.delete(transport.sessionId));
      return void (await largeResultServer().connect(transport));
    }
    if (pathname === '/messages' && req.method === 'POST') {
      const transport = legacy.get(searchParams.get('sessionId'));
      if (!transport) return void res.writeHead(404).end();
      return void (await transport.handlePostMessage(req, res));
    }
    if (pathname !== '/mcp' && pathname !== '/mcp-json') return void res.writeHead(404).end();
    const server = largeResultServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: pathname === '/mcp-json' });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`listening on port ${http.address().port}\n`));
}
