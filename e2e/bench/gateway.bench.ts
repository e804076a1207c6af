// npm run bench -- gateway
// An agent's echo call over Streamable HTTP, the official TypeScript SDK client (2025-11-25
// sessions), three ways to the same server-everything (Streamable HTTP), in the same run:
//   - direct: straight to server-everything;
//   - tooldeck: through `tooldeck gateway` (the built CLI; server-everything declared in its
//     workspace, echo granted to the agent in a Clawdapus pod file);
//   - bare proxy: through a bare `node:http` reverse proxy written below (BARE_PROXY_SOURCE), in a
//     process of its own — no MCP parsing, no authorization, no record: the floor any proxy pays.
// At 1, 8 and 32 sessions (each session one call at a time, all sessions at once), in blocks
// alternating the three sides (the order rotating by round): p50 and p99 latency, throughput, and
// the CPU each process spends per call (from /proc). Ratios against direct, and Tooldeck against
// the bare proxy. Targets (issue #43): p50 ≤ 1.25× direct, throughput at 8 in flight ≥ 0.80×
// direct, gateway CPU per call ≤ server-everything's.
// `npm run bench -- gateway -- --profile` then runs a gateway under V8's CPU profiler (8 sessions)
// and prints where its time goes by stage: the synchronous time in each stage's function and what it
// calls, per call (a sampling profile: wall time, inflated on a busy machine; compare the shares).
// Needs the built CLI (`npm run build`). Ratios, not times: the machine may be loaded. The run
// prints a table, then the figures as JSON on the last line.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startEverythingHttp } from '../peers/mcp/everything';
import { benchCount, fmt, round, summarize } from './benchStats';

const LEVELS = [1, 8, 32] as const;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
/** Calls per block, spread over the block's sessions. */
const CALLS_PER_BLOCK = Number(process.env.BENCH_BLOCK ?? 256);
const WARM_UP_CALLS = Number(process.env.BENCH_WARM_UP ?? 1000);
const THROUGHPUT_LEVEL = 8;
const P50_TARGET = 1.25;
const THROUGHPUT_TARGET = 0.8;
const PROFILE = process.argv.includes('--profile');
const PROFILE_CALLS = benchCount(3000, 40);

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bench-gateway-'));
const args = { message: 'bench' };

/**
 * The bare reverse proxy, run as `node -e` in a process of its own (so its CPU is counted apart):
 * every request to the same path upstream over kept-alive sockets, bodies and answers (SSE
 * streams too) piped through untouched.
 */
const BARE_PROXY_SOURCE = `
const http = require('node:http');
const target = new URL(process.env.BARE_PROXY_TARGET);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
const server = http.createServer((req, res) => {
  const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host }, agent }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
  res.on('close', () => { if (!res.writableFinished) upstream.destroy(); });
  req.pipe(upstream);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log('bare proxy listening on ' + server.address().port));
`;

type SideName = 'direct' | 'tooldeck' | 'proxy';
const SIDES: readonly SideName[] = ['direct', 'tooldeck', 'proxy'];
const LABEL: Record<SideName, string> = { direct: 'direct', tooldeck: 'tooldeck gateway', proxy: 'bare node:http proxy' };

async function connect(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'bench-agent', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

function startChild(argv: string[], pattern: RegExp, what: string, env: NodeJS.ProcessEnv = process.env): Promise<{ process: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env });
  return new Promise((done, fail) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) done({ process: child, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`${what} exited (${code}) before listening: ${out}`)));
  });
}

/** Waits (by condition, not time) until the gateway offers the agent everything.echo. */
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

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuMsOf(pid: number): number {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return NaN;
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis): utime and stime are the 12th and 13th.
  const text = readFileSync(stat, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // In clock ticks: 100 per second on Linux (USER_HZ).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Pids {
  gateway: number;
  server: number;
  proxy: number;
}
type Cpu = { client: number; gateway: number; server: number; proxy: number };

/** One block: `CALLS_PER_BLOCK` calls over `sessions` sessions, each one call at a time, all at once. */
async function block(calls: Array<() => Promise<unknown>>, samples: number[]): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      while (next < CALLS_PER_BLOCK) {
        next++;
        const t = performance.now();
        await call();
        samples.push(performance.now() - t);
      }
    }),
  );
  return performance.now() - start;
}

