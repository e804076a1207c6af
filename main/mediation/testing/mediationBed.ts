import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LLMock } from '@copilotkit/aimock';
import { expect, vi } from 'vitest';
import { everythingStdio } from '../../../e2e/peers/mcp/everything';
import { createCore, type Core } from '../../core';
import { silentLogger } from '../../platform/Logger';
import { MemorySecretStore } from '../../platform/SecretStore';

/**
 * A test bed for model mediation on real parts: server-everything as the managed tools' server,
 * aimock as the model provider (OpenAI and Anthropic wire formats, scripted below by what the
 * conversation holds so far), and the console's gateway serving the endpoints. Agents (a Clawdapus
 * pod file): `runner` with cllama's defaults, `strict` (2 rounds, duplicates rejected), `careful` (its
 * sums need a person's approval, an Orloj ToolPermission), `hasty`
 * (a 2 s total timeout), and `stranger`, which has no managed tools.
 */
const pod = `x-claw:
  pod: mediated
services:
  runner:
    image: example/runner
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [get-sum, echo]
  strict:
    image: example/runner
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [get-sum, echo]
      tools-policy:
        max_rounds: 2
        duplicate_tool_calls: reject
  careful:
    image: example/runner
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [get-sum, echo]
  hasty:
    image: example/runner
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [get-sum, echo]
      tools-policy:
        total_timeout_ms: 2000
`;

/** Orloj: agent careful's sums wait for a person. */
const permission = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: careful-sums-need-approval
spec:
  tool_ref: everything--get-sum
  apply_mode: scoped
  target_agents: [careful]
  operation_rules:
    - {operation_class: "*", verdict: approval_required}
