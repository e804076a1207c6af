// npm run bench -- mediation
// Model mediation (Clawdapus cllama's, on the gateway's port) with the official `openai` client as
// the runner and aimock as the model provider, all in one process, in the same run:
//   (a) pass-through: an agent without managed tools asks through the gateway, versus the same
//       client asking aimock directly; requests in turns (the first of each pair alternating by
//       round), after a warm-up. Figure: p50 latency ratio, target ≤ 1.10 (issue #31).
//   (b) managed rounds: an agent whose model calls everything.echo (server-everything over stdio)
//       once per turn; each round's `overhead_ms` from the turn's trace is Tooldeck's own time in
//       the round — its wall time less the waits on the model and on the pipeline's tool call.
//       Figure: p50 per managed round, target ≤ 2 ms. For context, the whole managed turn is also
//       compared with what it replaces: the two model requests and the echo call made directly.
// Ratios and per-round figures, not absolute times: the machine may be loaded. Last line JSON.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LLMock } from '@copilotkit/aimock';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import OpenAI from 'openai';
import { createCore } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { everythingScript, everythingStdio } from '../peers/mcp/everything';
import { fmt, round, summarize } from './benchStats';

const PASS_REQUESTS = Number(process.env.BENCH_CALLS ?? 1000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 200);
const TURNS = Number(process.env.BENCH_TURNS ?? 300);
const ROUNDS = 10;
const PASS_TARGET = 1.1;
const OVERHEAD_TARGET_MS = 2;

const pod = `x-claw:
  pod: bench
services:
  runner:
    image: example/runner
    x-claw:
      cllama: passthrough
      tools:
        - service: everything
          allow: [echo]
`;

type Messages = { role: string; content?: unknown }[];
const hasToolResult = (messages: Messages) => messages.some((message) => message.role === 'tool');

