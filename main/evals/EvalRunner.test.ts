import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LLMock } from '@copilotkit/aimock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { EvalSuite } from '../../shared/evals';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { NOT_EXECUTED } from '../mediation/Mediation';
import { prepareEval, runEvalSuite, type EvalRunnerDeps } from './EvalRunner';
import { Evals } from './Evals';
import type { PlaygroundEvent } from './Playground';
import { listProviderModels } from './providerModels';
import { startScriptedModels } from './testing/scriptedModels';

/** Eval suites through the mediation engine against real parts: server-everything and aimock (OpenAI and Anthropic formats). */
const pod = `services:
  runner:
    image: example/runner
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [get-sum, echo]
`;

const suite = EvalSuite.parse({
  name: 'sums',
  agent: 'runner',
  cases: [{ name: 'adds', prompt: 'Please add 2 and 40', expect: { toolCalls: [{ tool: 'everything.get-sum', arguments: { a: 'number', b: 40 } }], finalAnswerContains: '42' } }],
});

let core: Core;
let mock: LLMock;
let deps: EvalRunnerDeps;

beforeAll(async () => {
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-evals-ws-'));
  writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
  core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-evals-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  await vi.waitFor(() => expect(core.catalog.resolve('mcp:everything.get-sum')).toBeDefined(), { timeout: 30_000 });
  const models = await startScriptedModels();
  mock = models.mock;
  await core.providers.add({ name: 'mock', format: 'openai', baseUrl: `${models.url}/v1`, apiKey: 'sk-test' });
  await core.providers.add({ name: 'claude', format: 'anthropic', baseUrl: models.url, apiKey: 'sk-ant-test' });
  deps = core.evals.runnerDeps;
}, 60_000);

afterAll(async () => {
  await mock?.stop();
  await core?.close();
});

describe('eval suites on the mediation engine', { timeout: 60_000 }, () => {
  it('runs each case per model and iteration: the model that picks the right tool passes, the one that picks another fails', async () => {
    const report = await runEvalSuite(deps, suite, { models: ['mock/right', 'mock/wrong', 'claude/right'], iterations: 2 });
    expect(report.cases.map((item) => [item.name, item.model, item.pass_rate, item.passed, item.runs.length])).toEqual([
      ['adds', 'mock/right', 1, true, 2],
      ['adds', 'mock/wrong', 0, false, 2],
      ['adds', 'claude/right', 1, true, 2],
    ]);
    expect(report.accuracy).toBeCloseTo(4 / 6);
    const [run] = report.cases[0]!.runs;
    expect(run).toMatchObject({ passed: true, failures: [], answer: 'The sum is 42.', rounds: 2, tokens: { prompt: 22, completion: 14 } });
    expect(run!.tool_calls).toMatchObject([{ tool: 'mcp:everything.get-sum', name: 'everything_get-sum', arguments: { a: 2, b: 40 }, status: 'ok' }]);
    expect(report.cases[1]!.runs[0]!.failures[0]).toMatch(/^Expected everything\.get-sum .*; the model called mcp:everything\.echo/);
    // Every call went through the pipeline as the operator via eval, and is in history.
    const record = await core.history.get(run!.tool_calls[0]!.record_id!);
    expect(record).toMatchObject({ tool: 'get-sum', via: 'eval', status: 'ok' });
  });

  it('execute: false answers calls with the placeholder and runs nothing', async () => {
    const before = (await core.history.list({ via: 'eval' })).items.length;
    const report = await runEvalSuite(deps, suite, { models: ['mock/right'], execute: false });
    expect((await core.history.list({ via: 'eval' })).items.length).toBe(before);
    const run = report.cases[0]!.runs[0]!;
    expect(run.tool_calls[0]!.result).toBe(NOT_EXECUTED);
    // The answer depends on the tool's result, so the case fails on finalAnswerContains only.
    expect(run.failures).toEqual(['The final answer does not contain "42".']);
    expect(report.executed).toBe(false);
  });

  it('hand-picked registry entries replace the agent’s grants', async () => {
    const picked = EvalSuite.parse({ name: 'echo only', tools: ['mcp:everything.echo'], cases: [{ name: 'echoes', prompt: 'add 2 and 40', expect: { toolCalls: [{ tool: 'echo' }] } }] });
    const report = await runEvalSuite(deps, picked, { models: ['mock/wrong'] });
    expect(report.cases[0]!.passed).toBe(true);
    const sent = mock.getRequests().at(-2)!.body as { tools: { function: { name: string } }[] };
    expect(sent.tools.map((tool) => tool.function.name)).toEqual(['everything_echo']);
  });

  it('refuses bad input before any model is asked, one sentence each', async () => {
    const asked = mock.getRequests().length;
    await expect(prepareEval(deps, suite, ['nowhere/gpt'])).rejects.toThrow(/^The model "nowhere\/gpt" must be <provider>\/<model> with a configured provider \(mock, claude\)\.$/);
    await expect(prepareEval(deps, suite, ['mock'])).rejects.toThrow(/must be <provider>\/<model>/);
    await expect(prepareEval(deps, suite, [])).rejects.toThrow('Name at least one model');
    await expect(prepareEval(deps, EvalSuite.parse({ ...suite, agent: 'nobody' }), ['mock/right'])).rejects.toThrow('agent nobody has no tools granted');
    await expect(prepareEval(deps, EvalSuite.parse({ ...suite, agent: undefined, tools: ['mcp:everything.nope'] }), ['mock/right'])).rejects.toThrow('mcp:everything.nope is not in the registry');
    expect(mock.getRequests().length).toBe(asked);
  });
});

