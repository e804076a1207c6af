// npm run bench -- gateway
// An agent's echo call over Streamable HTTP through `tooldeck gateway` (the built CLI, fronting
// server-everything over Streamable HTTP, declared in its workspace and granted to the agent in a
// Clawdapus pod file) versus the same call straight to that server-everything, in the same run,
// with the official TypeScript SDK client (2025-11-25 sessions on both sides). Two figures:
//   - p50 latency ratio, one call at a time, call by call in turns (the first of each pair
//     alternating by round), after a warm-up: target ≤ 1.25 (issue #30);
//   - sustained throughput at 8 calls in flight, in short blocks alternating A/B (the first side
//     alternating by round): target ≥ 0.80 of direct.
// Needs the built CLI (`npm run build`). Ratios, not times: the machine may be loaded. Last line JSON.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startEverythingHttp } from '../peers/mcp/everything';
import { fmt, round, summarize } from './benchStats';

const LATENCY_CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARM_UP_CALLS = Number(process.env.BENCH_WARM_UP ?? 2000);
const ROUNDS = 20;
const IN_FLIGHT = 8;
const THROUGHPUT_CALLS_PER_BLOCK = Number(process.env.BENCH_BLOCK ?? 400);
const P50_TARGET = 1.25;
const THROUGHPUT_TARGET = 0.8;

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bench-gateway-'));
const args = { message: 'bench' };

async function connect(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'bench-agent', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

function startGatewayCli(): Promise<{ process: ChildProcess; url: string }> {
  // --rate: the bench is one agent flooding on purpose; the per-agent limit is not what is measured.
  const child = spawn(process.execPath, [cli, '--data-dir', dataDir, 'gateway', '--port', '0', '--rate', '100000'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((done, fail) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Gateway listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (match) done({ process: child, url: match[1]! });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`tooldeck gateway exited (${code}) before listening: ${out}`)));
  });
}

/** Waits (by condition, not time) until the gateway offers the agent everything.echo: the workspace server connects in the background. */
async function waitForEcho(url: string, headers: Record<string, string>) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = await connect(url, headers);
    const { tools } = await client.listTools();
    await client.close();
    if (tools.some((tool) => tool.name === 'everything.echo')) return;
    if (Date.now() > deadline) throw new Error(`the gateway never offered everything.echo (it offers ${tools.map((t) => t.name).join(', ') || 'nothing'})`);
    await new Promise((r) => setImmediate(r));
  }
}

function checkEcho(result: Awaited<ReturnType<Client['callTool']>>) {
  const text = (result.content as { type: string; text?: string }[])[0]?.text;
  if (text !== 'Echo: bench') throw new Error(`unexpected echo result: ${JSON.stringify(result).slice(0, 300)}`);
}

async function latency(gateway: () => Promise<unknown>, direct: () => Promise<unknown>) {
  const times: [number[], number[]] = [[], []];
  const sides = [gateway, direct];
  const perRound = LATENCY_CALLS / ROUNDS;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (let i = 0; i < perRound; i++) {
      for (const side of order) {
        const start = performance.now();
        await sides[side]!();
        times[side]!.push(performance.now() - start);
      }
    }
  }
  return { gateway: summarize(times[0]), direct: summarize(times[1]) };
}

/** `calls` calls with IN_FLIGHT of them always outstanding; returns the wall time in ms. */
async function block(call: () => Promise<unknown>, calls: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < calls) {
      next++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return performance.now() - start;
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuMsOf(pid: number): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return undefined;
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis): utime and stime are the 12th and 13th.
  const text = readFileSync(stat, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // In clock ticks: 100 per second on Linux (USER_HZ).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Processes {
  client: number;
  gateway: number;
  server: number;
}

/**
 * Throughput at IN_FLIGHT, and the CPU each process spent per call on each side: where the
 * gateway's cost goes (a second HTTP hop is a server and a client more) rather than only how much.
 */
async function throughput(gateway: () => Promise<unknown>, direct: () => Promise<unknown>, pids: Processes) {
  const sides = { gateway: { call: gateway, ms: 0, cpu: { client: 0, gateway: 0, server: 0 } }, direct: { call: direct, ms: 0, cpu: { client: 0, gateway: 0, server: 0 } } };
  const run = async (side: typeof sides.gateway) => {
    const before = { client: process.cpuUsage(), gateway: cpuMsOf(pids.gateway) ?? NaN, server: cpuMsOf(pids.server) ?? NaN };
    side.ms += await block(side.call, THROUGHPUT_CALLS_PER_BLOCK);
    const clientUsage = process.cpuUsage(before.client);
    side.cpu.client += (clientUsage.user + clientUsage.system) / 1000;
    side.cpu.gateway += (cpuMsOf(pids.gateway) ?? NaN) - before.gateway;
    side.cpu.server += (cpuMsOf(pids.server) ?? NaN) - before.server;
  };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      await run(sides.gateway);
      await run(sides.direct);
    } else {
      await run(sides.direct);
      await run(sides.gateway);
    }
  }
  const callsPerSide = ROUNDS * THROUGHPUT_CALLS_PER_BLOCK;
  const perCall = (cpu: Processes) => ({ client: cpu.client / callsPerSide, gateway: cpu.gateway / callsPerSide, server: cpu.server / callsPerSide });
  return { gateway: (callsPerSide / sides.gateway.ms) * 1000, direct: (callsPerSide / sides.direct.ms) * 1000, cpuPerCall: { gateway: perCall(sides.gateway.cpu), direct: perCall(sides.direct.cpu) } };
}

