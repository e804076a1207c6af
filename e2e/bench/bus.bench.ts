// npm run bench -- bus
// A RockBot agent's echo call over RabbitMQ (a private node) through `tooldeck bus bridge` (the
// built CLI: the pipeline, then server-everything over stdio) versus a bare amqplib echo responder
// on the same broker (e2e/bench/busEchoResponder.ts), with the same RockBot-shaped agent on
// amqplib as the client, IN_FLIGHT requests always outstanding, in short blocks alternating A/B.
// Figures (issue #33):
//   - round trips per second, bridge / bare responder: target ≥ 0.80;
//   - two bridges on one queue / one bridge: target ≥ 1.6;
//   - for context, the same echo straight through a pipeline in this process (no bus), and the
//     bus round trip's share of it.
// Needs the built CLI (`npm run build`) and rabbitmq-server. Ratios, not times: the machine may be loaded. Last line JSON.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCore } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { operatorCaller } from '../../shared/caller';
import { startPrivateRabbitMq } from '../bus/privateRabbitMq';
import { RockBotShapedAgent } from '../bus/rockbotShapedAgent';
import { everythingStdio } from '../peers/mcp/everything';
import { round } from './benchStats';

const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CALLS_PER_BLOCK = Number(process.env.BENCH_BLOCK ?? 500);
const WARM_UP_CALLS = Number(process.env.BENCH_WARM_UP ?? 1000);
const BRIDGE_TARGET = 0.8;
const SCALE_TARGET = 1.6;

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const tsx = join(root, 'node_modules/.bin/tsx');
const dataDirs: string[] = [];
const children: ChildProcess[] = [];

function started(child: ChildProcess, ready: RegExp, what: string): Promise<void> {
  children.push(child);
  return new Promise((done, fail) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) done();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => fail(new Error(`${what} exited (${code}) before it was ready: ${out}`)));
  });
}

function startBridge(url: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bench-bus-'));
  dataDirs.push(dataDir);
  const child = spawn(process.execPath, [cli, '--data-dir', dataDir, 'bus', 'bridge', '--agent', 'bench'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TOOLDECK_AMQP_URL: url } });
  return started(child, /Bus bridge bench on /, 'tooldeck bus bridge');
}

/** `calls` calls with IN_FLIGHT of them always outstanding; returns the wall time in ms. */
async function block(call: (i: number) => Promise<void>, calls: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < calls) await call(next++);
    }),
  );
  return performance.now() - start;
}

/** Round trips per second of each side, in alternating blocks (the first side alternating by round). */
async function throughput(sides: Record<string, (i: number) => Promise<void>>): Promise<Record<string, number>> {
  const names = Object.keys(sides);
  const ms = Object.fromEntries(names.map((name) => [name, 0]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of r % 2 === 0 ? names : [...names].reverse()) ms[name]! += await block(sides[name]!, CALLS_PER_BLOCK);
  }
  return Object.fromEntries(names.map((name) => [name, (ROUNDS * CALLS_PER_BLOCK * 1000) / ms[name]!]));
}

const broker = await startPrivateRabbitMq();
let agent: RockBotShapedAgent | undefined;
try {
  await startBridge(broker.url);
  await started(spawn(tsx, [join(import.meta.dirname, 'busEchoResponder.ts'), broker.url, 'tool.invoke.bare', 'rockbot.bench-bare-echo'], { stdio: ['ignore', 'pipe', 'pipe'] }), /ready/, 'the bare echo responder');
  // The example workspace's `assistant` (granted server-everything), as its own broker user naming itself in user_id.
  agent = await RockBotShapedAgent.connect(broker.addUser('assistant', 'assistant-pass'), 'assistant', 'bench', { userId: 'assistant' });
  const check = (reply: { body: Record<string, unknown> }, message: string) => {
    if (reply.body.content !== `Echo: ${message}`) throw new Error(`unexpected reply: ${JSON.stringify(reply).slice(0, 300)}`);
  };
  const viaBridge = async (i: number) => check(await agent!.invoke('echo', { message: `bench ${i}` }), `bench ${i}`);
  const bare = async (i: number) => {
    const body = Buffer.from(JSON.stringify({ toolCallId: `c${i}`, toolName: 'echo', arguments: JSON.stringify({ message: `bench ${i}` }), sessionId: null }));
    check(await agent!.request('tool.invoke.bare', 'RockBot.Tools.ToolInvokeRequest', body, { replyTo: 'tool.result.assistant' }), `bench ${i}`);
  };
  await block(viaBridge, WARM_UP_CALLS);
  await block(bare, WARM_UP_CALLS);
  const one = await throughput({ bridge: viaBridge, bare });

  // The same echo through a pipeline in this process: what the bus round trip adds to.
  const core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-bench-bus-core-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  await core.mcp.save({ config: everythingStdio('everything') as never });
  while (!core.catalog.resolve('mcp:everything.echo')) await new Promise((resume) => setTimeout(resume, 50));
  const pipeline = async (i: number) => {
    const outcome = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:everything.echo', arguments: { message: `bench ${i}` } });
    const text = (outcome.result?.content[0] as { text?: string } | undefined)?.text;
    if (text !== `Echo: bench ${i}`) throw new Error(`unexpected pipeline result: ${JSON.stringify(outcome).slice(0, 300)}`);
  };
  await block(pipeline, WARM_UP_CALLS);
  const direct = await throughput({ pipeline });
  await core.close();

  await startBridge(broker.url);
  await block(viaBridge, WARM_UP_CALLS);
  const two = await throughput({ twoBridges: viaBridge });

  const bridgeRatio = one.bridge! / one.bare!;
  const scaleRatio = two.twoBridges! / one.bridge!;
  const row = (label: string, value: string, ratio: string, target: string) => console.log(`${label.padEnd(34)} ${value.padStart(10)} ${ratio.padStart(7)}   ${target}`);
  row(`echo round trips, ${IN_FLIGHT} in flight`, 'per s', 'ratio', 'target');
  row('bare amqplib echo responder', one.bare!.toFixed(0), '', '');
  row('tooldeck bus bridge (one)', one.bridge!.toFixed(0), bridgeRatio.toFixed(3), `≥ ${BRIDGE_TARGET} of bare ${bridgeRatio >= BRIDGE_TARGET ? 'met' : 'NOT met'}`);
  row('tooldeck bus bridge (two)', two.twoBridges!.toFixed(0), scaleRatio.toFixed(3), `≥ ${SCALE_TARGET} of one ${scaleRatio >= SCALE_TARGET ? 'met' : 'NOT met'}`);
  row('pipeline in process (no bus)', direct.pipeline!.toFixed(0), (one.bridge! / direct.pipeline!).toFixed(3), 'bus round trip / direct pipeline call');
  console.log(`(${ROUNDS * CALLS_PER_BLOCK} calls per side in ${ROUNDS} alternating blocks after ${WARM_UP_CALLS} warm-up; one private RabbitMQ node; the bridge runs server-everything over stdio, the bare responder runs nothing)`);
  console.log(
    JSON.stringify({
      bench: 'bus',
      bridge_ratio: round(bridgeRatio),
      two_bridges_ratio: round(scaleRatio),
      bus_to_pipeline_ratio: round(one.bridge! / direct.pipeline!),
      bridge_per_s: round(one.bridge!, 1),
      bare_per_s: round(one.bare!, 1),
      two_bridges_per_s: round(two.twoBridges!, 1),
      pipeline_per_s: round(direct.pipeline!, 1),
    }),
  );
} finally {
  await agent?.close();
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
  await broker.stop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}