describe('the playground on the same engine', { timeout: 60_000 }, () => {
  it('a turn shows each round’s tool calls as they finish, then the answer with tokens; its calls are in History via playground', async () => {
    const events: PlaygroundEvent[] = [];
    await core.playground.turn({ model: 'claude/right', agent: 'runner', messages: [{ role: 'user', content: 'Please add 2 and 40' }], conversationId: 'conversation-1' }, (event) => events.push(event));
    expect(events.filter((event) => event.type === 'progress').map((event) => event.line)).toEqual(['managed tool round 1 waiting on model', 'managed tool round 1 executing everything_get-sum', 'managed tool round 2 waiting on model']);
    const shown = events.filter((event) => event.type !== 'progress');
    expect(shown.map((event) => event.type)).toEqual(['round', 'round', 'answer']);
    const [first] = shown as Extract<PlaygroundEvent, { type: 'round' }>[];
    expect(first!.round.tool_calls).toMatchObject([{ name: 'everything_get-sum', tool: 'mcp:everything.get-sum', arguments: { a: 2, b: 40 }, status: 'ok' }]);
    expect(shown[2]).toMatchObject({ type: 'answer', answer: 'The sum is 42.', tokens: { prompt: 22, completion: 14 } });
    expect(await core.history.get(first!.round.tool_calls[0]!.record_id!)).toMatchObject({ via: 'playground', tool: 'get-sum' });
    await expect(core.playground.turn({ model: 'nowhere/x', agent: 'runner', messages: [{ role: 'user', content: 'hi' }], conversationId: 'c' }, () => undefined)).rejects.toThrow(/configured provider \(mock, claude\)/);
  });

  it('Save as eval case: the turn’s calls become the case’s expectation, in a new suite file or appended to one, and the suite passes for that model', async () => {
    const toolCalls = [{ tool: 'mcp:everything.get-sum', name: 'everything_get-sum', service: 'everything', arguments: { a: 2, b: 40 } }];
    await core.playground.saveCase({ file: 'evals/playground.yml', caseName: 'adds', prompt: 'Please add 2 and 40', toolCalls, agent: 'runner' });
    const second = await core.playground.saveCase({ file: 'evals/playground.yml', caseName: 'adds', prompt: 'add 2 and 40 again', toolCalls, agent: 'runner' });
    expect(second.caseName).toBe('adds (2)');
    await vi.waitFor(() => expect(core.evals.suites().find((item) => item.file === 'evals/playground.yml')?.suite?.cases.length).toBe(2));
    const saved = core.evals.suites().find((item) => item.file === 'evals/playground.yml')!.suite!;
    expect(saved).toMatchObject({ name: 'playground', agent: 'runner', cases: [{ name: 'adds', prompt: 'Please add 2 and 40', expect: { toolCalls: [{ tool: 'everything.get-sum', arguments: { a: 2, b: 40 } }], order: 'strict' } }, { name: 'adds (2)' }] });
    const report = await runEvalSuite(deps, saved, { models: ['mock/right', 'mock/wrong'] });
    expect(report.cases.map((item) => item.passed)).toEqual([true, false, true, false]);
    await expect(core.playground.saveCase({ file: 'elsewhere.yml', caseName: 'x', prompt: 'p', toolCalls })).rejects.toThrow('evals/ folder');
  });
});

