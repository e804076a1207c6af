// npm run bench -- mcp
// 2,000 echo calls (after 5,000 to warm up) over stdio and over Streamable HTTP, through Tooldeck's invocation pipeline
// (validate → policy → timeout → cap → record) versus the bare MCP SDK client, interleaved in
// rounds within this one process. Prints medians, p99 and ratios, the stdio ratio against its
// target (≤ 1.10, issue #19); the last line is JSON. The CLI as a whole process is measured by
// `npm run bench -- cli`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createCore } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { everythingScript, startEverythingHttp } from '../peers/mcp/everything';
import { fmt, round, summarize } from './benchStats';
import { operatorCaller } from '../../shared/caller';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = 20;
const WARM_UP_CALLS = Number(process.env.BENCH_WARM_UP ?? 5000);

async function bareClient(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: 'bench-bare', version: '0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  return client;
}

/** Issue #19: the pipeline may cost at most 10% over the bare SDK client per stdio call. */
const STDIO_TARGET = 1.1;

async function measure(label: string, viaPipeline: () => Promise<unknown>, viaSdk: () => Promise<unknown>, target?: number) {
  const pipelineTimes: number[] = [];
  const sdkTimes: number[] = [];
  // Warm both sides up (JIT, the servers' own caches) before anything counts. V8 goes on compiling
  // the longer path (pipeline, transcript, recorder) for its first ~5,000 calls (counted with
  // --trace-opt); measured after 500, its ratio was mostly compiler work competing for the CPUs.
  for (let i = 0; i < WARM_UP_CALLS; i++) {
    await viaPipeline();
    await viaSdk();
  }
  // Call by call in turns, the first of each pair alternating by round: drift (GC, JIT, the other
  // processes on the machine) hits both sides alike, which blocks of calls per side did not ensure.
  const perRound = CALLS / ROUNDS;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (let i = 0; i < perRound; i++) {
      for (const side of order) {
        const start = performance.now();
        await (side === 0 ? viaPipeline() : viaSdk());
        (side === 0 ? pipelineTimes : sdkTimes).push(performance.now() - start);
      }
    }
  }
  const tooldeck = summarize(pipelineTimes);
  const sdk = summarize(sdkTimes);
  const ratio = tooldeck.median / sdk.median;
  console.log(`${label.padEnd(6)} tooldeck median ${fmt(tooldeck.median)} p99 ${fmt(tooldeck.p99)} | bare SDK median ${fmt(sdk.median)} p99 ${fmt(sdk.p99)} | ratio ${ratio.toFixed(3)} (${target !== undefined ? `target ≤ ${target.toFixed(2)}, ${ratio <= target ? 'met' : 'NOT met'}; ` : ''}${CALLS} calls each)`);
  return { tooldeck, sdk, ratio };
}

const core = await createCore({ appVersion: 'bench', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-bench-')), secretStore: new MemorySecretStore(), logger: silentLogger });
const http = await startEverythingHttp('streamableHttp');
try {
  await core.mcp.save({ config: { name: 'stdio', transport: 'stdio', command: process.execPath, args: [everythingScript, 'stdio'] } as never });
  await core.mcp.save({ config: { name: 'http', transport: 'http', url: http.url } as never });
  const stdioBare = await bareClient(new StdioClientTransport({ command: process.execPath, args: [everythingScript, 'stdio'], stderr: 'ignore' }));
  const httpBare = await bareClient(new StreamableHTTPClientTransport(new URL(http.url)));
  const args = { message: 'bench' };

  const stdio = await measure(
    'stdio',
    () => core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:stdio.echo', arguments: args }),
    () => stdioBare.callTool({ name: 'echo', arguments: args }),
    STDIO_TARGET,
  );
  const httpResult = await measure(
    'http',
    () => core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:http.echo', arguments: args }),
    () => httpBare.callTool({ name: 'echo', arguments: args }),
  );
  await stdioBare.close();
  await httpBare.close();

  console.log(
    JSON.stringify({
      bench: 'mcp',
      stdio_ratio: round(stdio.ratio),
      http_ratio: round(httpResult.ratio),
      stdio_median_ms: round(stdio.tooldeck.median),
      stdio_sdk_median_ms: round(stdio.sdk.median),
      stdio_p99_ms: round(stdio.tooldeck.p99),
      http_median_ms: round(httpResult.tooldeck.median),
      http_sdk_median_ms: round(httpResult.sdk.median),
      http_p99_ms: round(httpResult.tooldeck.p99),
    }),
  );
} finally {
  await core.close();
  await http.close();
}