`;

/** The conversation as aimock hands it to a fixture (both wire formats normalized to OpenAI's roles). */
export type Messages = { role: string; content?: unknown; tool_calls?: { function: { name: string } }[] }[];
const toolResults = (messages: Messages) => messages.filter((message) => message.role === 'tool');
const lastToolResult = (messages: Messages) => toolResults(messages).at(-1);
const userText = (messages: Messages) => JSON.stringify(messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');

export interface MediationBed {
  core: Core;
  mock: LLMock;
  /** The gateway's origin. */
  origin: string;
  /** Agent name → its credential (`NAME:SECRET`). */
  credentials: Record<'runner' | 'strict' | 'careful' | 'hasty' | 'stranger', string>;
  close(): Promise<void>;
}

export async function startMediationBed(): Promise<MediationBed> {
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-mediation-ws-'));
  writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
  writeFileSync(join(workspaceDir, 'careful.permission.yaml'), permission);
  const core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-mediation-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
  const mock = new LLMock({ host: '127.0.0.1', port: 0 });
  const says = (predicate: (messages: Messages, withTools: boolean) => boolean, response: object | ((messages: Messages) => object)) =>
    mock.on(
      { predicate: (req) => predicate(req.messages as Messages, ((req as { tools?: unknown[] }).tools ?? []).length > 0) },
      (typeof response === 'function' ? (req: { messages: unknown }) => response(req.messages as Messages) : response) as never,
    );
  says((m) => userText(m).includes('add') && !lastToolResult(m), { toolCalls: [{ name: 'everything_get-sum', arguments: '{"a":2,"b":40}' }] });
  // The sum's own words: a denial's message carries a timestamp, which may hold 42.
  says((m) => userText(m).includes('add'), (m) => ({ content: `The sum is ${JSON.stringify(lastToolResult(m)?.content ?? '').includes('is 42') ? '42' : 'unknown'}.` }));
  says((m) => userText(m).includes('weather') && !lastToolResult(m), { toolCalls: [{ name: 'lookup_weather', arguments: '{"city":"Oslo"}' }] });
  says((m) => userText(m).includes('both') && !lastToolResult(m), { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"first"}' }, { name: 'lookup_weather', arguments: '{"city":"Oslo"}' }] });
  says((m) => userText(m).includes('both'), { toolCalls: [{ name: 'lookup_weather', arguments: '{"city":"Oslo"}' }] });
  says((m) => userText(m).includes('disorder') && !lastToolResult(m), { toolCalls: [{ name: 'lookup_weather', arguments: '{"city":"Oslo"}' }, { name: 'everything_echo', arguments: '{"message":"late"}' }] });
  says((m) => userText(m).includes('disorder'), (m) => ({ content: `Replanned after: ${JSON.stringify(lastToolResult(m)?.content ?? '')}` }));
  says((m) => userText(m).includes('repeat') && toolResults(m).length < 2, { toolCalls: [{ name: 'everything_get-sum', arguments: '{"b":1,"a":1}' }] });
  says((m) => userText(m).includes('repeat'), (m) => ({ content: `Done repeating: ${JSON.stringify(lastToolResult(m)?.content ?? '')}` }));
  // A model that keeps calling tools while it is offered any (the budget must stop it).
  says((m, withTools) => userText(m).includes('loop') && withTools, (m) => ({ toolCalls: [{ name: 'everything_echo', arguments: JSON.stringify({ message: `round ${toolResults(m).length + 1}` }) }] }));
  says((m) => userText(m).includes('loop'), { content: 'Out of budget.' });
  // A model going round in circles with the very same call.
  says((m, withTools) => userText(m).includes('circles') && withTools, { toolCalls: [{ name: 'everything_get-sum', arguments: '{"a":3,"b":3}' }] });
  says((m) => userText(m).includes('circles'), { content: 'Stopped going round.' });
  says((m) => userText(m).includes('long') && !lastToolResult(m), { toolCalls: [{ name: 'everything_echo', arguments: JSON.stringify({ message: 'x'.repeat(20_000) }) }] });
  says((m) => userText(m).includes('long'), { content: 'Read the long echo.' });
  says((m) => userText(m).includes('hello'), { content: 'Hello from the model.' });
  const url = await mock.start();
  const hostile = await startHostileProvider();
  const hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  await core.providers.add({ name: 'mock', format: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-test' });
  await core.providers.add({ name: 'claude', format: 'anthropic', baseUrl: url, apiKey: 'sk-ant-test' });
  for (const format of ['openai', 'anthropic'] as const) {
    const prefix = format === 'openai' ? '' : 'a-';
    const v1 = format === 'openai' ? '/v1' : '';
    await core.providers.add({ name: `${prefix}broken`, format, baseUrl: `${hostileUrl}/fail${v1}` });
    await core.providers.add({ name: `${prefix}garbage`, format, baseUrl: `${hostileUrl}/garbage${v1}` });
    await core.providers.add({ name: `${prefix}stuck`, format, baseUrl: `${hostileUrl}/hang${v1}` });
    await core.providers.add({ name: `${prefix}endless`, format, baseUrl: `${hostileUrl}/endless${v1}` });
  }
  const credentials = {
    runner: await core.agents.credentials.create('runner'),
    strict: await core.agents.credentials.create('strict'),
    careful: await core.agents.credentials.create('careful'),
    hasty: await core.agents.credentials.create('hasty'),
    stranger: await core.agents.credentials.create('stranger'),
  };
  // Models are denied by default; these agents may use every configured provider (the tests of the grants themselves narrow them).
  for (const agent of Object.keys(credentials)) await core.agents.models.grant(agent, ['*']);
  const status = await core.gateway.start({ port: 0 });
  return {
    core,
    mock,
    origin: new URL(status.url!).origin,
    credentials,
    async close() {
      await mock.stop();
      hostile.closeAllConnections();
      await new Promise((resolve) => hostile.close(resolve));
      await core.close();
    },
  };
}

/**
 * A hand-written hostile model provider: `/fail…` answers 500, `/garbage…` answers 200 with HTML,
 * `/hang…` never answers, `/endless…` answers without end (no real provider can be made to do these on demand).
 */
function startHostileProvider(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    if (req.url?.startsWith('/fail')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'upstream exploded' } }));
    } else if (req.url?.startsWith('/endless')) {
      // An answer that never ends, as fast as the socket takes it.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      const pump = () => {
        while (res.write(chunk));
      };
      res.on('drain', pump);
      res.write('{"id":"');
      pump();
    } else if (req.url?.startsWith('/garbage')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>definitely not json');
    }
    // `/hang`: no answer, ever.
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