interface SideFigures {
  p50: number;
  p99: number;
  perSecond: number;
  /** CPU ms per call, per process. */
  cpu: Cpu;
}

async function measureLevel(sessions: number, callsOf: Record<SideName, Array<() => Promise<unknown>>>, pids: Pids): Promise<Record<SideName, SideFigures>> {
  const acc = Object.fromEntries(SIDES.map((side) => [side, { samples: [] as number[], ms: 0, cpu: { client: 0, gateway: 0, server: 0, proxy: 0 } as Cpu }])) as Record<SideName, { samples: number[]; ms: number; cpu: Cpu }>;
  for (let r = 0; r < ROUNDS; r++) {
    // Every side goes first, second and third equally often, forwards and backwards.
    const rotated = [...SIDES.slice(r % 3), ...SIDES.slice(0, r % 3)];
    const order = Math.floor(r / 3) % 2 === 0 ? rotated : rotated.reverse();
    for (const side of order) {
      const before = { client: process.cpuUsage(), gateway: cpuMsOf(pids.gateway), server: cpuMsOf(pids.server), proxy: cpuMsOf(pids.proxy) };
      acc[side].ms += await block(callsOf[side].slice(0, sessions), acc[side].samples);
      const client = process.cpuUsage(before.client);
      acc[side].cpu.client += (client.user + client.system) / 1000;
      acc[side].cpu.gateway += cpuMsOf(pids.gateway) - before.gateway;
      acc[side].cpu.server += cpuMsOf(pids.server) - before.server;
      acc[side].cpu.proxy += cpuMsOf(pids.proxy) - before.proxy;
    }
  }
  const calls = ROUNDS * CALLS_PER_BLOCK;
  return Object.fromEntries(
    SIDES.map((side) => {
      const { median, p99 } = summarize(acc[side].samples);
      const cpu = acc[side].cpu;
      return [side, { p50: median, p99, perSecond: (calls / acc[side].ms) * 1000, cpu: { client: cpu.client / calls, gateway: cpu.gateway / calls, server: cpu.server / calls, proxy: cpu.proxy / calls } }];
    }),
  ) as Record<SideName, SideFigures>;
}

/** The stages of a gateway call, each a function of the built gateway (by name, and where it lives when the name is common). */
const STAGES: Array<[string, (name: string, url: string) => boolean]> = [
  ['HTTP face: guards, body, parse (handle)', (name, url) => name === 'handle' && url.includes('/out/main/')],
  ['SDK server: session transport, dispatch', (name, url) => name === 'handleRequest' && url.includes('@modelcontextprotocol/server')],
  ['pipeline (invoke, synchronous part)', (name, url) => name === 'invoke' && url.includes('InvocationPipeline')],
  ['  grants (grantRefusal)', (name) => name === 'grantRefusal'],
  ['  policy (verdict)', (name, url) => name === 'verdict' && url.includes('/out/main/')],
  ['  argument validation (validate)', (name, url) => name === 'validate' && url.includes('/out/main/')],
  ['  definition lock (hold)', (name, url) => name === 'hold' && url.includes('/out/main/')],
  ['  record: history, metrics, feed (publish)', (name, url) => name === 'publish' && url.includes('InvocationPipeline')],
  ['upstream client (McpConnection.callTool)', (name, url) => (name === 'callTool' || name === 'callToolNow') && url.includes('/out/main/')],
  ['answer written (writeWebResponse)', (name) => name === 'writeWebResponse'],
  ['zod (both SDKs)', (_name, url) => url.includes('/zod/')],
  ['undici (fetch to the upstream)', (_name, url) => url.includes('undici')],
  ['garbage collector', (name) => name === '(garbage collector)'],
];

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

/** ms per call spent in each stage's function and below it (synchronous stacks), from a V8 CPU profile. */
function stageCosts(profile: CpuProfile, calls: number): Record<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const costs: Record<string, number> = {};
  for (const [label, matches] of STAGES) {
    let micros = 0;
    for (const [id, time] of self) {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at)!.callFrame;
        if (matches(frame.functionName, frame.url)) {
          micros += time;
          break;
        }
      }
    }
    costs[label] = micros / 1000 / calls;
  }
  return costs;
}

