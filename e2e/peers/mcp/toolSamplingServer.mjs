// An MCP server written for the tests (with the official SDK) whose tool needs sampling *with tools*
// (SEP-1577): it offers the model a get_weather tool, answers the model's tool call with a
// tool_result, and asks again for the final text. Run: node toolSamplingServer.mjs (stdio).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'trip-planner', version: '1.0.0' });
const tools = [
  {
    name: 'get_weather',
    description: 'The weather in a city today',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
const text = (result) => [result.content].flat().filter((c) => c.type === 'text').map((c) => c.text).join(' ');

server.registerTool('plan-trip', { description: 'Plans a day out; asks the model, which may check the weather', inputSchema: { city: z.string() } }, async ({ city }) => {
  const messages = [{ role: 'user', content: { type: 'text', text: `Plan a day in ${city}. Check the weather first.` } }];
  const first = await server.server.createMessage({ messages, maxTokens: 200, tools, toolChoice: { mode: 'auto' } });
  const use = [first.content].flat().find((c) => c.type === 'tool_use');
  if (first.stopReason !== 'toolUse' || !use) return { content: [{ type: 'text', text: `Plan without tools: ${text(first)}` }] };
  const weather = use.input.city === 'Oslo' ? 'snow' : 'sun';
  const second = await server.server.createMessage({
    messages: [...messages, { role: 'assistant', content: [use] }, { role: 'user', content: [{ type: 'tool_result', toolUseId: use.id, content: [{ type: 'text', text: `Weather in ${use.input.city}: ${weather}` }] }] }],
    maxTokens: 200,
    tools,
    toolChoice: { mode: 'none' },
  });
  return { content: [{ type: 'text', text: `Plan: ${text(second)} (the model called ${use.name} ${JSON.stringify(use.input)}; weather ${weather})` }] };
});

await server.connect(new StdioServerTransport());
