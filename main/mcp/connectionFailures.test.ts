import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { everythingStdio, freePort } from '../../e2e/peers/mcp/everything';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from './McpService';
import { pipelineFor } from './testing/pipelineFor';

const peers = resolve(import.meta.dirname, '../../e2e/peers/mcp');
const services: McpService[] = [];

function newService(connectTimeoutMs = 15_000) {
  const service = new McpService({
    dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-mcp-bad-')),
    secretStore: new MemorySecretStore(),
    logger: silentLogger,
    clientInfo: { name: 'tooldeck-test', version: '0' },
    connectTimeoutMs,
    reconnect: { baseMs: 100, maxMs: 400 },
  });
  services.push(service);
  return service;
}

afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

async function connectError(service: McpService, name: string): Promise<AppError> {
  try {
    await service.connect(name);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected the connection to fail');
}

describe('the connection doctor names the step that failed', () => {
  it('spawn: a command that does not exist', async () => {
    const service = newService();
    await service.save({ config: { name: 'typo', transport: 'stdio', command: 'mcp-server-that-does-not-exist', args: [] } as never });
    const error = await connectError(service, 'typo');
    expect(error).toMatchObject({ code: 'ConnectionFailed', step: 'spawn' });
    expect(error.message).toMatch(/Cannot start "mcp-server-that-does-not-exist": command not found/);
    expect(service.get('typo').state).toMatchObject({ status: 'error', step: 'spawn' });
  });

  it('transport: a URL that refuses connections', async () => {
    const service = newService();
    const port = await freePort();
    await service.save({ config: { name: 'nobody-home', transport: 'http', url: `http://127.0.0.1:${port}/mcp` } as never });
    const error = await connectError(service, 'nobody-home');
    expect(error).toMatchObject({ code: 'ConnectionFailed', step: 'transport' });
    expect(error.message).toMatch(/Cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: ECONNREFUSED/);
  });

  it('negotiation: a server that writes garbage to stdout', async () => {
    const service = newService(1_500);
    await service.save({ config: { name: 'garbage', transport: 'stdio', command: process.execPath, args: [join(peers, 'FakeGarbageServer.mjs')] } as never });
    const error = await connectError(service, 'garbage');
    expect(error).toMatchObject({ code: 'ConnectionFailed', step: 'negotiation' });
    expect(error.message).toMatch(/not JSON-RPC/);
    expect(error.message).toContain('fake server: started without a protocol');
  });

  it('negotiation: a server that never answers', async () => {
    const service = newService(1_000);
    await service.save({ config: { name: 'silent', transport: 'stdio', command: process.execPath, args: [join(peers, 'FakeSilentServer.mjs')] } as never });
    const error = await connectError(service, 'silent');
    expect(error).toMatchObject({ step: 'negotiation' });
    expect(error.message).toMatch(/did not answer the protocol handshake in time/);
  });

  it('a server that exits mid-call fails that call clearly, then reconnects with backoff', async () => {
    const service = newService();
    const tools = pipelineFor(service);
    await service.save({ config: everythingStdio('dies') as never });
    const firstPid = service.get('dies').pid!;
    const call = tools.call('dies', 'trigger-long-running-operation', { duration: 10, steps: 10 });
    setTimeout(() => process.kill(firstPid, 'SIGKILL'), 300);
    await expect(call).rejects.toThrow(/closed/i);
    const recovered = await waitFor(() => {
      const snapshot = service.get('dies');
      return snapshot.state.status === 'ready' && snapshot.pid !== firstPid ? snapshot : undefined;
    });
    expect(recovered.tools.length).toBeGreaterThan(5);
  });

  it('a 20 MB result arrives whole over stdio without breaking the connection', async () => {
    const service = newService();
    const tools = pipelineFor(service, { maxToolResultBytes: 64 * 1024 * 1024 });
    await service.save({ config: { name: 'large', transport: 'stdio', command: process.execPath, args: [join(peers, 'largeResultServer.mjs')] } as never });
    const result = await tools.call('large', 'blob', { megabytes: 20 });
    expect((result.content[0] as { text: string }).text.length).toBe(20 * 1024 * 1024);
    expect(await tools.call('large', 'blob', { megabytes: 0.001 })).toMatchObject({ content: [{ type: 'text' }] });
    // The transcript keeps a bounded preview, not the 20 MB.
    const biggest = Math.max(...service.transcript('large')!.list().map((e) => e.text.length));
    expect(biggest).toBeLessThan(64 * 1024);
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

describe('large and slow results', () => {
  const misbehaving = join(peers, 'MisbehavingServerForTests.mjs');

  it('a reply that arrives slowly is not timed out once it has started: receiving does not count', async () => {
    const service = newService();
    const tools = pipelineFor(service);
    try {
      await service.save({ config: { name: 'slow', transport: 'stdio', command: process.execPath, args: [misbehaving, '--slow-reply'] } as never });
      // 20 pieces 100 ms apart: 2 s in all, under a 800 ms answer timeout.
      const result = await tools.pipeline.invoke({ name: 'mcp:slow.echo', arguments: { message: 'patient' }, timeoutMs: 800 });
      expect(result.error).toBeUndefined();
      expect(result.record.responseBytes).toBeGreaterThan(200_000);
    } finally {
      await service.close();
    }
  });

  it('a result over the hard limit fails with ResultTooLarge naming both sizes, and the connection stays up', async () => {
    const service = new McpService({
      dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-mcp-')),
      secretStore: new MemorySecretStore(),
      logger: silentLogger,
      clientInfo: { name: 'tooldeck-test', version: '0.0.0' },
      maxResultBytes: 2 * 1024 * 1024,
    });
    const tools = pipelineFor(service);
    try {
      await service.save({ config: { name: 'large', transport: 'stdio', command: process.execPath, args: [join(peers, 'largeResultServer.mjs')] } as never });
      const outcome = await tools.pipeline.invoke({ name: 'mcp:large.blob', arguments: { megabytes: 3 } });
      expect(outcome.error).toMatchObject({ code: 'ResultTooLarge', retryable: false });
      expect(outcome.error!.message).toMatch(/^mcp:large\.blob: The reply is 3\.0 MiB, over the 2 MiB a result may have; it was not read$/);
      expect(service.get('large').state.status).toBe('ready');
      expect((await tools.call('large', 'blob', { megabytes: 1 })).content).toHaveLength(1);
    } finally {
      await service.close();
    }
  });
});
