import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { LLMock } from '@copilotkit/aimock';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';

/**
 * Model mediation against real parts: server-everything as the managed tool's server, aimock as
 * the model provider (OpenAI and Anthropic wire formats), and the official `openai` and
 * `@anthropic-ai/sdk` clients as the runner, pointed at the gateway's port with the agent's credential.
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
`;

type Messages = { role: string; content?: unknown; tool_calls?: { function: { name: string } }[] }[];
const lastToolResult = (messages: Messages) => [...messages].reverse().find((message) => message.role === 'tool');
const userText = (messages: Messages) => JSON.stringify(messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');

let core: Core;
let mock: LLMock;
let origin: string;
let credential: string;
let stranger: string;

beforeAll(async () => {
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-mediation-ws-'));
  writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
  core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-mediation-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
  mock = new LLMock({ host: '127.0.0.1', port: 0 });
  // The model, scripted by what the conversation holds so far (first match wins).
  const says = (predicate: (messages: Messages) => boolean, response: object | ((messages: Messages) => object)) =>
    mock.on({ predicate: (req) => predicate(req.messages as Messages) }, (typeof response === 'function' ? (req: { messages: unknown }) => response(req.messages as Messages) : response) as never);
  says((m) => userText(m).includes('add') && !lastToolResult(m), { toolCalls: [{ name: 'everything_get-sum', arguments: '{"a":2,"b":40}' }] });
  says((m) => userText(m).includes('add'), (m) => ({ content: `The sum is ${JSON.stringify(lastToolResult(m)?.content ?? '').includes('42') ? '42' : 'unknown'}.` }));
  says((m) => userText(m).includes('weather') && !lastToolResult(m), { toolCalls: [{ name: 'lookup_weather', arguments: '{"city":"Oslo"}' }] });
  says((m) => userText(m).includes('both') && !lastToolResult(m), { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"first"}' }, { name: 'lookup_weather', arguments: '{"city":"Oslo"}' }] });
  says((m) => userText(m).includes('both'), { toolCalls: [{ name: 'lookup_weather', arguments: '{"city":"Oslo"}' }] });
  says((m) => userText(m).includes('disorder') && !lastToolResult(m), { toolCalls: [{ name: 'lookup_weather', arguments: '{"city":"Oslo"}' }, { name: 'everything_echo', arguments: '{"message":"late"}' }] });
  says((m) => userText(m).includes('disorder'), (m) => ({ content: `Replanned after: ${JSON.stringify(lastToolResult(m)?.content ?? '')}` }));
  says((m) => userText(m).includes('repeat') && m.filter((message) => message.role === 'tool').length < 2, { toolCalls: [{ name: 'everything_get-sum', arguments: '{"b":1,"a":1}' }] });
  says((m) => userText(m).includes('repeat'), { content: 'Done repeating.' });
  says((m) => userText(m).includes('hello'), { content: 'Hello from the model.' });
  const url = await mock.start();
  await core.gateway.providers.add({ name: 'mock', format: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-test' });
  await core.gateway.providers.add({ name: 'claude', format: 'anthropic', baseUrl: url, apiKey: 'sk-ant-test' });
  credential = await core.gateway.credentials.create('runner');
  stranger = await core.gateway.credentials.create('stranger');
  const status = await core.gateway.start({ port: 0 });
  origin = new URL(status.url!).origin;
}, 60_000);

afterAll(async () => {
  await mock?.stop();
  await core?.close();
});

const openai = (key = credential) => new OpenAI({ baseURL: `${origin}/v1`, apiKey: key, maxRetries: 0 });
const anthropic = () => new Anthropic({ baseURL: origin, apiKey: credential, maxRetries: 0 });
const weatherTool = { type: 'function' as const, function: { name: 'lookup_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

describe('model mediation (Clawdapus cllama) on the gateway’s port', { timeout: 60_000 }, () => {
  it('runs the managed tool the model calls through the pipeline, as the agent, and hands the runner only the answer (OpenAI)', async () => {
    const answer = await openai().chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'Please add 2 and 40' }] });
    expect(answer.choices[0]!.message.content).toBe('The sum is 42.');
    expect(answer.choices[0]!.message.tool_calls ?? []).toEqual([]);
    const record = core.history.list({ agent: 'runner', via: 'mediation' }).items[0];
    expect(record).toMatchObject({ tool: 'get-sum', status: 'ok', agent: 'runner', via: 'mediation' });
    // The model saw the agent's managed tools under cllama's names, appended to the runner's own.
    const sent = mock.getRequests().at(-2)!.body as { tools: { function: { name: string } }[]; stream?: boolean };
    expect(sent.tools.map((tool) => tool.function.name).sort()).toEqual(['everything_echo', 'everything_get-sum']);
  });

  it('the same with the Anthropic format', async () => {
    const answer = await anthropic().messages.create({ model: 'claude/claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'Please add 2 and 40' }] });
    expect(answer.content.filter((block) => block.type === 'text').map((block) => (block as { text: string }).text).join('')).toBe('The sum is 42.');
    expect(answer.content.some((block) => block.type === 'tool_use')).toBe(false);
  });

  it('returns a call to the runner’s own tool unchanged', async () => {
    const answer = await openai().chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'What is the weather?' }], tools: [weatherTool] });
    expect(answer.choices[0]!.message.tool_calls?.map((call) => (call as { function: { name: string } }).function.name)).toEqual(['lookup_weather']);
  });

  it('managed first, native later: the managed prefix runs and the native suffix waits for the next round', async () => {
    const before = core.history.list({ agent: 'runner', tool: 'echo' }).items.length;
    const answer = await openai().chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'do both' }], tools: [weatherTool] });
    expect(answer.choices[0]!.message.tool_calls?.map((call) => (call as { function: { name: string } }).function.name)).toEqual(['lookup_weather']);
    expect(core.history.list({ agent: 'runner', tool: 'echo' }).items.length).toBe(before + 1);
  });

  it('native before managed: every call is answered mixed_tool_order (409) and the model plans again', async () => {
    const answer = await openai().chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'disorder' }], tools: [weatherTool] });
    expect(answer.choices[0]!.message.content).toMatch(/mixed_tool_order/);
  });

  it('replays a repeated call (same tool, same canonical arguments) instead of running it again', async () => {
    const before = core.history.list({ agent: 'runner', tool: 'get-sum' }).items.length;
    const answer = await openai().chat.completions.create({ model: 'mock/gpt-test', messages: [{ role: 'user', content: 'repeat' }] });
    expect(answer.choices[0]!.message.content).toBe('Done repeating.');
    expect(core.history.list({ agent: 'runner', tool: 'get-sum' }).items.length).toBe(before + 1);
    const turn = core.gateway.mediation.history('runner')[0]!;
    expect(turn.tool_trace.flatMap((round) => round.tool_calls).map((call) => call.duplicate ?? false)).toEqual([false, true]);
  });

  it('re-streams the terminal answer as chat.completion.chunks ending in [DONE] when the runner asked for a stream', async () => {
    const stream = await openai().chat.completions.create({ model: 'mock/gpt-test', stream: true, messages: [{ role: 'user', content: 'Please add 2 and 40' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('The sum is 42.');
  });

  it('passes a request through unchanged, streaming included, when the agent has no managed tools', async () => {
    const stream = await openai(stranger).chat.completions.create({ model: 'mock/gpt-test', stream: true, messages: [{ role: 'user', content: 'hello' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the model.');
  });

  it('serves an agent its own mediated turns, round by round, and nobody else’s', async () => {
    const own = await fetch(`${origin}/history/runner`, { headers: { authorization: `Bearer ${credential}` } });
    const turns = (await own.json()) as { agent: string; tool_trace: { round: number; tool_calls: { name: string }[] }[] }[];
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.every((turn) => turn.agent === 'runner')).toBe(true);
    expect(turns.some((turn) => turn.tool_trace.some((round) => round.tool_calls.some((call) => call.name === 'everything_get-sum')))).toBe(true);
    const other = await fetch(`${origin}/history/runner`, { headers: { authorization: `Bearer ${stranger}` } });
    expect(other.status).toBe(403);
  });

  it('bad input gets one clear sentence: a body that is not JSON, an unknown provider, no credential', async () => {
    const garbage = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' }, body: '{oops' });
    expect([garbage.status, ((await garbage.json()) as { error: { message: string } }).error.message]).toEqual([400, 'The body is not JSON.']);
    await expect(openai().chat.completions.create({ model: 'nowhere/gpt', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/configured provider \(.*mock.*\)/) });
    const anonymous = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
  });
});
