import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import type { ToolSource } from '../../shared/invocation';
import type { ToolResult } from '../../shared/registry';
import { createToolEntry, type ToolConfig } from './createToolEntry';
import { FakeClock } from '../platform/testing/FakeClock';
import { FakeExecutor, type FakeCall } from './testing/FakeExecutor';
import { InvocationPipeline, type InvocationPipelineOptions } from './InvocationPipeline';
import { MemoryInvocationRecorder } from './testing/MemoryInvocationRecorder';
import { SecretRedactor } from '../platform/SecretRedactor';
import type { ToolPermission } from './policy/ToolPermission';
import { ToolCatalog } from './ToolCatalog';
import { agentCaller, operatorCaller } from '../../shared/caller';
import { ToolMetrics } from '../metrics/ToolMetrics';

const github: ToolSource = { kind: 'mcp', name: 'github' };
const issueSchema = {
  type: 'object',
  properties: { owner: { type: 'string' }, repo: { type: 'string' }, title: { type: 'string', minLength: 1 }, labels: { type: 'array', items: { type: 'string' } } },
  required: ['owner', 'repo', 'title'],
  additionalProperties: false,
};
const ok = (text = 'done'): ToolResult => ({ content: [{ type: 'text', text }] });
const never = () => new Promise<ToolResult>(() => {});

function setup(behave?: (call: FakeCall) => Promise<ToolResult> | ToolResult, config?: ToolConfig, options: Partial<InvocationPipelineOptions> = {}) {
  const catalog = new ToolCatalog();
  const executor = new FakeExecutor(behave);
  catalog.replaceSource(
    github,
    [
      createToolEntry({ source: github, tool: { name: 'create_issue', inputSchema: issueSchema }, config }),
      createToolEntry({ source: github, tool: { name: 'delete_repo', annotations: { destructiveHint: true } }, config }),
      createToolEntry({ source: github, tool: { name: 'search_code', annotations: { readOnlyHint: true } }, config }),
    ],
    executor,
  );
  const clock = new FakeClock();
  const recorder = new MemoryInvocationRecorder();
  let ids = 0;
  const pipeline = new InvocationPipeline({ catalog, clock, recorder, random: () => 0.5, newId: () => `inv-${++ids}`, ...options });
  return { catalog, executor, clock, recorder, pipeline };
}

const issue = { owner: 'acme', repo: 'deck', title: 'Crash on start' };