/** A second gateway, under the profiler, given PROFILE_CALLS echo calls over 8 sessions; then its profile read by stage. */
async function profileStages(credential: Record<string, string>): Promise<Record<string, number>> {
  const dir = join(dataDir, 'cpu-profile');
  const profiled = await startChild(['--cpu-prof', '--cpu-prof-dir', dir, cli, '--data-dir', dataDir, 'gateway', '--port', '0', '--rate', '100000'], /Gateway listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/, 'the profiled tooldeck gateway');
  const exited = new Promise((done) => profiled.process.once('exit', done));
  try {
    const url = profiled.match[1]!;
    await waitForEcho(url, credential);
    const sessions = await Promise.all(Array.from({ length: THROUGHPUT_LEVEL }, () => connect(url, credential)));
    let next = 0;
    await Promise.all(
      sessions.map(async (client) => {
        while (next < PROFILE_CALLS) {
          next++;
          checkEcho(await client.callTool({ name: 'everything.echo', arguments: args }));
        }
      }),
    );
    for (const client of sessions) await client.close();
  } finally {
    profiled.process.kill('SIGTERM');
    await exited;
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the profiled gateway wrote no CPU profile');
  return stageCosts(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, PROFILE_CALLS);
}

const everything = await startEverythingHttp('streamableHttp');
const children: ChildProcess[] = [];
const clients: Client[] = [];
try {
  // The workspace the gateway opens: server-everything over Streamable HTTP, and a pod granting agent `bench` its echo.
  const workspace = join(dataDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'everything.yaml'), `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata:\n  name: everything\nspec:\n  transport: http\n  endpoint: ${JSON.stringify(everything.url)}\n  tool_filter:\n    include: [echo]\n`);
  writeFileSync(join(workspace, 'agents.claw-pod.yml'), 'x-claw:\n  pod: bench\nservices:\n  bench:\n    image: example/bench\n    x-claw:\n      cllama: passthrough\n      tools:\n        - service: everything\n          allow: [echo]\n');
  const created = spawnSync(process.execPath, [cli, '--data-dir', dataDir, 'gateway', 'token', 'create', 'bench'], { encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`token create failed: ${created.stderr}`);
  const credential = { Authorization: `Bearer ${created.stdout.trim().split('\n').at(-1)}` };
  // --rate: the bench is one agent flooding on purpose; the per-agent limit is not what is measured.
  const gateway = await startChild([cli, '--data-dir', dataDir, 'gateway', '--port', '0', '--rate', '100000'], /Gateway listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/, 'tooldeck gateway');
  children.push(gateway.process);
  const proxy = await startChild(['-e', BARE_PROXY_SOURCE], /bare proxy listening on (\d+)/, 'the bare proxy', { ...process.env, BARE_PROXY_TARGET: everything.url });
  children.push(proxy.process);
  const urls: Record<SideName, string> = { direct: everything.url, tooldeck: gateway.match[1]!, proxy: `http://127.0.0.1:${proxy.match[1]}${new URL(everything.url).pathname}` };
  await waitForEcho(urls.tooldeck, credential);

  const maxSessions = Math.max(...LEVELS);
  const callsOf = {} as Record<SideName, Array<() => Promise<unknown>>>;
  for (const side of SIDES) {
    callsOf[side] = [];
    for (let i = 0; i < maxSessions; i++) {
      const client = await connect(urls[side], side === 'tooldeck' ? credential : {});
      clients.push(client);
      const name = side === 'tooldeck' ? 'everything.echo' : 'echo';
      callsOf[side].push(async () => checkEcho(await client.callTool({ name, arguments: args })));
    }
  }

  // Warm every path (JIT in all four processes, sockets, sessions) before anything counts.
  for (const side of SIDES) {
    let warmed = 0;
    await Promise.all(
      callsOf[side].slice(0, THROUGHPUT_LEVEL).map(async (call) => {
        while (warmed < WARM_UP_CALLS) {
          warmed++;
          await call();
        }
      }),
    );
  }

  const pids: Pids = { gateway: gateway.process.pid!, server: everything.process.pid!, proxy: proxy.process.pid! };
  const levels: Record<number, Record<SideName, SideFigures>> = {};
  for (const sessions of LEVELS) levels[sessions] = await measureLevel(sessions, callsOf, pids);

  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const line = (...cells: string[]) => console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(24) : cell.padStart(11))).join(' '));
  console.log('Machine shared and possibly busy: compare the ratios (same run, alternating blocks), not the times.');
  for (const sessions of LEVELS) {
    const figures = levels[sessions]!;
    console.log(`\n${sessions} session${sessions === 1 ? '' : 's'} (each one call at a time)`);
    line('', 'p50', 'p99', 'calls/s', 'p50 ×dir', 'p99 ×dir', 'tput ×dir');
    for (const side of SIDES) {
      const f = figures[side];
      line(LABEL[side], fmt(f.p50), fmt(f.p99), f.perSecond.toFixed(0), ratio(f.p50, figures.direct.p50), ratio(f.p99, figures.direct.p99), ratio(f.perSecond, figures.direct.perSecond));
    }
    const t = figures.tooldeck;
    const p = figures.proxy;
    line('tooldeck × bare proxy', '', '', '', ratio(t.p50, p.p50), ratio(t.p99, p.p99), ratio(t.perSecond, p.perSecond));
  }
  const at8 = levels[THROUGHPUT_LEVEL]!;
  console.log(`\nCPU per call at ${THROUGHPUT_LEVEL} sessions (ms; from /proc, 10 ms ticks over ${ROUNDS * CALLS_PER_BLOCK} calls per side)`);
  line('', 'client', 'gateway', 'proxy', 'server');
  for (const side of SIDES) {
    const cpu = at8[side].cpu;
    line(LABEL[side], cpu.client.toFixed(3), side === 'tooldeck' ? cpu.gateway.toFixed(3) : '—', side === 'proxy' ? cpu.proxy.toFixed(3) : '—', cpu.server.toFixed(3));
  }
  const p50Ratio = levels[1]!.tooldeck.p50 / levels[1]!.direct.p50;
  const throughputRatio = at8.tooldeck.perSecond / at8.direct.perSecond;
  const cpuRatio = at8.tooldeck.cpu.gateway / at8.direct.cpu.server;
  console.log(`\nTargets: p50 at 1 session ${p50Ratio.toFixed(2)}× direct (≤ ${P50_TARGET}: ${p50Ratio <= P50_TARGET ? 'met' : 'NOT met'}); throughput at ${THROUGHPUT_LEVEL} in flight ${throughputRatio.toFixed(2)}× direct (≥ ${THROUGHPUT_TARGET}: ${throughputRatio >= THROUGHPUT_TARGET ? 'met' : 'NOT met'}); gateway CPU per call ${cpuRatio.toFixed(2)}× server-everything's (≤ 1: ${cpuRatio <= 1 ? 'met' : 'NOT met'})`);
  console.log(`(${ROUNDS} rounds of ${CALLS_PER_BLOCK} calls per side and level, after ${WARM_UP_CALLS} warm-up calls per side)`);
  const json = Object.fromEntries(
    LEVELS.map((sessions) => {
      const figures = levels[sessions]!;
      return [
        `sessions_${sessions}`,
        Object.fromEntries(SIDES.map((side) => [side, { p50_ms: round(figures[side].p50), p99_ms: round(figures[side].p99), per_s: round(figures[side].perSecond, 1), cpu_ms_per_call: Object.fromEntries(Object.entries(figures[side].cpu).map(([k, v]) => [k, round(v)])) }])),
      ];
    }),
  );
  let stages: Record<string, number> | undefined;
  if (PROFILE) {
    stages = await profileStages(credential);
    console.log(`\nWhere the gateway's time goes, from a CPU profile (${PROFILE_CALLS} calls, ${THROUGHPUT_LEVEL} sessions; ms per call, wall-clock samples):`);
    for (const [label, ms] of Object.entries(stages)) console.log(`  ${label.padEnd(48)} ${ms.toFixed(3)}`);
  }
  console.log(JSON.stringify({ bench: 'gateway', ...(stages ? { stages_ms_per_call: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k.trim(), round(v)])) } : {}), p50_ratio: round(p50Ratio), throughput_ratio: round(throughputRatio), gateway_cpu_vs_server: round(cpuRatio), tooldeck_vs_bare_proxy_p50_at_1: round(levels[1]!.tooldeck.p50 / levels[1]!.proxy.p50), tooldeck_vs_bare_proxy_throughput_at_8: round(at8.tooldeck.perSecond / at8.proxy.perSecond), ...json }));
} finally {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const child of children) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
  await everything.close();
  rmSync(dataDir, { recursive: true, force: true });
}
