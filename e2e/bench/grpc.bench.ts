// gRPC benchmark: what the registry adds to an ExecuteTool call of a tools.v1 server. Run: tsx
// e2e/bench/grpc.bench.ts (or `npm run bench -- grpc`). The last line is JSON.
//
// The baseline is the same ExecuteTool sent directly on the same channel (ToolServerClient); the
// measured path is the pipeline (lookup, validation, policy, deadline, cap, record). Rounds of the
// two are interleaved so both see the same machine; the figure is the ratio of their medians.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startToolsV1Server } from '../peers/grpc/grpcPeers';
import { GrpcConnection } from '../../main/grpc/GrpcConnection';
import { GrpcSources } from '../../main/grpc/GrpcSources';
import { ToolServerClient } from '../../main/grpc/ToolServerClient';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { InvocationPipeline } from '../../main/registry/InvocationPipeline';
import { MemoryInvocationRecorder } from '../../main/registry/testing/MemoryInvocationRecorder';
import { ToolCatalog } from '../../main/registry/ToolCatalog';
import { operatorCaller } from '../../shared/caller';
import { benchCount } from './benchStats';

const ROUNDS = benchCount(25, 2);
const CALLS_PER_ROUND = benchCount(100, 10);
const ARGS = { value: 12.5, from: 'km', to: 'mi' };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const peer = await startToolsV1Server();
const catalog = new ToolCatalog();
const sources = new GrpcSources({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-grpc-bench-')), catalog, secretStore: new MemorySecretStore(), logger: silentLogger });
await sources.add({ name: 'bench', address: peer.address });
const pipeline = new InvocationPipeline({ catalog, recorder: new MemoryInvocationRecorder() });
const direct = new GrpcConnection({ address: peer.address, tls: { mode: 'plaintext' } }, async () => ({}));
const client = new ToolServerClient(direct.channel);

async function round(piped: boolean): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < CALLS_PER_ROUND; i++) {
    if (piped) {
      const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:bench.convert_units', arguments: ARGS });
      if (outcome.error) throw new Error(outcome.error.message);
    } else {
      await client.executeTool('convert_units', '1.0.0', ARGS, await direct.options(30_000));
    }
  }
  return ((performance.now() - start) * 1000) / CALLS_PER_ROUND;
}

await round(true);
await round(false);
const pipedUs: number[] = [];
const directUs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  pipedUs.push(await round(true));
  directUs.push(await round(false));
}
direct.close();
await sources.close();
await peer.stop();
const piped = median(pipedUs);
const baseline = median(directUs);
console.log(`ExecuteTool direct: ${baseline.toFixed(0)} µs/call; through the pipeline: ${piped.toFixed(0)} µs/call; ratio ${(piped / baseline).toFixed(3)}`);
console.log(JSON.stringify({ bench: 'grpc', direct_us: Math.round(baseline), piped_us: Math.round(piped), overhead_ratio: Number((piped / baseline).toFixed(3)) }));
