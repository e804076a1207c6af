import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startMediationBed, type MediationBed } from './testing/mediationBed';

/**
 * Model mediation against real parts (see `startMediationBed`): the official `openai` and
 * `@anthropic-ai/sdk` clients are the runner, pointed at the gateway's port with the agent's
 * credential. One test per behaviour of Clawdapus cllama's handler, in both wire formats.
 */
let bed: MediationBed;

beforeAll(async () => {
  bed = await startMediationBed();
}, 60_000);

afterAll(async () => {
  await bed?.close();
});

type Format = 'openai' | 'anthropic';
type Agent = keyof MediationBed['credentials'];
const MODEL: Record<Format, string> = { openai: 'mock/gpt-test', anthropic: 'claude/claude-test' };
const PATH: Record<Format, string> = { openai: '/v1/chat/completions', anthropic: '/v1/messages' };
type Turn = { role: 'user' | 'assistant'; content: string };

interface Asked {
  text: string;
  /** Calls of the runner's own tools handed back to it. */
  nativeCalls: string[];
}

/** The runner's request in either format: a prompt (or a history), optionally with its own weather tool. */
async function ask(format: Format, agent: Agent, prompt: string | Turn[], options: { native?: boolean; model?: string } = {}): Promise<Asked> {
  const messages = typeof prompt === 'string' ? [{ role: 'user' as const, content: prompt }] : prompt;
  const model = options.model ?? MODEL[format];
  if (format === 'openai') {
    const client = new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: bed.credentials[agent], maxRetries: 0 });
    const answer = await client.chat.completions.create({ model, messages, ...(options.native ? { tools: [{ type: 'function' as const, function: { name: 'lookup_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }] } : {}) });
    const message = answer.choices[0]!.message;
    return { text: message.content ?? '', nativeCalls: (message.tool_calls ?? []).map((call) => (call as { function: { name: string } }).function.name) };
  }
  const client = new Anthropic({ baseURL: bed.origin, apiKey: bed.credentials[agent], maxRetries: 0 });
  const answer = await client.messages.create({ model, max_tokens: 200, messages, ...(options.native ? { tools: [{ name: 'lookup_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }] } : {}) });
  return {
    text: answer.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
    nativeCalls: answer.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : [])),
  };
}

/** The raw SSE a runner that asked for a stream reads. */
async function streamed(format: Format, agent: Agent, prompt: string): Promise<string> {
  const answer = await fetch(`${bed.origin}${PATH[format]}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bed.credentials[agent]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL[format], stream: true, max_tokens: 100, messages: [{ role: 'user', content: prompt }] }),
  });
  expect(answer.headers.get('content-type')).toMatch(/text\/event-stream/);
  return answer.text();
}

/** Approvals the tests decided, so a test never takes an earlier one for its own. */
const decided = new Set<string>();
const latestTurn = (agent: Agent) => bed.core.mediation.history(agent)[0]!;
const calls = (agent: Agent) => latestTurn(agent).tool_trace.flatMap((round) => round.tool_calls);
const historyCount = async (agent: Agent, tool: string) => (await bed.core.history.list({ agent, tool })).items.length;
const lastSentToModel = () => JSON.stringify(bed.mock.getRequests().at(-1)!.body);

describe.each(['openai', 'anthropic'] as const)('model mediation (Clawdapus cllama) on the gateway’s port, %s format', { timeout: 60_000 }, (format) => {
  it('runs the managed tool the model calls through the pipeline, as the agent, and hands the runner only the answer', async () => {
    const before = await historyCount('runner', 'get-sum');
    const answer = await ask(format, 'runner', 'Please add 2 and 40');
    expect(answer).toEqual({ text: 'The sum is 42.', nativeCalls: [] });
    expect(await historyCount('runner', 'get-sum')).toBe(before + 1);
    expect((await bed.core.history.list({ agent: 'runner', via: 'mediation' })).items[0]).toMatchObject({ tool: 'get-sum', status: 'ok', agent: 'runner', via: 'mediation' });
    // The model saw the agent's managed tools under cllama's names, appended to the runner's own, without streaming.
    const sent = bed.mock.getRequests().at(-2)!.body as { tools: ({ function?: { name: string } } & { name?: string })[]; stream?: boolean };
    expect(sent.tools.map((tool) => tool.function?.name ?? tool.name).sort()).toEqual(['everything_echo', 'everything_get-sum']);
    expect(sent.stream).toBe(false);
  });

  it('returns a call to the runner’s own tool unchanged', async () => {
    expect(await ask(format, 'runner', 'What is the weather?', { native: true })).toMatchObject({ nativeCalls: ['lookup_weather'] });
  });

  it('managed first, native later: the managed prefix runs and the native suffix waits for the next round', async () => {
    const before = await historyCount('runner', 'echo');
    expect(await ask(format, 'runner', 'do both', { native: true })).toMatchObject({ nativeCalls: ['lookup_weather'] });
    expect(await historyCount('runner', 'echo')).toBe(before + 1);
    expect(latestTurn('runner').tool_trace[0]!.note).toMatch(/native calls held back this round: lookup_weather/);
  });

  it('native before managed: every call is answered mixed_tool_order (409) and the model plans again', async () => {
    const before = await historyCount('runner', 'echo');
    const answer = await ask(format, 'runner', 'disorder', { native: true });
    expect(answer.text).toMatch(/mixed_tool_order/);
    expect(await historyCount('runner', 'echo')).toBe(before);
  });

  it('replays a repeated call (same tool, same canonical arguments) instead of running it again', async () => {
    const before = await historyCount('runner', 'get-sum');
    expect((await ask(format, 'runner', 'repeat')).text).toMatch(/^Done repeating: .*2/);
    expect(await historyCount('runner', 'get-sum')).toBe(before + 1);
    expect(calls('runner').map((call) => call.duplicate ?? false)).toEqual([false, true]);
  });

  it('rejects a repeated call with duplicate_tool_call when the agent’s tools-policy says reject', async () => {
    const before = await historyCount('strict', 'get-sum');
    expect((await ask(format, 'strict', 'repeat')).text).toMatch(/duplicate_tool_call/);
    expect(await historyCount('strict', 'get-sum')).toBe(before + 1);
    expect(calls('strict')[1]).toMatchObject({ duplicate: true, status: 'error', policy: 'reject', duplicate_of_round: 1 });
  });

  it('after three repeats in a row the model is asked to finish without tools', async () => {
    expect((await ask(format, 'runner', 'circles')).text).toBe('Stopped going round.');
    const trace = latestTurn('runner').tool_trace;
    expect(trace.flatMap((round) => round.tool_calls).filter((call) => call.duplicate)).toHaveLength(3);
    expect(trace.at(-1)!.note).toMatch(/duplicate streak of 3/);
  });

  it('max_rounds spent: tool_budget_exhausted and one last call without tools', async () => {
    expect((await ask(format, 'strict', 'loop')).text).toBe('Out of budget.');
    const trace = latestTurn('strict').tool_trace;
    expect(trace).toHaveLength(3);
    expect(trace.at(-1)!.note).toMatch(/tool_budget_exhausted: max_rounds \(2\)/);
    expect(lastSentToModel()).not.toMatch(/"tools"/);
  });

  it('cuts a result over 16,384 bytes and says so (truncated, original_bytes)', async () => {
    expect((await ask(format, 'runner', 'long echo please')).text).toBe('Read the long echo.');
    const result = JSON.parse(calls('runner')[0]!.result) as { ok: boolean; truncated: boolean; original_bytes: number; data: string };
    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.original_bytes).toBeGreaterThan(20_000);
    expect(Buffer.byteLength(result.data)).toBeLessThanOrEqual(16_384);
    expect(lastSentToModel()).toMatch(/truncated/);
  });

  it('puts the hidden managed rounds back into the runner’s next request (continuity)', async () => {
    const first = await ask(format, 'runner', 'Please add 2 and 40');
    await ask(format, 'runner', [{ role: 'user', content: 'Please add 2 and 40' }, { role: 'assistant', content: first.text }, { role: 'user', content: 'hello again' }]);
    expect(latestTurn('runner').continuity_injected).toBe(2);
    const sent = (bed.mock.getRequests().at(-1)!.body as { messages: { role: string; content: unknown; tool_calls?: unknown[] }[] }).messages;
    // (aimock's journal holds both formats in OpenAI's roles.)
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(JSON.stringify(sent[1])).toMatch(/everything_get-sum/);
    expect(JSON.stringify(sent[2])).toMatch(/42/);
  });

  it('re-streams the terminal answer as the format’s events, with keep-alive comments while rounds run', async () => {
    const text = await streamed(format, 'runner', 'Please add 2 and 40');
    expect(text).toContain(': managed tool round 1 waiting on model');
    expect(text).toContain(': managed tool round 1 executing everything_get-sum');
    if (format === 'openai') {
      expect(text).toContain('"object":"chat.completion.chunk"');
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    } else {
      expect(text).toContain('event: content_block_delta');
      expect(text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
    }
    expect(text).toContain('The sum is 42.');
  });

  it('passes a request through unchanged, streaming included, when the agent has no managed tools', async () => {
    const text = await streamed(format, 'stranger', 'hello');
    // The provider's own stream, chunked as it chunks it.
    const pieces = [...text.matchAll(format === 'openai' ? /"content":"([^"]*)"/g : /"text":"([^"]*)"/g)].map((match) => match[1]).join('');
    expect(pieces).toContain('Hello from the model.');
    expect(text).not.toContain(': managed tool round');
    expect(bed.core.mediation.history('stranger')).toEqual([]);
  });

  it('a provider that answers 500, or garbage, is a 502 with one sentence; the turn is recorded as failed', async () => {
    const prefix = format === 'openai' ? '' : 'a-';
    await expect(ask(format, 'runner', 'Please add 2 and 40', { model: `${prefix}broken/m` })).rejects.toMatchObject({ status: 502, message: expect.stringMatching(/answered 500/) });
    expect(latestTurn('runner')).toMatchObject({ status: 'error', error: expect.stringMatching(/answered 500/) });
    await expect(ask(format, 'runner', 'Please add 2 and 40', { model: `${prefix}garbage/m` })).rejects.toMatchObject({ status: 502, message: expect.stringMatching(/not JSON/) });
  });

  it('an approval_required call waits for a person: approved, it runs; denied, the model reads the denial', async () => {
    // The approval of this very call: pending, for careful, and none decided before it (in either format's run).
    const pendingFor = async () =>
      vi.waitFor(async () => {
        const found = (await bed.core.approvals.list()).find((approval) => approval.status.phase === 'Pending' && approval.spec.agent === 'careful' && !decided.has(approval.metadata.name));
        expect(found).toBeDefined();
        return found!;
      }, { timeout: 20_000 });
    const approved = ask(format, 'careful', 'Please add 2 and 40');
    const held = await pendingFor();
    expect(held.spec).toMatchObject({ tool: 'mcp:everything.get-sum', input: { a: 2, b: 40 }, reason: expect.stringMatching(/careful-sums-need-approval/) });
    decided.add(held.metadata.name);
    await bed.core.approvals.decide(held.metadata.name, 'approve', 'ops', 'fine');
    expect((await approved).text).toBe('The sum is 42.');
    const denied = ask(format, 'careful', 'Please add 2 and 40');
    const next = await pendingFor();
    decided.add(next.metadata.name);
    await bed.core.approvals.decide(next.metadata.name, 'deny', 'ops', 'not now');
    expect((await denied).text).toBe('The sum is unknown.');
    expect(JSON.parse(calls('careful')[0]!.result)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/denied/i) } });
  });

  it('an error after the stream began arrives as the format’s error event', async () => {
    const prefix = format === 'openai' ? '' : 'a-';
    const answer = await fetch(`${bed.origin}${PATH[format]}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bed.credentials.runner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: `${prefix}broken/m`, stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'Please add 2 and 40' }] }),
    });
    const text = await answer.text();
    expect(answer.status).toBe(200);
    expect(text).toMatch(format === 'openai' ? /data: \{"error":\{"message":"The model provider answered 500/ : /event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"The model provider answered 500/);
  });

  it('an answer without end is cut off at 32 MiB with a 502, memory bounded', async () => {
    const prefix = format === 'openai' ? '' : 'a-';
    await expect(ask(format, 'runner', 'Please add 2 and 40', { model: `${prefix}endless/m` })).rejects.toMatchObject({ status: 502, message: expect.stringMatching(/over 32 MiB/) });
  });

  it('a provider that hangs past the total timeout is a 502 naming the timeout', async () => {
    const prefix = format === 'openai' ? '' : 'a-';
    await expect(ask(format, 'hasty', 'Please add 2 and 40', { model: `${prefix}stuck/m` })).rejects.toMatchObject({ status: 502, message: expect.stringMatching(/total timeout \(2000 ms\)/) });
  });

  it('an unknown provider is a 400 naming the configured ones; a body that is not JSON is a 400', async () => {
    await expect(ask(format, 'runner', 'hi', { model: 'nowhere/gpt' })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/configured provider \(.*mock.*claude.*\)/) });
    const garbage = await fetch(`${bed.origin}${PATH[format]}`, { method: 'POST', headers: { authorization: `Bearer ${bed.credentials.runner}`, 'content-type': 'application/json' }, body: '{oops' });
    expect([garbage.status, ((await garbage.json()) as { error: { message: string } }).error.message]).toEqual([400, 'The body is not JSON.']);
  });
});

describe('the mediation endpoints’ callers', () => {
  it('serves an agent its own mediated turns, round by round, and nobody else’s', async () => {
    await ask('openai', 'runner', 'Please add 2 and 40');
    const own = await fetch(`${bed.origin}/history/runner`, { headers: { authorization: `Bearer ${bed.credentials.runner}` } });
    const turns = (await own.json()) as { agent: string; tool_trace: { round: number; tool_calls: { name: string }[] }[] }[];
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.every((turn) => turn.agent === 'runner')).toBe(true);
    expect(turns.some((turn) => turn.tool_trace.some((round) => round.tool_calls.some((call) => call.name === 'everything_get-sum')))).toBe(true);
    const other = await fetch(`${bed.origin}/history/runner`, { headers: { authorization: `Bearer ${bed.credentials.stranger}` } });
    expect(other.status).toBe(403);
  });

  it('no credential is a 401, a wrong secret a 403, each with cllama’s error body', async () => {
    const anonymous = await fetch(`${bed.origin}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
    const wrong = await fetch(`${bed.origin}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'runner:not-the-secret' }, body: '{}' });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toEqual(expect.any(String));
  });
});
