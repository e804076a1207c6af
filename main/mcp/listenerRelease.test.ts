import { mkdtempSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp, type RunningPeer } from '../../e2e/peers/mcp/everything';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from './McpService';
import { pipelineFor } from './testing/pipelineFor';

/**
 * A long run of calls that share one cancel signal (a collection run, `serve` until stopped) must
 * release what each call attached to it: otherwise listeners pile up, Node warns about a leak and
 * memory grows with every call.
 */
const CALLS = 10_000;
const CONCURRENCY = 16;

describe(`${CALLS.toLocaleString('en-US')} calls over Streamable HTTP with one shared signal`, { timeout: 180_000 }, () => {
  let peer: RunningPeer;
  const service = new McpService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-listeners-')), secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0.0.0' } });
  const tools = pipelineFor(service);

  beforeAll(async () => {
    peer = await startEverythingHttp('streamableHttp');
    await service.init();
    await service.save({ config: { name: 'remote', transport: 'http', url: peer.url } as never });
  });
  afterAll(async () => {
    tools.close();
    await service.close();
    await peer?.close();
  });

  it('leave no abort listener behind and raise no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const run = new AbortController();
    let next = 0;
    let failed = 0;
    let peakListeners = 0;
    const worker = async () => {
      while (next < CALLS) {
        const n = next++;
        const result = await tools.call('remote', 'echo', { message: `call ${n}` }, { signal: run.signal }).catch(() => undefined);
        if (!result) failed++;
        peakListeners = Math.max(peakListeners, getEventListeners(run.signal, 'abort').length);
      }
    };
    try {
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    } finally {
      process.off('warning', onWarning);
    }
    expect(failed).toBe(0);
    // While calls run, each holds at most a few listeners; when they end, none is left.
    expect(peakListeners).toBeLessThanOrEqual(CONCURRENCY * 3);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    expect(warnings.filter((w) => /MaxListeners|memory leak/i.test(w))).toEqual([]);
  });

  it('tells a plain call’s listener its signal is released only once no listener is left on it', async () => {
    const signal = new AbortController().signal;
    const atRelease: number[] = [];
    const listener = { onProgress() {}, keepAlive() {}, releaseSignal: () => atRelease.push(getEventListeners(signal, 'abort').length) };
    const result = await service.connection('remote')!.callTool('echo', { message: 'once' }, { signal, listener, backstopMs: 30_000 });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: once' }]);
    expect(atRelease).toEqual([0]);
  });
});
