// npm run bench -- load
// The highest echo rate sustained over Streamable HTTP against server-everything: Tooldeck's load
// runner (open model, every call through the invocation pipeline and recorded in history) versus a
// bare MCP SDK client loop, both with the same number of calls in flight, in alternating rounds
// within this one process against the same server. The load runner is asked for far more than
// the server can take, so what it achieves is the ceiling at that concurrency; the SDK loop keeps
// its calls in flight back to back. The last line is JSON.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createCore } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { Collection } from '../../shared/collections';
import { startEverythingHttp } from '../peers/mcp/everything';
import { round } from './benchStats';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 5_000);
// Five rounds per side: with three, one slow round on this kind of machine (two shared vCPUs) moved
// the median enough to swing the ratio by ±0.15 from run to run.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Far above what one server process answers on this machine, so the runner is never short of arrivals. */
const ASKED_RPS = 10_000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const http = await startEverythingHttp('streamableHttp');
const core = await createCore({ appVersion: 'bench', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-bench-load-')), secretStore: new MemorySecretStore(), logger: silentLogger });
const client = new Client({ name: 'bench-bare', version: '0' }, { versionNegotiation: { mode: 'auto' } });
try {
  await core.mcp.save({ config: { name: 'http', transport: 'http', url: http.url } as never });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  const collection = Collection.parse({ name: 'bench', requests: [{ name: 'echo', target: 'mcp:http', tool: 'echo', arguments: { message: 'bench' } }] });
  const args = { message: 'bench' };

  const tooldeck = async (ms: number) => {
    const summary = await core.collections.load(collection, { rps: ASKED_RPS, durationMs: ms, concurrency: CONCURRENCY }).summary;
    if (summary.errors) throw new Error(`the load run had ${summary.errors} errors: ${JSON.stringify(summary.errorsByCode)}`);
    return summary.achievedRps;
  };
  const sdk = async (ms: number) => {
    let done = 0;
    const start = performance.now();
    const end = start + ms;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < end) {
          await client.callTool({ name: 'echo', arguments: args });
          if (performance.now() <= end) done++;
        }
      }),
    );
    return done / (ms / 1000);
  };

  await tooldeck(1_000);
  await sdk(1_000);
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // ABBA order, so drift (GC, JIT, the other core) falls on both sides alike.
    const order = i % 2 === 0 ? (['tooldeck', 'sdk'] as const) : (['sdk', 'tooldeck'] as const);
    for (const side of order) {
      const rps = side === 'tooldeck' ? await tooldeck(ROUND_MS) : await sdk(ROUND_MS);
      (side === 'tooldeck' ? ours : theirs).push(rps);
      console.log(`round ${i + 1}  ${side.padEnd(8)} ${rps.toFixed(1)} calls/s`);
    }
  }
  const tooldeckRps = median(ours);
  const sdkRps = median(theirs);
  const ratio = tooldeckRps / sdkRps;
  console.log(
    `Streamable HTTP echo at ${CONCURRENCY} in flight: tooldeck load runner ${tooldeckRps.toFixed(1)}/s | bare SDK loop ${sdkRps.toFixed(1)}/s | ratio ${ratio.toFixed(3)} (target ≥ 0.90; median of ${ROUNDS} rounds of ${ROUND_MS / 1000} s each)`,
  );
  console.log(JSON.stringify({ bench: 'load', ratio: round(ratio), tooldeck_rps: round(tooldeckRps, 1), sdk_rps: round(sdkRps, 1), concurrency: CONCURRENCY }));
} finally {
  await client.close();
  await core.close();
  await http.close();
}