const everything = await startEverythingHttp('streamableHttp');
let gateway: ChildProcess | undefined;
try {
  // The workspace the gateway opens: server-everything over Streamable HTTP, and a pod granting agent `bench` its echo.
  const workspace = join(dataDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'everything.yaml'), `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata:\n  name: everything\nspec:\n  transport: http\n  endpoint: ${JSON.stringify(everything.url)}\n  tool_filter:\n    include: [echo]\n`);
  writeFileSync(join(workspace, 'agents.claw-pod.yml'), 'x-claw:\n  pod: bench\nservices:\n  bench:\n    image: example/bench\n    x-claw:\n      cllama: passthrough\n      tools:\n        - service: everything\n          allow: [echo]\n');
  const created = spawnSync(process.execPath, [cli, '--data-dir', dataDir, 'gateway', 'token', 'create', 'bench'], { encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`token create failed: ${created.stderr}`);
  const credential = { Authorization: `Bearer ${created.stdout.trim().split('\n').at(-1)}` };
  const started = await startGatewayCli();
  gateway = started.process;
  await waitForEcho(started.url, credential);

  const viaGateway = await connect(started.url, credential);
  const direct = await connect(everything.url);
  const callGateway = async () => checkEcho(await viaGateway.callTool({ name: 'everything.echo', arguments: args }));
  const callDirect = async () => checkEcho(await direct.callTool({ name: 'echo', arguments: args }));

  // Warm both paths (JIT in all three processes, connection pools) before anything counts.
  for (let i = 0; i < WARM_UP_CALLS; i++) {
    await callGateway();
    await callDirect();
  }
  await block(callGateway, THROUGHPUT_CALLS_PER_BLOCK);
  await block(callDirect, THROUGHPUT_CALLS_PER_BLOCK);

  const lat = await latency(callGateway, callDirect);
  const tput = await throughput(callGateway, callDirect, { client: process.pid, gateway: gateway.pid!, server: everything.process.pid! });
  const p50Ratio = lat.gateway.median / lat.direct.median;
  const throughputRatio = tput.gateway / tput.direct;
  await viaGateway.close();
  await direct.close();

  const row = (label: string, gw: string, dir: string, ratio: string, target: string) => console.log(`${label.padEnd(22)} ${gw.padStart(12)} ${dir.padStart(12)} ${ratio.padStart(7)}   ${target}`);
  row('echo over HTTP', 'gateway', 'direct', 'ratio', 'target');
  row('p50 latency', fmt(lat.gateway.median), fmt(lat.direct.median), p50Ratio.toFixed(3), `≤ ${P50_TARGET} ${p50Ratio <= P50_TARGET ? 'met' : 'NOT met'}`);
  row('p99 latency', fmt(lat.gateway.p99), fmt(lat.direct.p99), (lat.gateway.p99 / lat.direct.p99).toFixed(3), '');
  row(`throughput, ${IN_FLIGHT} in flight`, `${tput.gateway.toFixed(0)}/s`, `${tput.direct.toFixed(0)}/s`, throughputRatio.toFixed(3), `≥ ${THROUGHPUT_TARGET} ${throughputRatio >= THROUGHPUT_TARGET ? 'met' : 'NOT met'}`);
  const cpu = tput.cpuPerCall;
  if (!Number.isNaN(cpu.gateway.gateway)) {
    row('CPU per call: client', fmt(cpu.gateway.client), fmt(cpu.direct.client), '', '');
    row('  tooldeck gateway', fmt(cpu.gateway.gateway), '—', '', '');
    row('  server-everything', fmt(cpu.gateway.server), fmt(cpu.direct.server), '', '');
  }
  console.log(`(${LATENCY_CALLS} sequential calls per side after ${WARM_UP_CALLS} warm-up; ${ROUNDS * THROUGHPUT_CALLS_PER_BLOCK} calls per side at ${IN_FLIGHT} in flight, in ${ROUNDS} alternating blocks)`);
  console.log(JSON.stringify({ bench: 'gateway', p50_ratio: round(p50Ratio), throughput_ratio: round(throughputRatio), p50_gateway_ms: round(lat.gateway.median), p50_direct_ms: round(lat.direct.median), throughput_gateway_per_s: round(tput.gateway, 1), throughput_direct_per_s: round(tput.direct, 1) }));
} finally {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((done) => gateway!.once('exit', done));
    gateway.kill('SIGTERM');
    await exited;
  }
  await everything.close();
  rmSync(dataDir, { recursive: true, force: true });
}
