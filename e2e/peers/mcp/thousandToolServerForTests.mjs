// An MCP server written for the tests (the official SDK over stdio) that offers 1,000 tools with
// realistic names, descriptions, annotations and input schemas, so the console can be measured
// against a large catalogue: how long connecting takes, whether the UI blocks, how lists scroll.
// `node thousandToolServerForTests.mjs [count]` (default 1000).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const count = Number(process.argv[2] ?? 1000);
const VERBS = ['create', 'list', 'get', 'update', 'delete', 'search', 'sync', 'export', 'import', 'archive', 'restore', 'approve', 'schedule', 'cancel', 'send', 'tag', 'merge', 'assign', 'close', 'reopen'];
const NOUNS = ['issue', 'pull_request', 'invoice', 'customer', 'order', 'ticket', 'event', 'file', 'message', 'deployment', 'pod', 'metric', 'alert', 'report', 'user', 'payment', 'subscription', 'dashboard', 'record', 'lead'];
const SERVICES = ['github', 'jira', 'stripe', 'zendesk', 'slack', 'kubernetes', 'grafana', 'salesforce', 'notion', 'postgres'];

const server = new McpServer({ name: 'thousand-tools-for-tests', version: '1.0.0' });
for (let i = 0; i < count; i++) {
  const verb = VERBS[i % VERBS.length];
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
  const service = SERVICES[Math.floor(i / (VERBS.length * NOUNS.length)) % SERVICES.length];
  const name = `${service}_${verb}_${noun}${i >= VERBS.length * NOUNS.length * SERVICES.length ? `_${i}` : ''}`;
  const destructive = verb === 'delete' || verb === 'archive' || verb === 'cancel';
  server.registerTool(
    name,
    {
      title: `${verb[0].toUpperCase()}${verb.slice(1)} ${noun.replace('_', ' ')} (${service})`,
      description: `${verb[0].toUpperCase()}${verb.slice(1)} a ${noun.replace('_', ' ')} in ${service}. Supports filters, paging and dry runs; returns the ${noun.replace('_', ' ')} as JSON.`,
      inputSchema: {
        id: z.string().describe(`The ${noun} id`),
        project: z.string().optional().describe('Project or workspace key'),
        limit: z.number().int().min(1).max(500).optional().describe('Page size'),
        dryRun: z.boolean().optional().describe('Validate without changing anything'),
        labels: z.array(z.string()).optional(),
      },
      annotations: { readOnlyHint: ['list', 'get', 'search', 'export'].includes(verb), destructiveHint: destructive, idempotentHint: !destructive, openWorldHint: true },
    },
    async (args) => ({ content: [{ type: 'text', text: `${name} ok: ${JSON.stringify(args)}` }] }),
  );
}
await server.connect(new StdioServerTransport());
