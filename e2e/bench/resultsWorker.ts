// One size of `npm run bench -- results`, in a process of its own: connect the large-result
// server, call `blob` once through the pipeline, print {mb, seconds, peakMb, status} as JSON.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCore } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { operatorCaller } from '../../shared/caller';

const mb = Number(process.argv[2]);
const server = resolve(import.meta.dirname, '../peers/mcp/largeResultServer.mjs');
const core = await createCore({ appVersion: 'bench', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-results-')), secretStore: new MemorySecretStore(), logger: silentLogger, exampleWorkspace: false, shutdownGraceMs: 200 });
await core.mcp.save({ config: { name: 'large', transport: 'stdio', command: process.execPath, args: [server] } as never });
// Warm the path with a tiny result, then settle the heap before taking the baseline.
await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:large.blob', arguments: { megabytes: 0.01 } });
global.gc?.();
const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
const started = performance.now();
const outcome = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:large.blob', arguments: { megabytes: mb }, timeoutMs: 300_000 });
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
await core.close();
console.log(JSON.stringify({ mb, seconds, peakMb: (peak - baseline) / (1024 * 1024), status: outcome.error ? `${outcome.error.code}: ${outcome.error.message.slice(0, 80)}` : `ok (${outcome.record.responseBytes} bytes)` }));