describe('definitions meet evals', { timeout: 60_000 }, () => {
  it('runs the suites that use a tool with its approved and its pending definition, side by side: a description change makes the model pick another tool', async () => {
    const workspace = core.resources.workspace;
    await mkdir(join(workspace.dir, 'evals'), { recursive: true });
    await workspace.save({ path: 'evals/drift.yml', expectedVersion: null, text: 'name: drift\nagent: runner\ncases:\n  - name: adds\n    prompt: add 2 and 40\n    expect:\n      toolCalls: [{ tool: get-sum }]\n' });
    expect(core.evals.suites().find((item) => item.file === 'evals/drift.yml')?.suite?.name).toBe('drift');
    const current = core.catalog.get('mcp:everything.get-sum')!;
    // The pending definition (as a changed server would serve it) no longer speaks of a sum.
    const evals = new Evals({
      runTurn: (input) => core.mediation.runTurn(input),
      providers: () => core.providers.list(),
      resolveTool: (name) => core.catalog.get(name),
      granted: (agent, caller) => core.agents.grants.granted(agent, caller),
      suites: () => core.evals.suites().filter((item) => item.file === 'evals/drift.yml'),
      definitions: () => ({ approved: { name: 'get-sum', description: current.description, inputSchema: current.inputSchema }, current: { name: 'get-sum', description: 'Returns two numbers together.', inputSchema: current.inputSchema } }),
    });
    const comparison = await evals.compareDefinitions({ tool: 'mcp:everything.get-sum', models: ['mock/reader'] });
    expect(comparison.suites.map((item) => [item.file, item.approved.cases.map((result) => result.pass_rate), item.pending.cases.map((result) => result.pass_rate)])).toEqual([['evals/drift.yml', [1], [0]]]);
    expect(comparison.suites[0]!.pending.cases[0]!.runs[0]!.tool_calls[0]!.tool).toBe('mcp:everything.echo');
    expect(comparison.suites[0]!.approved.executed).toBe(false);
    // The lock's own comparison feeds the console's: an unchanged tool compares equal definitions.
    const real = await core.evals.compareDefinitions({ tool: 'mcp:everything.get-sum', models: ['mock/reader'] });
    expect(real.suites.find((item) => item.file === 'evals/drift.yml')!.pending.cases[0]!.pass_rate).toBe(1);
  });
});

describe('under policy', { timeout: 60_000 }, () => {
  it('an eval’s call obeys the operator’s ToolPermissions: a denied tool is refused, recorded via eval, and the run shows policy_denied', async () => {
    const workspace = core.resources.workspace;
    await workspace.save({ path: 'deny-sums.yaml', expectedVersion: null, text: 'apiVersion: orloj.dev/v1\nkind: ToolPermission\nmetadata:\n  name: no-sums\nspec:\n  tool_ref: everything--get-sum\n  operation_rules:\n    - {operation_class: "*", verdict: deny}\n' });
    try {
      await vi.waitFor(() => expect(core.resources.permissions().some((permission) => permission.name === 'no-sums')).toBe(true), { timeout: 20_000 });
      const picked = EvalSuite.parse({ name: 'sums by hand', tools: ['mcp:everything.get-sum'], cases: [{ name: 'adds', prompt: 'Please add 2 and 40', expect: { toolCalls: [{ tool: 'get-sum' }] } }] });
      const report = await runEvalSuite(deps, picked, { models: ['mock/right'] });
      const call = report.cases[0]!.runs[0]!.tool_calls[0]!;
      expect(call).toMatchObject({ status: 'error', result: expect.stringContaining('policy_denied') });
      expect(await core.history.get(call.record_id!)).toMatchObject({ status: 'denied', via: 'eval' });
    } finally {
      await workspace.delete({ path: 'deny-sums.yaml', expectedVersion: workspace.read('deny-sums.yaml').version ?? undefined });
    }
  });
});