const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-bench-mediation-ws-'));
writeFileSync(join(workspaceDir, 'agents.claw-pod.yml'), pod);
const core = await createCore({ exampleWorkspace: false, workspaceDir, appVersion: 'bench', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-bench-mediation-')), secretStore: new MemorySecretStore(), logger: silentLogger });
const mock = new LLMock({ host: '127.0.0.1', port: 0 });
mock.on({ predicate: (req) => JSON.stringify(req.messages).includes('echo') && !hasToolResult(req.messages as Messages) }, { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"bench"}' }] } as never);
mock.on({ predicate: () => true }, { content: 'Done.' } as never);
const bare = new Client({ name: 'bench-direct', version: '0' });
try {
  await core.mcp.save({ config: everythingStdio('everything') as never });
  const mockUrl = await mock.start();
  await core.providers.add({ name: 'mock', format: 'openai', baseUrl: `${mockUrl}/v1`, apiKey: 'sk-bench' });
  const runnerKey = await core.agents.credentials.create('runner');
  const strangerKey = await core.agents.credentials.create('stranger');
  // Models are denied to agents by default: both may use the bench's.
  for (const agent of ['runner', 'stranger']) await core.agents.models.grant(agent, ['mock/bench']);
  // Flooding on purpose: the per-agent rate limit is not what is measured.
  const status = await core.gateway.start({ port: 0, rate: { perSecond: 1_000_000, burst: 1_000_000 } });
  const origin = new URL(status.url!).origin;
  for (const deadline = Date.now() + 60_000; !core.catalog.resolve('mcp:everything.echo'); ) {
    if (Date.now() > deadline) throw new Error('server-everything never connected');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await bare.connect(new StdioClientTransport({ command: process.execPath, args: [everythingScript, 'stdio'], stderr: 'ignore' }));

  const direct = new OpenAI({ baseURL: `${mockUrl}/v1`, apiKey: 'sk-bench', maxRetries: 0 });
  const throughStranger = new OpenAI({ baseURL: `${origin}/v1`, apiKey: strangerKey, maxRetries: 0 });
  const throughRunner = new OpenAI({ baseURL: `${origin}/v1`, apiKey: runnerKey, maxRetries: 0 });
  const hello = [{ role: 'user' as const, content: 'hello' }];

  // (a) pass-through versus direct.
  const sides = [() => throughStranger.chat.completions.create({ model: 'mock/bench', messages: hello }), () => direct.chat.completions.create({ model: 'bench', messages: hello })];
  for (let i = 0; i < WARM_UP; i++) for (const side of sides) await side();
  const passTimes: [number[], number[]] = [[], []];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (let i = 0; i < PASS_REQUESTS / ROUNDS; i++) {
      for (const side of order) {
        const started = performance.now();
        const answer = await sides[side]!();
        passTimes[side]!.push(performance.now() - started);
        if (answer.choices[0]!.message.content !== 'Done.') throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 200)}`);
      }
    }
  }
  const pass = { gateway: summarize(passTimes[0]), direct: summarize(passTimes[1]) };
  const passRatio = pass.gateway.median / pass.direct.median;

  // (b) managed turns, and what each replaces done directly.
  const echoPrompt = [{ role: 'user' as const, content: 'please echo' }];
  const turn = async () => {
    const answer = await throughRunner.chat.completions.create({ model: 'mock/bench', messages: echoPrompt });
    if (answer.choices[0]!.message.content !== 'Done.') throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 200)}`);
  };
  const replaced = async () => {
    const first = await direct.chat.completions.create({ model: 'bench', messages: echoPrompt });
    const call = first.choices[0]!.message.tool_calls![0]! as { id: string; function: { arguments: string } };
    const result = await bare.callTool({ name: 'echo', arguments: JSON.parse(call.function.arguments) as Record<string, unknown> });
    await direct.chat.completions.create({ model: 'bench', messages: [...echoPrompt, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result.content) }] });
  };
  for (let i = 0; i < 30; i++) {
    await turn();
    await replaced();
  }
  const turnTimes: [number[], number[]] = [[], []];
  const turnSides = [turn, replaced];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (let i = 0; i < TURNS / ROUNDS; i++) {
      for (const side of order) {
        const started = performance.now();
        await turnSides[side]!();
        turnTimes[side]!.push(performance.now() - started);
      }
    }
  }
  // Mediation keeps each agent's newest 100 turns: all of them from the measured part.
  const measured = core.mediation.history('runner');
  const managedRounds = measured.flatMap((t) => t.tool_trace.filter((r) => r.tool_calls.length > 0));
  const finalRounds = measured.flatMap((t) => t.tool_trace.filter((r) => r.tool_calls.length === 0));
  const overhead = summarize(managedRounds.map((r) => r.overhead_ms ?? NaN));
  const finalOverhead = summarize(finalRounds.map((r) => r.overhead_ms ?? NaN));
  const turns = { mediated: summarize(turnTimes[0]), direct: summarize(turnTimes[1]) };

  console.log(`(a) pass-through p50: ${fmt(pass.gateway.median)} through the gateway vs ${fmt(pass.direct.median)} direct → ratio ${passRatio.toFixed(3)} (target ≤ ${PASS_TARGET}) ${passRatio <= PASS_TARGET ? 'MET' : 'MISSED'}; p99 ${fmt(pass.gateway.p99)} vs ${fmt(pass.direct.p99)}`);
  console.log(`(b) Tooldeck's own time per managed round p50: ${fmt(overhead.median)} (p99 ${fmt(overhead.p99)}, ${overhead.n} rounds; target ≤ ${OVERHEAD_TARGET_MS} ms) ${overhead.median <= OVERHEAD_TARGET_MS ? 'MET' : 'MISSED'}; the answering round: ${fmt(finalOverhead.median)}`);
  console.log(`    whole managed turn p50: ${fmt(turns.mediated.median)} mediated vs ${fmt(turns.direct.median)} for the two model requests and the echo call made directly → ratio ${(turns.mediated.median / turns.direct.median).toFixed(3)}`);
  console.log(
    JSON.stringify({
      bench: 'mediation',
      passThrough: { requests: pass.gateway.n, gatewayP50Ms: round(pass.gateway.median), directP50Ms: round(pass.direct.median), p50Ratio: round(passRatio), target: PASS_TARGET, met: passRatio <= PASS_TARGET },
      managedRound: { rounds: overhead.n, overheadP50Ms: round(overhead.median), overheadP99Ms: round(overhead.p99), answeringRoundOverheadP50Ms: round(finalOverhead.median), targetMs: OVERHEAD_TARGET_MS, met: overhead.median <= OVERHEAD_TARGET_MS },
      managedTurn: { turns: turns.mediated.n, mediatedP50Ms: round(turns.mediated.median), directP50Ms: round(turns.direct.median), p50Ratio: round(turns.mediated.median / turns.direct.median) },
    }),
  );
} finally {
  await bare.close().catch(() => undefined);
  await mock.stop();
  await core.close();
}
