import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../shared/errors';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import type { ApprovalStore } from '../approvals/ApprovalHolder';
import { ApprovalBook } from '../approvals/ApprovalBook';
import { createCore, type Core } from '../core';
import { createToolEntry } from '../registry/createToolEntry';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import type { RunningGateway } from './GatewayServer';
import { startGateway } from './GatewayServer';

const pod = `x-claw:
  pod: gatewaytest
  tools-defaults:
    - service: everything
      allow: [echo]
services:
  builder:
    image: example/builder
    x-claw:
      cllama: passthrough
      tools:
        - ...
        - service: everything
          allow: [get-sum, trigger-elicitation-request, trigger-sampling-request]
  scout:
    image: example/scout
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [echo, get-sum, get-tiny-image]
  reader:
    image: example/reader
    x-claw:
      cllama: passthrough
`;
const permission = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: builder-sums-need-approval
spec:
  tool_ref: everything--get-sum
  apply_mode: scoped
  target_agents: [builder]
  operation_rules:
    - {operation_class: "*", verdict: approval_required}
`;

let core: Core;
let gateway: RunningGateway;
let builder: string;
let reader: string;
let scout: string;
/** What the test's approver (standing in for a person) does with each held call. */
let decide: (input: Record<string, unknown>, signal?: AbortSignal) => Promise<void>;
const holds: { input: Record<string, unknown>; reason: string; agent: string }[] = [];
/** Whether held calls wait in the data dir's approvals book (a person decides) instead of with the test's approver. */
let approvalsInTheBook = false;

beforeAll(async () => {
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-ws-'));
  writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
  writeFileSync(join(workspaceDir, 'permissions.yaml'), permission);
  // A hand-written approver for these tests (the approvals book has tests of its own), as the core's
  // approvals store; the test of the console's own gateway switches to the real book in the data dir.
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-gateway-'));
  const book = new ApprovalBook({ dataDir, logger: silentLogger });
  const approverForTests: ApprovalStore = {
    async hold(request, options) {
      if (approvalsInTheBook) return book.hold(request, options);
      holds.push({ input: request.input, reason: request.reason, agent: request.agent });
      options?.onPending?.({ metadata: { name: 'test-approval' } } as never);
      await decide(request.input, options?.signal);
      return {} as never;
    },
    list: () => book.list(),
    get: (name) => book.get(name),
    decide: (name, verdict, by, comment) => book.decide(name, verdict, by, comment),
    onChange: (listener) => book.onChange(listener),
    close: () => book.close(),
  };
  core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, approvals: async () => approverForTests });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
  builder = await core.agents.credentials.create('builder');
  reader = await core.agents.credentials.create('reader');
  scout = await core.agents.credentials.create('scout', { metaTools: true });
  gateway = await startGateway({
    credentials: core.agents.credentials,
    grants: core.agents.grants,
    traffic: core.agents.traffic,
    invoke: (call) => core.agents.invoke(call),
    logger: silentLogger,
    serverInfo: { name: 'tooldeck-gateway', version: '0' },
    heartbeatMs: 50,
    metaTools: (agent) => core.agents.credentials.metaTools(agent),
    rate: { perSecond: 1000, burst: 1000 },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await core?.close();
});

function legacyClient(credential: string) {
  const client = new LegacyClient({ name: 'agent-under-test', version: '1' });
  return { client, transport: new LegacyTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }) };
}

function modernClient(credential: string) {
  const client = new ModernClient({ name: 'agent-under-test', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
  return { client, transport: new ModernTransport(new URL(gateway.url), { requestInit: { headers: { 'x-api-key': credential } } }) };
}

/** A raw HTTP exchange with the gateway, for what no client SDK would send. */
function raw(options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: gateway.port, path: options.path ?? '/mcp', method: options.method ?? 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...options.headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

describe('the MCP gateway in front of server-everything', { timeout: 60_000 }, () => {
  it('offers each agent exactly its Clawdapus grants, named <source>.<tool>, over a 2025-11-25 session (official SDK v1 client)', async () => {
    const { client, transport } = legacyClient(builder);
    await client.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['everything.echo', 'everything.get-sum', 'everything.trigger-elicitation-request', 'everything.trigger-sampling-request']);
    expect(tools.find((tool) => tool.name === 'everything.echo')?.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    const result = await client.callTool({ name: 'everything.echo', arguments: { message: 'through the gateway' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: through the gateway' }]);
    await client.close();

    const other = legacyClient(reader);
    await other.client.connect(other.transport);
    expect((await other.client.listTools()).tools.map((tool) => tool.name)).toEqual(['everything.echo']);
    await other.client.close();
  });

  it('serves the 2026-07-28 era statelessly to the official SDK v2 client', async () => {
    const { client, transport } = modernClient(reader);
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['everything.echo']);
    const result = await client.callTool({ name: 'everything.echo', arguments: { message: 'stateless' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: stateless' }]);
    await client.close();
  });

  it('records every call under the agent’s name, via the gateway', async () => {
    const { client, transport } = legacyClient(reader);
    await client.connect(transport);
    await client.callTool({ name: 'everything.echo', arguments: { message: 'for the record' } });
    await client.close();
    await vi.waitFor(async () => {
      const { items } = await core.history.list({ agent: 'reader', via: 'gateway' });
      expect(items.find((item) => item.argumentsJson.includes('for the record'))).toMatchObject({ agent: 'reader', via: 'gateway', sourceName: 'everything', tool: 'echo', status: 'ok' });
    });
  });

  it('continues the agent’s trace: the record and the upstream request carry the agent’s trace id', async () => {
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const { client, transport } = legacyClient(reader);
    await client.connect(transport);
    await client.callTool({ name: 'everything.echo', arguments: { message: 'traced' }, _meta: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    await client.close();
    await vi.waitFor(async () => expect((await core.history.list({ agent: 'reader' })).items.find((item) => item.argumentsJson.includes('traced'))?.traceId).toBe(traceId));
    const sent = core.mcp.transcript('everything')!.list().filter((entry) => entry.direction === 'out' && JSON.stringify(entry).includes('traced'));
    expect(JSON.stringify(sent)).toContain(`00-${traceId}-`);
  });

  it('never lets a tool outside the grants through, and invalid arguments never reach the upstream', async () => {
    const { client, transport } = legacyClient(reader);
    await client.connect(transport);
    await expect(client.callTool({ name: 'everything.get-sum', arguments: { a: 1, b: 2 } })).rejects.toThrow(/Unknown tool: everything.get-sum/);
    await expect(client.callTool({ name: 'everything.nope', arguments: {} })).rejects.toThrow(/Unknown tool/);
    const invalid = await client.callTool({ name: 'everything.echo', arguments: { message: 42 } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toMatch(/InvalidArguments/);
    const upstream = core.mcp.transcript('everything')!.list();
    expect(upstream.some((entry) => entry.direction === 'out' && JSON.stringify(entry).includes('"message":42'))).toBe(false);
    await client.close();
  });

  it('holds a call the policy wants approved, with its exact arguments, sending progress while it waits; runs it once approved', async () => {
    let approve!: () => void;
    decide = () => new Promise<void>((resolve) => (approve = resolve));
    const { client, transport } = legacyClient(builder);
    await client.connect(transport);
    const progress: string[] = [];
    const pending = client.callTool({ name: 'everything.get-sum', arguments: { a: 2, b: 40 } }, undefined, { onprogress: (note) => progress.push(note.message ?? ''), resetTimeoutOnProgress: true });
    await vi.waitFor(() => expect(progress.length).toBeGreaterThanOrEqual(2));
    expect(progress[0]).toMatch(/Waiting for a person to approve mcp:everything.get-sum \(approval test-approval\)/);
    expect(holds.at(-1)).toMatchObject({ agent: 'builder', input: { a: 2, b: 40 }, reason: expect.stringMatching(/builder-sums-need-approval/) });
    expect(core.agents.traffic.snapshot().calls[0]).toMatchObject({ agent: 'builder', state: 'held', approval: 'test-approval' });
    approve();
    const result = await pending;
    expect(JSON.stringify(result.content)).toMatch(/42/);
    await client.close();
  });

  it('ends a denied call with an error result that says so, and never runs it', async () => {
    decide = () => Promise.reject(new AppError('PolicyDenied', 'Denied by ops: not this one.'));
    const { client, transport } = legacyClient(builder);
    await client.connect(transport);
    const result = await client.callTool({ name: 'everything.get-sum', arguments: { a: 1, b: 1 } });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'PolicyDenied: Denied by ops: not this one.' }] });
    await client.close();
  });

  it('cancels the hold when the agent disconnects while its call waits', async () => {
    let seen: AbortSignal | undefined;
    decide = (_input, signal) =>
      new Promise<void>((_resolve, reject) => {
        seen = signal;
        signal?.addEventListener('abort', () => reject(new Error('canceled: the agent went away')));
      });
    const { client, transport } = legacyClient(builder);
    await client.connect(transport);
    void client.callTool({ name: 'everything.get-sum', arguments: { a: 5, b: 5 } }).catch(() => undefined);
    await vi.waitFor(() => expect(seen).toBeDefined());
    await transport.terminateSession();
    await client.close();
    await vi.waitFor(() => expect(seen?.aborted).toBe(true));
  });

  it('relays the server’s elicitation and sampling requests mid-call to the agent that made the call, and its answers back', async () => {
    const client = new LegacyClient({ name: 'answering-agent', version: '1' }, { capabilities: { elicitation: {}, sampling: {} } });
    const asked: string[] = [];
    const { ElicitRequestSchema, CreateMessageRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`elicit: ${request.params.message}`);
      return { action: 'decline' };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(`sample: ${JSON.stringify(request.params.messages[0]?.content)}`);
      return { role: 'assistant', model: 'agent-model', content: { type: 'text', text: 'the agent’s own answer' } };
    });
    const transport = new LegacyTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${builder}` } } });
    await client.connect(transport);
    const sampled = await client.callTool({ name: 'everything.trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 10 } });
    expect(JSON.stringify(sampled.content)).toContain('the agent’s own answer');
    const elicited = await client.callTool({ name: 'everything.trigger-elicitation-request', arguments: {} });
    expect(JSON.stringify(elicited.content)).toMatch(/decline/i);
    expect(asked).toEqual([expect.stringMatching(/^sample: .*say hi/), expect.stringMatching(/^elicit: /)]);
    // The operator was never asked.
    expect(core.mcp.broker.pending()).toEqual([]);
    await client.close();
  });

  it('gives an agent set to meta-tools RockBot’s four instead of its tools, under the same grants and policy', async () => {
    const { client, transport } = legacyClient(scout);
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_known_services', 'list_services', 'get_service_details', 'invoke_tool']);
    const search = (await client.callTool({ name: 'search_known_services', arguments: { query: 'add two numbers' } })).structuredContent as { results: { id: string; type: string; relevance_score: number; top_tools: string[] }[] };
    expect(search.results[0]).toMatchObject({ id: 'everything', type: 'mcp', relevance_score: 1 });
    expect(search.results[0]!.top_tools.sort()).toEqual(['echo', 'get-sum', 'get-tiny-image']);
    const listed = (await client.callTool({ name: 'list_services', arguments: {} })).structuredContent as { servers: { serverName: string; toolCount: number }[] };
    expect(listed.servers).toEqual([expect.objectContaining({ serverName: 'everything', toolCount: 3 })]);
    const details = (await client.callTool({ name: 'get_service_details', arguments: { server_name: 'everything', tool_name: 'get-sum' } })).structuredContent as { tools: { name: string; parametersSchema: unknown }[] };
    expect(details.tools).toEqual([expect.objectContaining({ name: 'get-sum', parametersSchema: expect.objectContaining({ type: 'object' }) })]);
    const sum = await client.callTool({ name: 'invoke_tool', arguments: { server_name: 'everything', tool_name: 'get-sum', arguments: { a: 20, b: 22 } } });
    expect(JSON.stringify(sum.content)).toMatch(/42/);
    // Outside the grants, invoke_tool reaches nothing.
    const refused = await client.callTool({ name: 'invoke_tool', arguments: { server_name: 'everything', tool_name: 'get-env', arguments: {} } });
    expect(refused).toMatchObject({ isError: true });
    await expect(client.callTool({ name: 'everything.echo', arguments: { message: 'x' } })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('tells sessions when what they may call changed (notifications/tools/list_changed)', async () => {
    // The console's own gateway, whose changes are wired as the console wires them.
    approvalsInTheBook = true;
    const own = await core.gateway.start({ port: 0 });
    const client = new LegacyClient({ name: 'agent-under-test', version: '1' });
    const transport = new LegacyTransport(new URL(own.url!), { requestInit: { headers: { Authorization: `Bearer ${reader}` } } });
    let changed = 0;
    const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await client.connect(transport);
    // A session hears the gateway's news on its standalone stream (GET), which the client opens
    // after initialize; news sent before it is open reaches nobody. So the registry keeps changing
    // (a source appears, disappears) until the session has heard of a change.
    let round = 0;
    await vi.waitFor(() => {
      const late = { kind: 'http' as const, name: 'late' };
      core.catalog.replaceSource(late, round++ % 2 ? [] : [createToolEntry({ source: late, tool: { name: 'ping' } })], { execute: async () => ({ content: [] }) });
      expect(changed).toBeGreaterThan(0);
    });
    await client.close();
    await core.gateway.stop();
  });

  it('through the console’s own gateway, a held call waits as an Orloj ToolApproval in the data dir and runs once a person approves it', async () => {
    approvalsInTheBook = true;
    const own = await core.gateway.start({ port: 0 });
    const client = new LegacyClient({ name: 'agent-under-test', version: '1' });
    await client.connect(new LegacyTransport(new URL(own.url!), { requestInit: { headers: { Authorization: `Bearer ${builder}` } } }));
    const pending = client.callTool({ name: 'everything.get-sum', arguments: { b: 30, a: 12 } });
    const held = await vi.waitFor(async () => {
      const found = (await core.approvals.list()).find((approval) => approval.status.phase === 'Pending' && approval.spec.agent === 'builder');
      expect(found).toBeDefined();
      return found!;
    });
    expect(held.spec).toMatchObject({ tool: 'mcp:everything.get-sum', agent: 'builder', input: { a: 12, b: 30 }, reason: expect.stringMatching(/builder-sums-need-approval/), ttl: '10m' });
    expect(held.binding.input_digest).toMatch(/^[0-9a-f]{64}$/);
    await core.approvals.decide(held.metadata.name, 'approve', 'ops', 'fine');
    expect(JSON.stringify((await pending).content)).toMatch(/42/);
    // Consumed by its one call: deciding again is a conflict.
    await expect(core.approvals.decide(held.metadata.name, 'deny', 'ops')).rejects.toThrow(/no longer pending|already/i);
    // Another call with other arguments needs its own approval; denied, it never runs.
    const second = client.callTool({ name: 'everything.get-sum', arguments: { a: 1, b: 1 } });
    const next = await vi.waitFor(async () => {
      const found = (await core.approvals.list()).find((approval) => approval.status.phase === 'Pending' && approval.spec.agent === 'builder');
      expect(found).toBeDefined();
      return found!;
    });
    expect(next.metadata.name).not.toBe(held.metadata.name);
    await core.approvals.decide(next.metadata.name, 'deny', 'ops', 'not now');
    const denied = await second;
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toMatch(/denied/i);
    await client.close();
    await core.gateway.stop();
    approvalsInTheBook = false;
  });

  describe('guards', () => {
    it('401 without a credential or with a malformed one, 403 for a wrong secret or an unknown agent — one sentence each', async () => {
      expect((await raw({ body: initialize })).status).toBe(401);
      expect((await raw({ body: initialize, headers: { authorization: 'Bearer nocolon' } })).status).toBe(401);
      const wrong = await raw({ body: initialize, headers: { authorization: 'Bearer builder:wrong' } });
      const unknown = await raw({ body: initialize, headers: { authorization: 'Bearer mallory:wrong' } });
      expect(wrong.status).toBe(403);
      expect(unknown.status).toBe(403);
      expect(wrong.body).toBe(unknown.body);
    });

    it('403 for a foreign Host or Origin (DNS rebinding), before the credential is looked at', async () => {
      expect((await raw({ body: initialize, headers: { host: 'evil.example:80', authorization: `Bearer ${builder}` } })).status).toBe(403);
      expect((await raw({ body: initialize, headers: { origin: 'http://evil.example', authorization: `Bearer ${builder}` } })).status).toBe(403);
    });

    it('413 for a body over the cap, declared or streamed, and 400 for a body that is not JSON; no cookie is ever set', async () => {
      const declared = await raw({ body: 'x', headers: { authorization: `Bearer ${builder}`, 'content-length': String(100 * 1024 * 1024) } }).catch((error: Error) => ({ status: 413, body: error.message, headers: {} }));
      expect(declared.status).toBe(413);
      const streamed = await raw({ body: Buffer.alloc(5 * 1024 * 1024, 0x20), headers: { authorization: `Bearer ${builder}` } }).catch(() => ({ status: 413, body: '', headers: {} }));
      expect(streamed.status).toBe(413);
      const garbage = await raw({ body: '{"jsonrpc": "2.0", oops', headers: { authorization: `Bearer ${builder}` } });
      expect(garbage.status).toBe(400);
      expect(JSON.parse(garbage.body)).toMatchObject({ error: { code: -32700 } });
      expect(garbage.headers['set-cookie']).toBeUndefined();
    });

    it('a flood from one agent gets 429 with Retry-After, and leaves other agents alone', async () => {
      // The console's own gateway, started as the Gateway section starts it, with a tight rate
      // (stopped first: a gateway already running would keep its own rate).
      await core.gateway.stop();
      const limited = await core.gateway.start({ port: 0, rate: { perSecond: 1, burst: 3 } });
      try {
        const post = (credential: string) =>
          new Promise<{ status: number; retryAfter?: string }>((done, fail) => {
            const req = httpRequest({ host: '127.0.0.1', port: limited.port!, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${credential}` } }, (res) => {
              res.resume();
              res.on('end', () => done({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
            });
            req.on('error', fail);
            req.end(initialize);
          });
        const answers = [];
        for (let i = 0; i < 6; i++) answers.push(await post(builder));
        expect(answers.slice(0, 3).map((answer) => answer.status)).toEqual([200, 200, 200]);
        expect(answers.slice(3).every((answer) => answer.status === 429 && Number(answer.retryAfter) >= 1)).toBe(true);
        expect((await post(reader)).status).toBe(200);
      } finally {
        await core.gateway.stop();
      }
    });

    it('/health answers without a credential', async () => {
      const health = await raw({ method: 'GET', path: '/health' });
      expect([health.status, JSON.parse(health.body)]).toEqual([200, { ok: true }]);
    });

    it('revoking a credential ends its open sessions at once and refuses it from then on', async () => {
      const temp = await core.agents.credentials.create('temp');
      const { client, transport } = legacyClient(temp);
      await client.connect(transport);
      const sessionId = transport.sessionId!;
      expect(core.agents.traffic.sessionIds('temp')).toContain(sessionId);
      await core.agents.credentials.revoke('temp');
      gateway.endSessionsOf('temp');
      expect(core.agents.traffic.sessionIds('temp')).toEqual([]);
      const again = await raw({ body: initialize, headers: { authorization: `Bearer ${temp}` } });
      expect(again.status).toBe(403);
      await client.close().catch(() => undefined);
    });
  });
});
