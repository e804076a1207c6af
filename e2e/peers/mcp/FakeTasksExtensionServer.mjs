// An MCP server written for the tests: the 2026 form of MCP tasks (SEP-2663, the
// `io.modelcontextprotocol/tasks` extension of protocol revision 2026-07-28), which no published
// server implements yet (server-everything speaks the 2025-11-25 form, SEP-1686; the SDK serves the
// 2026 era but leaves the task surface to the server). Built on the official server SDK; the task
// store is this file's own. Follows the extension as the conformance suite's server scenarios check
// it: the server decides which calls become tasks (only for a client that declares the extension),
// the CreateTaskResult is flat (`resultType: "task"`), tasks/get inlines the result or the error,
// input_required carries `inputRequests` answered with tasks/update, tasks/cancel is an empty ack.
//
// Run: node FakeTasksExtensionServer.mjs            (stdio)
//      node FakeTasksExtensionServer.mjs http        (Streamable HTTP on PORT, path /mcp)
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createMcpHandler, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const TASKS = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const TTL_MS = 10 * 60_000;
const POLL_MS = 100;

const TOOLS = [
  { name: 'greet', description: 'Says hello at once (never a task)', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  {
    name: 'slow_compute',
    description: 'Works for `seconds`, then answers',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } }, required: ['seconds'] },
    execution: { taskSupport: 'optional' },
  },
  {
    name: 'confirm_delete',
    description: 'Asks for confirmation (elicitation) before it pretends to delete a file',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    execution: { taskSupport: 'optional' },
  },
  {
    name: 'ask_model',
    description: 'Asks the client’s model (sampling) and reports its answer',
    inputSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
    execution: { taskSupport: 'required' },
  },
  { name: 'failing_job', description: 'Always ends with a tool error', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
  { name: 'protocol_error_job', description: 'Its worker crashes (a protocol-level failure)', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
];

/** Every task, shared by all server instances (the HTTP entry makes one per request). */
const tasks = new Map();

const text = (value) => ({ content: [{ type: 'text', text: value }] });
const now = () => new Date().toISOString();

function envelope(task) {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt } = task;
  return { taskId, status, ...(statusMessage ? { statusMessage } : {}), createdAt, lastUpdatedAt, ttlMs: TTL_MS, pollIntervalMs: POLL_MS };
}

function settle(task, patch) {
  if (['completed', 'failed', 'cancelled'].includes(task.status)) return;
  clearTimeout(task.timer);
  Object.assign(task, patch, { lastUpdatedAt: now() });
}

/** Parks the task until every one of `requests` is answered, then calls `resume` with the answers. */
function askFor(task, requests, resume) {
  task.pending = { ...requests };
  task.answers = {};
  task.resume = resume;
  Object.assign(task, { status: 'input_required', statusMessage: 'Waiting for the client', lastUpdatedAt: now() });
}

function start(name, args) {
  const task = { taskId: randomUUID(), status: 'working', createdAt: now(), lastUpdatedAt: now() };
  tasks.set(task.taskId, task);
  const later = (ms, fn) => (task.timer = setTimeout(fn, ms));
  switch (name) {
    case 'slow_compute':
      task.statusMessage = `Computing ${args.label ?? ''}`.trim();
      later(Number(args.seconds ?? 0) * 1000, () => settle(task, { status: 'completed', statusMessage: 'Done', result: text(`Computed ${args.label ?? 'it'} in ${args.seconds}s`) }));
      break;
    case 'confirm_delete':
      later(20, () =>
        askFor(
          task,
          {
            confirm: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: `Delete ${args.filename}?`,
                requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Delete it' } }, required: ['confirm'] },
              },
            },
          },
          ({ confirm }) => {
            const yes = confirm?.action === 'accept' && confirm.content?.confirm === true;
            settle(task, { status: 'completed', statusMessage: undefined, result: text(yes ? `Deleted ${args.filename}` : `Kept ${args.filename}`) });
          },
        ),
      );
      break;
    case 'ask_model':
      later(20, () =>
        askFor(
          task,
          { answer: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: args.question } }], maxTokens: 100 } } },
          ({ answer }) => settle(task, { status: 'completed', statusMessage: undefined, result: text(`The model said: ${answer?.content?.text ?? '(nothing)'}`) }),
        ),
      );
      break;
    case 'failing_job':
      later(200, () => settle(task, { status: 'completed', result: { ...text('The job hit a wall'), isError: true } }));
      break;
    case 'protocol_error_job':
      later(200, () => settle(task, { status: 'failed', statusMessage: 'Worker crashed', error: { code: ProtocolErrorCode.InternalError, message: 'The worker process crashed' } }));
      break;
  }
  return task;
}

function requireTask(taskId) {
  const task = tasks.get(taskId);
  if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
  return task;
}

function makeServer() {
  const server = new Server({ name: 'fake-tasks-extension', version: '1.0.0' }, { capabilities: { tools: {}, extensions: { [TASKS]: {} } } });
  server.setRequestHandler('tools/list', async () => ({ tools: TOOLS }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args = {} } = request.params;
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const declared = !!ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES]?.extensions?.[TASKS];
    const support = tool.execution?.taskSupport;
    if (support && declared) return { resultType: 'task', ...envelope(start(name, args)) };
    if (support === 'required') throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    if (name === 'greet') return text(`Hello, ${args.name}!`);
    if (name === 'slow_compute') return text(`Computed ${args.label ?? 'it'} in ${args.seconds}s`);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${name} only runs as a task`);
  });
  server.setRequestHandler('tasks/get', { params: z.object({ taskId: z.string() }).loose() }, async ({ taskId }) => {
    const task = requireTask(taskId);
    return {
      ...envelope(task),
      ...(task.status === 'completed' ? { result: task.result } : {}),
      ...(task.status === 'failed' ? { error: task.error } : {}),
      ...(task.status === 'input_required' ? { inputRequests: task.pending } : {}),
    };
  });
  server.setRequestHandler('tasks/update', { params: z.object({ taskId: z.string() }).loose() }, async ({ taskId, inputResponses: inParams }, ctx) => {
    const task = requireTask(taskId);
    // The SDK lifts `inputResponses` off every request (SEP-2322's retry field) into the context.
    const inputResponses = inParams ?? ctx.mcpReq.inputResponses ?? {};
    if (task.status !== 'input_required') return {};
    for (const [key, response] of Object.entries(inputResponses)) {
      if (!(key in task.pending)) continue;
      task.answers[key] = response;
      delete task.pending[key];
    }
    task.lastUpdatedAt = now();
    if (Object.keys(task.pending).length === 0) {
      Object.assign(task, { status: 'working', statusMessage: 'Resuming' });
      const { resume, answers } = task;
      setTimeout(() => resume(answers), 20);
    }
    return {};
  });
  server.setRequestHandler('tasks/cancel', { params: z.object({ taskId: z.string() }).loose() }, async ({ taskId }) => {
    settle(requireTask(taskId), { status: 'cancelled', statusMessage: 'Cancelled by the client' });
    return {};
  });
  return server;
}

if (process.argv[2] === 'http') {
  const handler = createMcpHandler(makeServer);
  const port = Number(process.env.PORT ?? 0);
  const http = createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value);
    const body = ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : Buffer.concat(chunks);
    const response = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    res.on('close', () => void reader.cancel().catch(() => undefined));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  });
  http.listen(port, '127.0.0.1', () => console.log(`fake tasks extension server listening on port ${http.address().port}`));
} else {
  serveStdio(makeServer);
}
