// An MCP server written for the tests, on the official server SDK: the tools, resources, prompts,
// completions and logging that the MCP conformance suite's server scenarios call by name
// (test_simple_text, test_tool_with_progress, test://static-text, test_prompt_with_arguments, …),
// so the suite can be run against it directly and through the Tooldeck gateway in front of it.
// One endpoint serves both protocol eras: 2025-11-25 sessions (a sessionful transport per
// initialize) and 2026-07-28 stateless requests (a server per request), like the gateway itself;
// Host and Origin are checked (DNS rebinding) before anything else.
//
// Run: node conformanceScenarioServer.mjs    (Streamable HTTP on PORT or a free port, path /mcp;
//                                              prints "conformance scenario server listening on port N")
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import {
  createMcpHandler,
  createRequestStateCodec,
  hostHeaderValidationResponse,
  inputRequired,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  MissingRequiredClientCapabilityError,
  originValidationResponse,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const AUDIO = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** Cacheable results say for how long (SEP-2549). */
const CACHE = { ttlMs: 60_000, cacheScope: 'public' };
/** requestState is sealed with HMAC: a tampered one is refused before a handler runs. */
const stateCodec = createRequestStateCodec({ key: randomUUID() + randomUUID() });

const empty = { type: 'object', properties: {} };
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

const TOOLS = [
  { name: 'test_simple_text', description: 'Answers with one text block', inputSchema: empty },
  { name: 'test_image_content', description: 'Answers with a PNG image', inputSchema: empty },
  { name: 'test_audio_content', description: 'Answers with a WAV clip', inputSchema: empty },
  { name: 'test_embedded_resource', description: 'Answers with an embedded resource', inputSchema: empty },
  { name: 'test_multiple_content_types', description: 'Answers with text, an image and a resource', inputSchema: empty },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs', inputSchema: empty },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100', inputSchema: empty },
  { name: 'test_error_handling', description: 'Always fails (a tool error)', inputSchema: empty },
  { name: 'test_sampling', description: 'Asks the client’s model', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } },
  { name: 'test_elicitation', description: 'Asks the user', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
  { name: 'test_elicitation_sep1034_defaults', description: 'Asks the user with defaults for every primitive type', inputSchema: empty },
  { name: 'test_elicitation_sep1330_enums', description: 'Asks the user with every enum form', inputSchema: empty },
  { name: 'test_missing_capability', description: 'Needs the client’s sampling capability', inputSchema: empty },
  { name: 'test_input_required_result_elicitation', description: 'Asks the user’s name (input required)', inputSchema: empty },
  { name: 'test_input_required_result_sampling', description: 'Asks the model (input required)', inputSchema: empty },
  { name: 'test_input_required_result_list_roots', description: 'Asks for the client’s roots (input required)', inputSchema: empty },
  { name: 'test_input_required_result_request_state', description: 'Round-trips its request state', inputSchema: empty },
  { name: 'test_input_required_result_multiple_inputs', description: 'Asks for three inputs at once', inputSchema: empty },
  { name: 'test_input_required_result_multi_round', description: 'Asks twice, one step at a time', inputSchema: empty },
  { name: 'test_input_required_result_tampered_state', description: 'Refuses a tampered request state', inputSchema: empty },
  { name: 'test_input_required_result_capabilities', description: 'Asks only for what the client declared', inputSchema: empty },
  { name: 'test_streaming_elicitation', description: 'Asks the user (input required, on a stream)', inputSchema: empty },
  { name: 'test_logging_tool', description: 'Logs (only for a client that asked for a log level)', inputSchema: empty },
  { name: 'test_trigger_tool_change', description: 'Changes the tool list', inputSchema: empty },
  { name: 'test_trigger_prompt_change', description: 'Changes the prompt list', inputSchema: empty },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' }, contactMethod: { type: 'string', enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' } },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  },
];

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', title: 'Static Text Resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', title: 'Static Binary Resource', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', title: 'Watched Resource', mimeType: 'text/plain' },
];

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  { name: 'test_prompt_with_arguments', description: 'A prompt with two arguments', arguments: [{ name: 'arg1', required: true }, { name: 'arg2', required: true }] },
  { name: 'test_prompt_with_embedded_resource', description: 'A prompt embedding a resource', arguments: [{ name: 'resourceUri', required: true }] },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
  { name: 'test_input_required_result_prompt', description: 'A prompt that asks the user first' },
];

const elicitName = (message = 'What is your name?') => ({ method: 'elicitation/create', params: { message, requestedSchema: nameSchema } });
const accepted = (response) => (response && typeof response === 'object' && response.action === 'accept' && response.content && typeof response.content === 'object' ? response.content : undefined);