describe('InvocationPipeline', () => {
  it('runs a valid call and records it once', async () => {
    const { pipeline, executor, recorder, clock } = setup(({ ctx }) => {
      expect(ctx.attempt).toBe(1);
      return new Promise((resolve) => clock.setTimeout(() => resolve(ok('found 3')), 120));
    });
    const args = { query: 'crash', token: 'ghp_secret' };
    const pending = pipeline.invoke({ name: 'mcp:github.search_code', arguments: args, caller: operatorCaller('run', { runId: 'run-1' }), replayOf: 'inv-0' });
    await clock.advance(120);
    const outcome = await pending;

    expect(executor.calls).toHaveLength(1);
    expect(outcome.error).toBeUndefined();
    expect(outcome.result).toEqual(ok('found 3'));
    expect(outcome.verdict).toEqual({ verdict: 'allow', reasons: ['no permission rule covers read; allowed by default'], rules: [] });
    expect(outcome.record).toEqual({
      id: 'inv-1',
      startedAt: 0,
      sourceKind: 'mcp',
      sourceName: 'github',
      tool: 'search_code',
      argumentsJson: JSON.stringify({ query: 'crash', token: '***' }),
      status: 'ok',
      latencyMs: 120,
      requestBytes: Buffer.byteLength(JSON.stringify(args)),
      responseBytes: Buffer.byteLength(JSON.stringify(ok('found 3'))),
      resultPreview: 'found 3',
      truncated: false,
      attempts: 1,
      replayOf: 'inv-0',
      runId: 'run-1',
      via: 'run',
      // Every call is a trace of its own (W3C trace context).
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(recorder.list()).toEqual([outcome.record]);
  });

  it('records who called and how, and the metrics fed from the records carry it as labels', async () => {
    const metrics = new ToolMetrics();
    const recorder = new MemoryInvocationRecorder();
    const { pipeline } = setup(() => ok(), undefined, { recorder: { record: (record) => (recorder.record(record), metrics.observe(record)) } });
    try {
      const byAgent = await pipeline.invoke({ caller: agentCaller('planner-bot', 'gateway', { sessionId: 's-1' }), name: 'mcp:github.search_code', arguments: {} });
      const inRun = await pipeline.invoke({ caller: operatorCaller('run', { runId: 'run-9' }), name: 'mcp:github.search_code', arguments: {} });
      const unknown = await pipeline.invoke({ caller: agentCaller('planner-bot', 'bus'), name: 'mcp:github.nothing', arguments: {} });
      expect(byAgent.record).toMatchObject({ via: 'gateway', agent: 'planner-bot', status: 'ok' });
      expect(inRun.record).toMatchObject({ via: 'run', runId: 'run-9' });
      expect(Object.keys(inRun.record)).not.toContain('agent');
      // A call that never reached a tool still says who made it.
      expect(unknown.record).toMatchObject({ via: 'bus', agent: 'planner-bot', errorCode: 'ToolNotFound' });
      expect(recorder.list().map((r) => [r.via, r.agent ?? null])).toEqual([
        ['bus', 'planner-bot'],
        ['run', null],
        ['gateway', 'planner-bot'],
      ]);

      const { url } = await metrics.startPrometheus({ port: 0 });
      const text = await (await fetch(url)).text();
      expect(text).toContain('tool_invocations_total{tool_name="search_code",source="mcp:github",status="ok",via="gateway",agent="planner-bot",otel_scope_name="tooldeck"} 1');
      expect(text).toContain('tool_invocations_total{tool_name="search_code",source="mcp:github",status="ok",via="run",otel_scope_name="tooldeck"} 1');
      expect(text).toContain('tool_invoke_duration_count{tool_name="nothing",source="mcp:github",status="error",via="bus",agent="planner-bot",otel_scope_name="tooldeck"} 1');
    } finally {
      await metrics.shutdown();
    }
  });

  it('judges each call with its caller: a permission scoped to an agent refuses that agent and lets the operator through', async () => {
    const scoped: ToolPermission[] = [{ name: 'planner-hands-off', toolRef: 'mcp:github.*', operationRules: [{ operationClass: '*', verdict: 'deny' }], targetAgents: ['planner-bot'] }];
    const { pipeline, executor } = setup(() => ok(), undefined, { permissions: () => scoped });
    const byAgent = await pipeline.invoke({ caller: agentCaller('planner-bot', 'gateway'), name: 'mcp:github.create_issue', arguments: issue });
    expect(byAgent.record).toMatchObject({ status: 'denied', errorCode: 'PolicyDenied', agent: 'planner-bot', via: 'gateway' });
    expect(byAgent.error?.message).toBe('Policy denies mcp:github.create_issue: planner-hands-off: read → deny.');
    const byOperator = await pipeline.invoke({ caller: operatorCaller('ui'), name: 'mcp:github.create_issue', arguments: issue });
    expect(byOperator.record.status).toBe('ok');
    expect(executor.calls).toHaveLength(1);
  });

  it('answers an unknown tool with ToolNotFound (not retryable) and records it', async () => {
    const { pipeline, recorder, executor } = setup();
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.close_issue', arguments: {} });
    expect(outcome.error).toEqual({ code: 'ToolNotFound', message: 'No tool named mcp:github.close_issue is registered.', retryable: false });
    expect(outcome.verdict).toBeUndefined();
    expect(outcome.record).toMatchObject({ status: 'error', errorCode: 'ToolNotFound', sourceKind: 'mcp', sourceName: 'github', tool: 'close_issue', attempts: 0 });
    expect(recorder.size).toBe(1);
    expect(executor.calls).toHaveLength(0);
  });

  it('rejects a name that is not <kind>:<source>.<tool> at all', async () => {
    const { pipeline } = setup();
    await expect(pipeline.invoke({ caller: operatorCaller('cli'), name: 'create_issue' })).rejects.toMatchObject({ code: 'InvalidInput' });
  });

  it('validates arguments against the input schema and lists every failing path', async () => {
    const { pipeline, executor } = setup();
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: { owner: 7, title: '', labels: ['ok', 3], extra: true } });
    expect(executor.calls).toHaveLength(0);
    expect(outcome.record.status).toBe('error');
    expect(outcome.error?.code).toBe('InvalidArguments');
    expect(outcome.error?.retryable).toBe(false);
    expect(outcome.error?.message).toBe(
      'Invalid arguments for mcp:github.create_issue: /repo is required; /extra is not allowed; /owner must be string; /title must NOT have fewer than 1 characters; /labels/1 must be string.',
    );
  });

  it('checks formats (ajv-formats) and the 2020-12 dialect', async () => {
    const catalog = new ToolCatalog();
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    };
    catalog.replaceSource(github, [createToolEntry({ source: github, tool: { name: 'invite', inputSchema: schema } })], new FakeExecutor());
    const pipeline = new InvocationPipeline({ catalog });
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.invite', arguments: { email: 'a@b.co', pair: ['x', 1] } })).record.status).toBe('ok');
    const bad = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.invite', arguments: { email: 'nope', pair: [1, 'x'] } });
    expect(bad.error?.message).toMatch(/\/email must match format "email"; \/pair\/0 must be string; \/pair\/1 must be number/);
  });

  describe('policy', () => {
    const guard: ToolPermission[] = [
      { name: 'no-deletes', toolRef: 'mcp:github.delete_repo', operationRules: [{ operationClass: 'delete', verdict: 'deny' }] },
      { name: 'confirm-issues', toolRef: 'mcp:github.create_issue', operationRules: [{ operationClass: '*', verdict: 'confirm' }] },
    ];

    it('records a denied call as denied and never runs it', async () => {
      const { pipeline, executor } = setup(undefined, undefined, { permissions: () => guard });
      const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.delete_repo' });
      expect(executor.calls).toHaveLength(0);
      expect(outcome.record).toMatchObject({ status: 'denied', errorCode: 'PolicyDenied', attempts: 0 });
      expect(outcome.error?.message).toBe('Policy denies mcp:github.delete_repo: no-deletes: delete → deny.');
      expect(outcome.verdict?.verdict).toBe('deny');
    });

    it('asks for confirmation, and runs once the caller confirms', async () => {
      const { pipeline, executor } = setup(undefined, undefined, { permissions: () => guard });
      const first = await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: issue, caller: operatorCaller('run', { runId: 'r' }) });
      expect(first.record.status).toBe('denied');
      expect(first.error?.message).toMatch(/needs approval before it runs \(confirm-issues: read → approval_required\); confirm it \(CLI: --yes\)/);
      const second = await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: issue, caller: operatorCaller('run', { runId: 'r' }), confirmed: true });
      expect(second.record.status).toBe('ok');
      expect(second.duplicate).toBeUndefined();
      expect(executor.calls).toHaveLength(1);
    });

    describe('a call held for approval (a way in without a person at it)', () => {
      const agent = agentCaller('builder', 'gateway', { sessionId: 's-1' });

      it('validates first: invalid arguments never wait for a person', async () => {
        const { pipeline } = setup(undefined, undefined, { permissions: () => guard });
        let asked = 0;
        const outcome = await pipeline.invoke({ caller: agent, name: 'mcp:github.create_issue', arguments: { owner: 'acme' }, approval: async () => void asked++ });
        expect(asked).toBe(0);
        expect(outcome.record.status).toBe('error');
        expect(outcome.error?.code).toBe('InvalidArguments');
      });

      it('waits with the exact arguments and the rules, runs once approved, and records the agent', async () => {
        const { pipeline, executor } = setup(undefined, undefined, { permissions: () => guard });
        let release!: () => void;
        const seen: unknown[] = [];
        const pending = pipeline.invoke({
          caller: agent,
          name: 'mcp:github.create_issue',
          arguments: issue,
          approval: (held) => {
            seen.push(held);
            return new Promise<void>((resolve) => (release = resolve));
          },
        });
        await expect.poll(() => seen.length).toBe(1);
        expect(seen[0]).toMatchObject({ arguments: issue, verdict: { verdict: 'confirm' }, policyVersion: expect.stringMatching(/^[0-9a-f]{32}$/) });
        expect(executor.calls).toHaveLength(0);
        release();
        const outcome = await pending;
        expect(outcome.record).toMatchObject({ status: 'ok', agent: 'builder', via: 'gateway' });
        expect(executor.calls).toHaveLength(1);
      });

      it('records a refusal as denied with its sentence and never runs the tool', async () => {
        const { pipeline, executor } = setup(undefined, undefined, { permissions: () => guard });
        const outcome = await pipeline.invoke({ caller: agent, name: 'mcp:github.create_issue', arguments: issue, approval: () => Promise.reject(new AppError('PolicyDenied', 'Denied by ops: not today.')) });
        expect(outcome.record).toMatchObject({ status: 'denied', errorMessage: 'Denied by ops: not today.' });
        expect(executor.calls).toHaveLength(0);
      });

      it('judges again after the wait: rules that now deny win over the approval', async () => {
        let rules = guard;
        const { pipeline, executor } = setup(undefined, undefined, { permissions: () => rules });
        const outcome = await pipeline.invoke({
          caller: agent,
          name: 'mcp:github.create_issue',
          arguments: issue,
          approval: async () => {
            rules = [{ name: 'freeze', toolRef: 'mcp:github.create_issue', operationRules: [{ operationClass: '*', verdict: 'deny' }] }];
          },
        });
        expect(outcome.record.status).toBe('denied');
        expect(outcome.error?.message).toMatch(/Policy denies mcp:github.create_issue: freeze/);
        expect(executor.calls).toHaveLength(0);
      });

      it('a denied or allowed tool never waits', async () => {
        const { pipeline } = setup(undefined, undefined, { permissions: () => guard });
        let asked = 0;
        const approval = async () => void asked++;
        expect((await pipeline.invoke({ caller: agent, name: 'mcp:github.delete_repo', approval })).record.status).toBe('denied');
        expect((await pipeline.invoke({ caller: agent, name: 'mcp:github.search_code', approval })).record.status).toBe('ok');
        expect(asked).toBe(0);
      });
    });
  });

  describe('time limits and cancellation', () => {
    it('times out at the entry runtime timeout (Orloj default 30s), as a retryable Timeout, and aborts the executor', async () => {
      const { pipeline, executor, clock } = setup(never);
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue });
      await clock.advance(29_999);
      expect(executor.calls[0]!.ctx.signal.aborted).toBe(false);
      await clock.advance(1);
      const outcome = await pending;
      expect(outcome.record).toMatchObject({ status: 'timeout', errorCode: 'Timeout', latencyMs: 30_000, attempts: 1 });
      expect(outcome.error).toEqual({ code: 'Timeout', message: 'mcp:github.create_issue did not answer within 30 s.', retryable: true });
      expect(executor.calls[0]!.ctx.signal.aborted).toBe(true);
      expect(clock.pendingTimers).toBe(0);
    });

    it('treats a timeout that is not a number as due at once rather than never', async () => {
      const { pipeline, clock } = setup(never);
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, timeoutMs: Number.NaN });
      await clock.advance(0);
      expect((await pending).record).toMatchObject({ status: 'timeout', latencyMs: 0 });
    });

    it('uses the request timeout when given', async () => {
      const { pipeline, clock } = setup(never);
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, timeoutMs: 500 });
      await clock.advance(500);
      expect((await pending).record).toMatchObject({ status: 'timeout', latencyMs: 500 });
    });

    it('restarts the timeout on progress (by default) and passes progress to the caller', async () => {
      let finish!: (result: ToolResult) => void;
      const { pipeline, executor, clock } = setup(() => new Promise((resolve) => (finish = resolve)));
      const progress: number[] = [];
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, timeoutMs: 1000, onProgress: (p) => progress.push(p.progress) });
      for (let step = 1; step <= 3; step++) {
        await clock.advance(900);
        executor.calls[0]!.ctx.onProgress({ progress: step, total: 3 });
      }
      await clock.advance(900);
      finish(ok());
      const outcome = await pending;
      expect(outcome.record).toMatchObject({ status: 'ok', latencyMs: 3600 });
      expect(progress).toEqual([1, 2, 3]);
    });

    it('does not restart the timeout on progress when asked not to', async () => {
      const { pipeline, executor, clock } = setup(never);
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, timeoutMs: 1000, resetTimeoutOnProgress: false });
      await clock.advance(900);
      executor.calls[0]!.ctx.onProgress({ progress: 1 });
      await clock.advance(100);
      expect((await pending).record).toMatchObject({ status: 'timeout', latencyMs: 1000 });
    });

    it('never runs past the total limit, however much progress arrives', async () => {
      const { pipeline, executor, clock } = setup(never);
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, timeoutMs: 1000, maxTotalTimeoutMs: 2500 });
      for (let i = 0; i < 3; i++) {
        await clock.advance(800);
        executor.calls[0]!.ctx.onProgress({ progress: i });
      }
      await clock.advance(100);
      const outcome = await pending;
      expect(outcome.record).toMatchObject({ status: 'timeout', latencyMs: 2500 });
      expect(outcome.error?.message).toBe('mcp:github.create_issue exceeded the total time limit of 2500 ms.');
    });

    it('cancels when the caller aborts, and tells the executor', async () => {
      const { pipeline, executor, clock } = setup(never);
      const controller = new AbortController();
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, signal: controller.signal });
      await clock.advance(10);
      controller.abort();
      const outcome = await pending;
      expect(outcome.record).toMatchObject({ status: 'canceled', errorCode: 'Canceled', attempts: 1 });
      expect(executor.calls[0]!.ctx.signal.aborted).toBe(true);
      expect(clock.pendingTimers).toBe(0);
    });

    it('hands a signal on to a later call only when its executor released it and the call ended unaborted', async () => {
      const seen: AbortSignal[] = [];
      let releasing = true;
      const { pipeline } = setup(({ ctx }) => {
        seen.push(ctx.signal);
        if (releasing) ctx.releaseSignal?.();
        return ok();
      });
      const call = () => pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.search_code', arguments: {} });
      await call();
      await call();
      expect(seen[1]).toBe(seen[0]);
      releasing = false;
      await call(); // takes the released one and keeps it
      await call();
      expect(seen[2]).toBe(seen[0]);
      expect(seen[3]).not.toBe(seen[2]);
      expect(seen.every((signal) => !signal.aborted)).toBe(true);
    });

    it('never hands on an aborted signal, even one its executor released', async () => {
      const seen: AbortSignal[] = [];
      const { pipeline, clock } = setup(({ ctx }) => {
        seen.push(ctx.signal);
        ctx.releaseSignal?.();
        return seen.length === 1 ? never() : ok();
      });
      const timedOut = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.search_code', arguments: {}, timeoutMs: 100 });
      await clock.advance(100);
      expect((await timedOut).record.status).toBe('timeout');
      await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.search_code', arguments: {} });
      expect(seen[0]!.aborted).toBe(true);
      expect(seen[1]).not.toBe(seen[0]);
      expect(seen[1]!.aborted).toBe(false);
    });

    it('gives an executor that asks for its signal only after the attempt failed an aborted one', async () => {
      let late: AbortSignal | undefined;
      const { pipeline, clock } = setup(({ ctx }) => new Promise(() => clock.setTimeout(() => (late = ctx.signal), 200)));
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.search_code', arguments: {}, timeoutMs: 100 });
      await clock.advance(100);
      expect((await pending).record.status).toBe('timeout');
      await clock.advance(100);
      expect(late?.aborted).toBe(true);
      expect(late?.reason).toMatchObject({ code: 'Timeout' });
    });

    it('does not start a call whose signal is already aborted', async () => {
      const { pipeline, executor } = setup(never);
      const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, signal: AbortSignal.abort() });
      expect(outcome.record.status).toBe('canceled');
      expect(executor.calls).toHaveLength(0);
    });
  });

  describe('retries (Orloj runtime.retry)', () => {
    const retrying: ToolConfig = { runtime: { retry: { max_attempts: 3, backoff: '100ms', max_backoff: '1s', jitter: 'none' } } };

    it('retries retryable errors with backoff, then succeeds', async () => {
      const startedAt: number[] = [];
      const { pipeline, clock } = setup(({ ctx }) => {
        startedAt.push(clock.now());
        if (ctx.attempt < 3) throw new AppError('ConnectionFailed', 'connection reset');
        return ok();
      }, retrying);
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue });
      await clock.advance(1000);
      const outcome = await pending;
      expect(startedAt).toEqual([0, 100, 300]);
      expect(outcome.record).toMatchObject({ status: 'ok', attempts: 3, latencyMs: 300 });
    });

    it('gives up after max_attempts attempts in total with the last error', async () => {
      const { pipeline, executor, clock } = setup(never, retrying);
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, timeoutMs: 1000 });
      await clock.advance(10_000);
      const outcome = await pending;
      expect(executor.calls).toHaveLength(3);
      expect(outcome.record).toMatchObject({ status: 'timeout', attempts: 3, latencyMs: 3300 });
    });

    it('does not retry failures that are not retryable, or results with isError', async () => {
      const thrown = setup(() => {
        throw new Error('boom');
      }, retrying);
      const failed = await thrown.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue });
      expect(failed.record).toMatchObject({ status: 'error', errorCode: 'ExecutionFailed', errorMessage: 'boom', attempts: 1 });
      expect(failed.error?.retryable).toBe(false);

      const toolError = setup(() => ({ content: [{ type: 'text', text: 'repo is archived' }], isError: true }), retrying);
      const outcome = await toolError.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue });
      expect(toolError.executor.calls).toHaveLength(1);
      expect(outcome.error).toBeUndefined();
      expect(outcome.result?.isError).toBe(true);
      expect(outcome.record).toMatchObject({ status: 'error', isError: true, resultPreview: 'repo is archived', attempts: 1 });
      expect(outcome.record.errorCode).toBeUndefined();
    });

    it('stops waiting to retry when the caller cancels', async () => {
      const { pipeline, clock } = setup(() => {
        throw new AppError('ConnectionFailed', 'refused');
      }, retrying);
      const controller = new AbortController();
      const pending = pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue, signal: controller.signal });
      await clock.advance(50);
      controller.abort();
      expect((await pending).record).toMatchObject({ status: 'canceled', attempts: 1 });
    });
  });

  it('caps large results at max_tool_result_bytes and says so', async () => {
    const big = ok('x'.repeat(50_000));
    const { pipeline } = setup(() => big, undefined, { maxToolResultBytes: 4096 });
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue });
    expect(outcome.truncated).toBe(true);
    expect(outcome.result?.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(outcome.result))).toBeLessThanOrEqual(4096);
    expect(outcome.record).toMatchObject({ truncated: true, responseBytes: Buffer.byteLength(JSON.stringify(big)) });
    expect(outcome.record.resultPreview).toBe('x'.repeat(200));
  });

  it('cuts the 200-character preview where it splits no secret, stored or substituted by a collection', async () => {
    // The recorder masks whole values only: a secret cut in two by the preview would keep its head.
    const stored = 'stored-secret-5d0e7b';
    const substituted = 'run-secret-a41c9f';
    const results = [ok(`${'x'.repeat(190)}${stored} tail`), ok(`${'y'.repeat(195)}${substituted} tail`), ok(`${'z'.repeat(180)}${stored} tail`)];
    const { pipeline } = setup(() => results.shift()!, undefined, { redactor: new SecretRedactor([stored], { minLength: 4 }) });
    const call = (maskValues?: string[]) => pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.search_code', arguments: {}, maskValues });
    expect((await call()).record.resultPreview).toBe('x'.repeat(190));
    expect((await call([substituted])).record.resultPreview).toBe('y'.repeat(195));
    // A secret wholly inside the preview stays for the recorder to mask; the cut stays at 200.
    expect((await call()).record.resultPreview).toBe(`${'z'.repeat(180)}${stored}`);
  });

  describe('duplicate calls within a run (Clawdapus)', () => {
    it('runs the first call, answers repeats with duplicate_tool_call, whatever the key order', async () => {
      const { pipeline, executor } = setup();
      // delete_repo is marked destructive by its server: it runs once approved.
      await pipeline.invoke({ name: 'mcp:github.delete_repo', arguments: {}, caller: operatorCaller('run', { runId: 'run-7' }), confirmed: true });
      const first = await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: issue, caller: operatorCaller('run', { runId: 'run-7' }) });
      const again = await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: { title: issue.title, repo: issue.repo, owner: issue.owner }, caller: operatorCaller('run', { runId: 'run-7' }) });
      const third = await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: issue, caller: operatorCaller('run', { runId: 'run-7' }) });

      expect(first.duplicate).toBeUndefined();
      expect(executor.calls).toHaveLength(2);
      expect(again.duplicate).toBe(true);
      expect(again.result?.isError).toBe(true);
      expect(again.result?.structuredContent).toEqual({
        ok: false,
        error: {
          code: 'duplicate_tool_call',
          message: 'mcp:github.create_issue already ran with these arguments in this run (call 2); it was not executed again. Use that result.',
        },
        tool_trace: { original_round: 2, duplicate_count: 1 },
      });
      expect(JSON.parse((again.result!.content[0] as { text: string }).text)).toEqual(again.result!.structuredContent);
      expect(again.record).toMatchObject({ status: 'error', isError: true, attempts: 0, runId: 'run-7' });
      expect((third.result?.structuredContent as { tool_trace: unknown }).tool_trace).toEqual({ original_round: 2, duplicate_count: 2 });
    });

    it('runs the same call again in another run, without a run, or after the run ended', async () => {
      const { pipeline, executor } = setup();
      await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: issue, caller: operatorCaller('run', { runId: 'a' }) });
      await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: issue, caller: operatorCaller('run', { runId: 'b' }) });
      await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue });
      await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue });
      pipeline.endRun('a');
      await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: issue, caller: operatorCaller('run', { runId: 'a' }) });
      expect(executor.calls).toHaveLength(5);
    });

    it('does not count calls that never reached the tool', async () => {
      const { pipeline, executor } = setup();
      await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: { owner: 'acme' }, caller: operatorCaller('run', { runId: 'r' }) });
      await pipeline.invoke({ name: 'mcp:github.create_issue', arguments: { owner: 'acme' }, caller: operatorCaller('run', { runId: 'r' }) });
      expect(executor.calls).toHaveLength(0);
    });
  });

  it('keeps answering when the recorder throws', async () => {
    const warnings: string[] = [];
    const { pipeline } = setup(undefined, undefined, {
      recorder: {
        record() {
          throw new Error('disk full');
        },
      },
      logger: { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) },
    });
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: issue });
    expect(outcome.record.status).toBe('ok');
    expect(warnings).toEqual(['Invocation recorder failed']);
  });

  it('records a result that is not shaped like a tool result as a failed call, not a rejected one', async () => {
    const { pipeline, recorder } = setup(() => ({ content: 'not a list' }) as unknown as ToolResult);
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.search_code', arguments: {} });
    expect(outcome.record).toMatchObject({ status: 'error', errorCode: 'ExecutionFailed', attempts: 1 });
    expect(recorder.list()).toHaveLength(1);
  });
});

it('gives records ids unique to the pipeline instance, in call order', async () => {
  const ids = async () => {
    const { catalog } = setup();
    const pipeline = new InvocationPipeline({ catalog });
    const first = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.search_code' });
    const second = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.search_code' });
    return [first.record.id, second.record.id];
  };
  const [a1, a2] = await ids();
  const [b1] = await ids();
  expect(a1! < a2!).toBe(true);
  expect(new Set([a1, a2, b1]).size).toBe(3);
  expect(a1!.split('-')[0]).not.toBe(b1!.split('-')[0]);
});

describe('MemoryInvocationRecorder', () => {
  it('keeps the newest records, newest first', async () => {
    const recorder = new MemoryInvocationRecorder(3);
    const { pipeline } = setup(undefined, undefined, { recorder });
    for (let i = 0; i < 5; i++) await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:github.create_issue', arguments: { ...issue, title: `t${i}` } });
    expect(recorder.list().map((r) => JSON.parse(r.argumentsJson).title)).toEqual(['t4', 't3', 't2']);
    expect(recorder.list(1)).toHaveLength(1);
    expect(recorder.get(recorder.list()[1]!.id)?.argumentsJson).toContain('t3');
  });
});