describe('the playground asks inline', { timeout: 60_000 }, () => {
  it('a call policy holds for approval shows in the turn and waits: approved it runs, denied it ends as denied', async () => {
    const workspace = core.resources.workspace;
    await workspace.save({ path: 'ask-sums.yaml', expectedVersion: null, text: 'apiVersion: orloj.dev/v1\nkind: ToolPermission\nmetadata:\n  name: ask-sums\nspec:\n  tool_ref: everything--get-sum\n  operation_rules:\n    - {operation_class: "*", verdict: approval_required}\n' });
    try {
      await vi.waitFor(() => expect(core.resources.permissions().some((permission) => permission.name === 'ask-sums')).toBe(true), { timeout: 20_000 });
      for (const approve of [true, false]) {
        const events: PlaygroundEvent[] = [];
        await core.playground.turn({ model: 'mock/right', tools: ['mcp:everything.get-sum'], messages: [{ role: 'user', content: 'Please add 2 and 40' }], conversationId: `ask-${approve}` }, (event) => {
          events.push(event);
          if (event.type === 'approval') core.playground.decide(event.id, approve);
        });
        const asked = events.find((event) => event.type === 'approval');
        expect(asked).toMatchObject({ tool: 'mcp:everything.get-sum', arguments: { a: 2, b: 40 }, reasons: [expect.stringContaining('ask-sums')] });
        const call = events.flatMap((event) => (event.type === 'round' ? event.round.tool_calls : []))[0]!;
        expect(call.status).toBe(approve ? 'ok' : 'error');
        expect(await core.history.get(call.record_id!)).toMatchObject({ via: 'playground', status: approve ? 'ok' : 'denied' });
      }
      // Nothing waits in the approvals book: the playground decided inline.
      expect(() => core.playground.decide('00000000-0000-4000-8000-000000000000', true)).toThrow('no longer waiting');
    } finally {
      await workspace.delete({ path: 'ask-sums.yaml', expectedVersion: workspace.read('ask-sums.yaml').version ?? undefined });
    }
  });
});

describe('evals never wait for a person', { timeout: 60_000 }, () => {
  it('a call policy holds for approval is refused at once, saying why; with execute: false nothing is asked', async () => {
    const workspace = core.resources.workspace;
    await workspace.save({ path: 'ask-evals.yaml', expectedVersion: null, text: 'apiVersion: orloj.dev/v1\nkind: ToolPermission\nmetadata:\n  name: ask-evals\nspec:\n  tool_ref: everything--get-sum\n  operation_rules:\n    - {operation_class: "*", verdict: approval_required}\n' });
    try {
      await vi.waitFor(() => expect(core.resources.permissions().some((permission) => permission.name === 'ask-evals')).toBe(true), { timeout: 20_000 });
      const picked = EvalSuite.parse({ name: 'held sums', tools: ['mcp:everything.get-sum'], cases: [{ name: 'adds', prompt: 'Please add 2 and 40', expect: { toolCalls: [{ tool: 'get-sum' }] } }] });
      const report = await runEvalSuite(deps, picked, { models: ['mock/right'] });
      const call = report.cases[0]!.runs[0]!.tool_calls[0]!;
      expect(call.status).toBe('error');
      expect(call.result).toContain('an eval does not wait for a person');
      expect((await core.approvals.list()).filter((approval) => approval.status.phase === 'Pending')).toEqual([]);
      expect((await runEvalSuite(deps, picked, { models: ['mock/right'], execute: false })).cases[0]!.passed).toBe(true);
    } finally {
      await workspace.delete({ path: 'ask-evals.yaml', expectedVersion: workspace.read('ask-evals.yaml').version ?? undefined });
    }
  });
});

describe('the model pickers', { timeout: 60_000 }, () => {
  it('offer each provider’s listed models; a provider that lists none says why', async () => {
    const lists = await listProviderModels({ providers: async () => [...(await core.providers.list()), { name: 'gone', format: 'openai', baseUrl: 'http://127.0.0.1:9/v1' }], apiKey: (name) => core.providers.apiKey(name) });
    expect(lists.find((item) => item.provider === 'mock')!.models).toEqual(expect.arrayContaining(['right', 'wrong']));
    expect(lists.find((item) => item.provider === 'claude')!.models).toEqual(expect.arrayContaining(['right']));
    expect(lists.find((item) => item.provider === 'gone')).toMatchObject({ models: [], error: expect.stringContaining('could not be read') });
  });
});