async function callTool(name, args, ctx) {
  const responses = ctx.mcpReq.inputResponses ?? {};
  const progressToken = ctx.mcpReq._meta?.progressToken;
  switch (name) {
    case 'test_simple_text':
      return text('This is a simple text response for testing.');
    case 'test_image_content':
      return { content: [{ type: 'image', data: IMAGE, mimeType: 'image/png' }] };
    case 'test_audio_content':
      return { content: [{ type: 'audio', data: AUDIO, mimeType: 'audio/wav' }] };
    case 'test_embedded_resource':
      return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
    case 'test_multiple_content_types':
      return {
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: IMAGE, mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
        ],
      };
    case 'test_tool_with_logging':
      for (const message of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        await ctx.mcpReq.log('info', message);
        await sleep(20);
      }
      return text('Tool with logging executed successfully');
    case 'test_tool_with_progress':
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
        await sleep(20);
      }
      return text(String(progressToken));
    case 'test_error_handling':
      return { ...text('This tool intentionally returns an error for testing'), isError: true };
    case 'test_sampling': {
      const result = await ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }], maxTokens: 100 });
      return text(`LLM response: ${result.content?.text ?? 'No response'}`);
    }
    case 'test_elicitation': {
      const result = await ctx.mcpReq.elicitInput({ mode: 'form', message: String(args.message), requestedSchema: { type: 'object', properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } }, required: ['username', 'email'] } });
      return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    }
    case 'test_elicitation_sep1034_defaults': {
      const result = await ctx.mcpReq.elicitInput({
        mode: 'form',
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      });
      return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    }
    case 'test_elicitation_sep1330_enums': {
      const result = await ctx.mcpReq.elicitInput({
        mode: 'form',
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
            legacyEnum: { type: 'string', description: 'Select one option (legacy)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', description: 'Select multiple options', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: { type: 'array', description: 'Select multiple options with titles', minItems: 1, maxItems: 3, items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
          },
          required: [],
        },
      });
      return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    }
    case 'test_missing_capability':
      if (!ctx.mcpReq.envelope?.[CAPABILITIES_KEY]?.sampling) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } });
      return text('The client declared sampling.');
    case 'json_schema_2020_12_tool':
      return text(`Called with ${JSON.stringify(args)}`);
    case 'test_logging_tool':
      await ctx.mcpReq.log('info', 'test_logging_tool ran');
      return text('Logged.');
    case 'test_trigger_tool_change':
      await listsChanged.tools();
      return text('The tool list changed.');
    case 'test_trigger_prompt_change':
      await listsChanged.prompts();
      return text('The prompt list changed.');
    case 'test_input_required_result_elicitation':
    case 'test_streaming_elicitation':
    case 'test_input_required_result_tampered_state': {
      const answer = accepted(responses.user_name);
      if (typeof answer?.name === 'string') return text(`Hello, ${answer.name}!`);
      const requestState = name.endsWith('tampered_state') ? await stateCodec.mint({ step: 1 }) : undefined;
      return inputRequired({ inputRequests: { user_name: elicitName() }, ...(requestState ? { requestState } : {}) });
    }
    case 'test_input_required_result_sampling': {
      const answer = responses.capital_question;
      if (answer && typeof answer === 'object' && answer.content) return text(`The model said: ${answer.content.text ?? JSON.stringify(answer.content)}`);
      return inputRequired({ inputRequests: { capital_question: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 } } } });
    }
    case 'test_input_required_result_list_roots': {
      const roots = responses.client_roots?.roots;
      if (Array.isArray(roots)) return text(`Roots: ${roots.map((root) => root.uri).join(', ')}`);
      return inputRequired({ inputRequests: { client_roots: { method: 'roots/list', params: {} } } });
    }
    case 'test_input_required_result_request_state': {
      const state = ctx.mcpReq.requestState();
      if (state?.step === 1 && accepted(responses.confirm)) return text('Confirmed: state-ok');
      return inputRequired({
        inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } } },
        requestState: await stateCodec.mint({ step: 1 }),
      });
    }
    case 'test_input_required_result_multiple_inputs': {
      const state = ctx.mcpReq.requestState();
      if (state?.step === 1 && responses.user_name && responses.greeting && responses.client_roots) return text(`Got all three inputs for ${accepted(responses.user_name)?.name ?? 'someone'}`);
      return inputRequired({
        inputRequests: {
          user_name: elicitName(),
          greeting: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 } },
          client_roots: { method: 'roots/list', params: {} },
        },
        requestState: await stateCodec.mint({ step: 1 }),
      });
    }
    case 'test_input_required_result_multi_round': {
      const state = ctx.mcpReq.requestState();
      if (state?.step === 2 && accepted(responses.step2)) return text(`${state.name} likes ${accepted(responses.step2).color}`);
      const named = state?.step === 1 ? accepted(responses.step1)?.name : undefined;
      if (typeof named === 'string') {
        return inputRequired({
          inputRequests: { step2: { method: 'elicitation/create', params: { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } } } },
          requestState: await stateCodec.mint({ step: 2, name: named }),
        });
      }
      return inputRequired({ inputRequests: { step1: elicitName('Step 1: What is your name?') }, requestState: await stateCodec.mint({ step: 1 }) });
    }
    case 'test_input_required_result_capabilities': {
      const declared = ctx.mcpReq.envelope?.[CAPABILITIES_KEY] ?? {};
      if (Object.keys(responses).length > 0) return text('Thanks for the input.');
      const inputRequests = {};
      if (declared.sampling) inputRequests.sample = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 } };
      if (declared.elicitation) inputRequests.ask = elicitName();
      if (declared.roots) inputRequests.roots = { method: 'roots/list', params: {} };
      if (Object.keys(inputRequests).length === 0) return text('The client declared nothing to ask with.');
      return inputRequired({ inputRequests });
    }
    default:
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
}

