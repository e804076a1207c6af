// An MCP server written for the tests (the official SDK) that lists the crafted poisoned tool
// definitions of poisonedCorpus.json verbatim: hidden characters, instructions for the model,
// requests for secrets, side channels. The linter must flag every one of them.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const corpus = JSON.parse(readFileSync(new URL('./poisonedCorpus.json', import.meta.url), 'utf8'));
const server = new Server({ name: 'poisoned-server-for-tests', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: corpus.tools.map((item) => item.tool) }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `${request.params.name} ran` }] }));
await server.connect(new StdioServerTransport());
