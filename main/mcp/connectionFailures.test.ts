import { spawn } from 'node:child_process';
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
import { operatorCaller } from '../../shared/caller';

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

const peerProcesses: Array<ReturnType<typeof spawn>> = [];

afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  for (const child of peerProcesses.splice(0)) child.kill();
});

/** The large result server over HTTP on a free port (see largeResultServer.mjs for its paths); resolves with its origin. */
async function startLargeResultHttp(): Promise<string> {
  const child = spawn(process.execPath, [join(peers, 'largeResultServer.mjs')], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  peerProcesses.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const port = /listening on port (\d+)/.exec(output)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the large result server exited (${code}): ${output}`)));
  });
}

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
    // Killed once the call is on its way (its tools/call request is in the transcript), never after
    // a fixed delay: on a loaded machine a delay can fire before the call was sent.
    await waitFor(() => service.transcript('dies')!.list().find((entry) => entry.direction === 'out' && entry.method === 'tools/call'));
    process.kill(firstPid, 'SIGKILL');
    await expect(call).rejects.toThrow(/closed/i);
    const recovered = await waitFor(() => {
      const snapshot = service.get('dies');
      // Ready is shown from the handshake on, while the tools are still being listed: wait for the list too.
      return snapshot.state.status === 'ready' && !snapshot.state.listing && snapshot.pid !== firstPid ? snapshot : undefined;
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

/** A service whose connections refuse results over `maxResultBytes` (settings limits.maxResultMiB). */
function serviceWithResultLimit(maxResultBytes: number): McpService {
  return new McpService({
    dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-mcp-')),
    secretStore: new MemorySecretStore(),
    logger: silentLogger,
    clientInfo: { name: 'tooldeck-test', version: '0.0.0' },
    maxResultBytes,
  });
}

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
      const result = await tools.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:slow.echo', arguments: { message: 'patient' }, timeoutMs: 800 });
      expect(result.error).toBeUndefined();
      expect(result.record.responseBytes).toBeGreaterThan(200_000);
    } finally {
      await service.close();
    }
  });

  it('a result over the hard limit fails with ResultTooLarge naming both sizes, and the connection stays up', async () => {
    const service = serviceWithResultLimit(2 * 1024 * 1024);
    const tools = pipelineFor(service);
    try {
      await service.save({ config: { name: 'large', transport: 'stdio', command: process.execPath, args: [join(peers, 'largeResultServer.mjs')] } as never });
      const outcome = await tools.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:large.blob', arguments: { megabytes: 3 } });
      expect(outcome.error).toMatchObject({ code: 'ResultTooLarge', retryable: false });
      expect(outcome.error!.message).toMatch(/^mcp:large\.blob: The reply is 3\.0 MiB, over the 2 MiB a result may have; it was not read$/);
      expect(service.get('large').state.status).toBe('ready');
      expect((await tools.call('large', 'blob', { megabytes: 1 })).content).toHaveLength(1);
    } finally {
      await service.close();
    }
  });

  it('the same limit holds over HTTP: Streamable HTTP (event-stream and JSON replies) and legacy HTTP+SSE', async () => {
    const origin = await startLargeResultHttp();
    const service = serviceWithResultLimit(2 * 1024 * 1024);
    services.push(service);
    // The pipeline's own cap on what it keeps of a result is not the subject: lifted.
    const tools = pipelineFor(service, { maxToolResultBytes: 64 * 1024 * 1024 });
    const servers = [
      { name: 'events', transport: 'http', url: `${origin}/mcp` },
      { name: 'json', transport: 'http', url: `${origin}/mcp-json` },
      { name: 'legacy', transport: 'sse', url: `${origin}/sse` },
    ];
    for (const config of servers) {
      await service.save({ config: config as never });
      expect(service.get(config.name).state.status).toBe('ready');
      const outcome = await tools.pipeline.invoke({ caller: operatorCaller('cli'), name: `mcp:${config.name}.blob`, arguments: { megabytes: 3 } });
      expect(outcome.error, config.name).toMatchObject({ code: 'ResultTooLarge', retryable: false });
      expect(outcome.error!.message).toMatch(new RegExp(`^mcp:${config.name}\\.blob: The reply is 3\\.0 MiB, over the 2 MiB a result may have; it was not read$`));
      // Refused, not broken: the connection stays up and a result within the limit arrives whole.
      expect(service.get(config.name).state.status).toBe('ready');
      const within = await tools.call(config.name, 'blob', { megabytes: 1.5 });
      expect((within.content[0] as { text: string }).text.length, config.name).toBe(1.5 * 1024 * 1024);
    }
  });
});

describe('a server that breaks the rules stays usable', () => {
  const misbehaving = join(peers, 'MisbehavingServerForTests.mjs');
  const saveMisbehaving = (service: McpService, name: string, flag: string) =>
    service.save({ config: { name, transport: 'stdio', command: process.execPath, args: [misbehaving, flag] } as never });

  it('a tool name listed twice: the first definition is used, every tool stays callable, and the duplicate is a problem of the server', async () => {
    const service = newService();
    const tools = pipelineFor(service);
    await saveMisbehaving(service, 'twice', '--duplicate-tools');
    const snapshot = service.get('twice');
    expect(snapshot.state.status).toBe('ready');
    expect(snapshot.tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['echo', 'Echoes its message'],
      ['add', 'Adds two numbers'],
    ]);
    // What the console shows on the server (ServerDetail) and the CLI prints as a warning.
    expect(snapshot.problems).toEqual(['Tool "echo" is listed more than once; the first definition is used.']);
    // Every tool stays callable, the unique ones too (the catalog refuses two entries of one name,
    // which used to cost the server all its tools).
    expect(await tools.call('twice', 'add', { a: 2, b: 3 })).toMatchObject({ content: [{ type: 'text', text: '5' }] });
    expect(await tools.call('twice', 'echo', { message: 'hi' })).toMatchObject({ content: [{ type: 'text', text: 'Echo: hi' }] });
  });

  it('a tool whose schema is malformed is unusable, with the reason; the server is ready and its other tools work', async () => {
    const service = newService();
    const tools = pipelineFor(service);
    await saveMisbehaving(service, 'malformed', '--bad-schema');
    const snapshot = service.get('malformed');
    expect(snapshot.state.status).toBe('ready');
    expect(snapshot.tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    expect(snapshot.problems).toEqual([
      'Tool "broken" is unusable (inputSchema: Invalid input: expected object, received string); the other tools work.',
      // A schema, but of a string: the spec requires an object schema for a tool's arguments.
      'Tool "scalar" is unusable (inputSchema.type: Invalid input: expected "object"); the other tools work.',
    ]);
    expect(await tools.call('malformed', 'add', { a: 1, b: 1 })).toMatchObject({ content: [{ type: 'text', text: '2' }] });
    const unusable = await tools.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:malformed.scalar', arguments: {}, confirmed: true });
    expect(unusable.error).toMatchObject({ code: 'ToolNotFound' });
  });

  it('garbage instead of a reply: the failed call quotes a short excerpt of it, its control characters escaped', async () => {
    const service = newService();
    const tools = pipelineFor(service);
    await saveMisbehaving(service, 'garbage', '--garbage-reply');
    // No reply ever comes, so the call can only end by its timeout or by being canceled: it is
    // canceled once the garbage has been read (what a timeout would report too, without a race
    // against the clock; the CLI test in e2e/cli/misbehaving.test.ts runs into the timeout).
    const cancel = new AbortController();
    const call = tools.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:garbage.echo', arguments: { message: 'hi' }, timeoutMs: 600_000, signal: cancel.signal, confirmed: true });
    await waitFor(() => (service.transcript('garbage')!.list().some((entry) => entry.text.startsWith('Not JSON-RPC on stdout')) ? true : undefined));
    cancel.abort();
    const outcome = await call;
    expect(outcome.error).toMatchObject({ code: 'Canceled' });
    expect(outcome.error!.message).toContain('the server wrote output that is not JSON-RPC meanwhile: «"Traceback (most recent call last): \\u001b[31mKeyError\\u001b[0m: something broke"»');
    expect(outcome.error!.message).not.toContain('\u001b');
    expect(service.get('garbage').state.status).toBe('ready');
  });
});