function readResource(uri) {
  if (uri === 'test://static-text') return { uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' };
  if (uri === 'test://static-binary') return { uri, mimeType: 'image/png', blob: IMAGE };
  if (uri === 'test://watched-resource') return { uri, mimeType: 'text/plain', text: 'Watched resource content' };
  const template = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (template) return { uri, mimeType: 'application/json', text: JSON.stringify({ id: template[1], templateTest: true, data: `Data for ID: ${template[1]}` }) };
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Resource not found', { uri });
}

function getPrompt(name, args, ctx) {
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
    case 'test_prompt_with_arguments':
      return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          { role: 'user', content: { type: 'resource', resource: { uri: String(args.resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      };
    case 'test_prompt_with_image':
      return {
        messages: [
          { role: 'user', content: { type: 'image', data: IMAGE, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      };
    case 'test_input_required_result_prompt': {
      const context = accepted(ctx.mcpReq.inputResponses?.user_context)?.context;
      if (typeof context === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${context}` } }] };
      return inputRequired({ inputRequests: { user_context: { method: 'elicitation/create', params: { message: 'What context should the prompt use?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] } } } } });
    }
    default:
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  }
}

function makeServer() {
  const server = new Server(
    { name: 'conformance-scenario-server', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} },
      requestState: { verify: (state) => stateCodec.verify(state) },
    },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: TOOLS, ...CACHE }));
  server.setRequestHandler('tools/call', async (request, ctx) => callTool(request.params.name, request.params.arguments ?? {}, ctx));
  server.setRequestHandler('resources/list', async () => ({ resources: RESOURCES, ...CACHE }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template', mimeType: 'application/json' }], ...CACHE }));
  server.setRequestHandler('resources/read', async (request) => ({ contents: [readResource(request.params.uri)], ...CACHE }));
  server.setRequestHandler('resources/subscribe', async () => ({}));
  server.setRequestHandler('resources/unsubscribe', async () => ({}));
  server.setRequestHandler('prompts/list', async () => ({ prompts: PROMPTS, ...CACHE }));
  server.setRequestHandler('prompts/get', async (request, ctx) => getPrompt(request.params.name, request.params.arguments ?? {}, ctx));
  server.setRequestHandler('completion/complete', async () => ({ completion: { values: [], total: 0, hasMore: false } }));
  server.setRequestHandler('logging/setLevel', async () => ({}));
  return server;
}

const modern = createMcpHandler(makeServer, { legacy: 'reject' });
const sessions = new Map();
/** Tells every open session and every 2026-07-28 subscription that a list changed. */
const listsChanged = {
  async tools() {
    modern.notify.toolsChanged();
    for (const { server } of sessions.values()) await server.sendToolListChanged().catch(() => undefined);
  },
  async prompts() {
    modern.notify.promptsChanged?.();
    for (const { server } of sessions.values()) await server.sendPromptListChanged().catch(() => undefined);
  },
};

async function legacy(request, parsedBody) {
  const sessionId = request.headers.get('mcp-session-id');
  if (sessionId) {
    const transport = sessions.get(sessionId)?.transport;
    if (!transport) return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }, { status: 404 });
    return transport.handleRequest(request, { parsedBody });
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, { transport, server }),
    onsessionclosed: (id) => sessions.delete(id),
  });
  const server = makeServer();
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody });
}

const port = Number(process.env.PORT ?? 0);
const http = createServer(async (req, res) => {
  try {
    if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value);
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = ['GET', 'HEAD', 'DELETE'].includes(req.method ?? 'GET') ? undefined : Buffer.concat(chunks);
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body });
    const refused = hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
    let response = refused;
    if (!response) {
      let parsedBody;
      if (body?.length) {
        try {
          parsedBody = JSON.parse(body.toString('utf8'));
        } catch {
          parsedBody = undefined;
        }
      }
      response = (await isLegacyRequest(request.clone(), parsedBody)) ? await legacy(request, parsedBody) : await modern.fetch(request, { parsedBody });
    }
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
  } catch (error) {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(error?.message ?? error) } }));
  }
});
http.listen(port, '127.0.0.1', () => console.log(`conformance scenario server listening on port ${http.address().port}`));
