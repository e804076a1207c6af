// A real MCP server (the official SDK) whose `blob` tool returns a text result of a requested
// size, for testing how clients cope with huge results.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'large-result-server', version: '1.0.0' });
server.registerTool(
  'blob',
  { description: 'Returns a text block of the requested size in megabytes', inputSchema: { megabytes: z.number().min(0).max(200) } },
  async ({ megabytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(Math.round(megabytes * 1024 * 1024)) }] }),
);
await server.connect(new StdioServerTransport());
