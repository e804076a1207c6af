import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates, startReflectionServer, startToolsV1Server, type GrpcPeer, type TestCertificates } from '../../e2e/peers/grpc/grpcPeers';
import { createStderrLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { MemoryInvocationRecorder } from '../registry/testing/MemoryInvocationRecorder';
import { ToolCatalog } from '../registry/ToolCatalog';
import { GrpcSources, grpcMetadataSecretKey } from './GrpcSources';
import { operatorCaller } from '../../shared/caller';

/**
 * Real peers: the tools.v1 server written for the tests from the contract in
 * main/grpc/proto/tools/v1/tool_server.proto, and the Python
 * grpcio server with the health and reflection packages — over plaintext, TLS and mTLS with
 * certificates made for the run.
 */
describe('gRPC sources against real servers', () => {
  let plain: GrpcPeer;
  let withToken: GrpcPeer;
  let tlsPeer: GrpcPeer;
  let mtlsPeer: GrpcPeer;
  let reflecting: GrpcPeer;
  let silent: GrpcPeer;
  let certs: TestCertificates;
  let http1: Server;
  let http1Port: number;

  beforeAll(async () => {
    certs = makeTestCertificates();
    const tls = { cert: certs.files.serverCert, key: certs.files.serverKey };
    [plain, withToken, tlsPeer, mtlsPeer, reflecting, silent] = await Promise.all([
      startToolsV1Server(),
      startToolsV1Server({ token: 's3cret-token' }),
      startToolsV1Server({ tls }),
      startToolsV1Server({ tls: { ...tls, clientCa: certs.files.ca } }),
      startReflectionServer(),
      startReflectionServer({ reflection: false }),
    ]);
    http1 = createServer((_req, res) => res.end('plain HTTP/1.1'));
    await new Promise<void>((resolve) => http1.listen(0, '127.0.0.1', resolve));
    http1Port = (http1.address() as { port: number }).port;
  }, 600_000);

  afterAll(async () => {
    await Promise.all([plain, withToken, tlsPeer, mtlsPeer, reflecting, silent].map((peer) => peer?.stop()));
    await new Promise((resolve) => http1?.close(resolve));
  });

  function setup() {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-grpc-'));
    const catalog = new ToolCatalog();
    const recorder = new MemoryInvocationRecorder();
    const secretStore = new MemorySecretStore();
    const sources = new GrpcSources({ dataDir, catalog, secretStore, logger: createStderrLogger('error') });
    const pipeline = new InvocationPipeline({ catalog, recorder });
    return { dataDir, catalog, recorder, secretStore, sources, pipeline };
  }

  it('lists a tools.v1 server into the registry with versions, keeping an unusable tool out with its reason', async () => {
    const { sources, catalog } = setup();
    const view = await sources.add({ name: 'weather', address: plain.address });
    expect(view.state).toBe('ready');
    const forecast = view.tools.find((tool) => tool.name === 'forecast')!;
    expect(forecast).toMatchObject({ version: '2.1.0', compatibleVersions: ['2.0.0'], callVersion: '2.1.0', registryName: 'grpc:weather.forecast' });
    const broken = view.tools.find((tool) => tool.name === 'broken_schema')!;
    expect(broken.unusable).toMatch(/schema is not valid JSON/);
    expect(broken.registryName).toBeUndefined();
    expect(catalog.list({ source: 'grpc:weather' }).map((entry) => entry.toolName)).toEqual(['convert_units', 'deadline', 'fail', 'forecast', 'sleep', 'status']);
    expect(catalog.get('grpc:weather.forecast')?.grpc).toMatchObject({ version: '2.1.0', compatibleVersions: ['2.0.0'] });
    await sources.close();
  });

  it('runs ExecuteTool through the pipeline: validation first, the JSON result, a record', async () => {
    const { sources, pipeline, recorder } = setup();
    await sources.add({ name: 'weather', address: plain.address });
    const ok = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.forecast', arguments: { city: 'Oslo', days: 2 } });
    expect(ok.error).toBeUndefined();
    expect(ok.result?.structuredContent).toMatchObject({ city: 'Oslo', days: 2, forecast: [{ day: 1 }, { day: 2 }] });
    expect(recorder.list().at(-1)).toMatchObject({ sourceKind: 'grpc', sourceName: 'weather', tool: 'forecast', status: 'ok' });
    const invalid = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.forecast', arguments: { days: 9 } });
    expect(invalid.error).toMatchObject({ code: 'InvalidArguments', step: 'validate' });
    await sources.close();
  });

  it('maps a non-empty error to ExecutionFailed and gRPC statuses to Tooldeck codes', async () => {
    const { sources, pipeline } = setup();
    await sources.add({ name: 'weather', address: plain.address });
    const call = (name: string, args: Record<string, unknown>) => pipeline.invoke({ caller: operatorCaller('cli'), name: `grpc:weather.${name}`, arguments: args });
    expect((await call('fail', {})).error).toMatchObject({ code: 'ExecutionFailed', message: expect.stringContaining('boom') });
    const expected: Record<string, [string, boolean]> = {
      INVALID_ARGUMENT: ['InvalidArguments', false],
      NOT_FOUND: ['ToolNotFound', false],
      UNAUTHENTICATED: ['Unauthorized', false],
      PERMISSION_DENIED: ['Unauthorized', false],
      DEADLINE_EXCEEDED: ['Timeout', true],
      UNAVAILABLE: ['ExecutionFailed', true],
      RESOURCE_EXHAUSTED: ['ExecutionFailed', true],
      INTERNAL: ['ExecutionFailed', false],
    };
    for (const [status, [code, retryable]] of Object.entries(expected)) {
      const outcome = await call('status', { code: status, message: `said ${status}` });
      expect(outcome.error, status).toMatchObject({ code, retryable, message: expect.stringContaining(`said ${status}`) });
    }
    await sources.close();
  });

  it('sends the effective timeout as the deadline, and times out a call that outlives it', async () => {
    const { sources, pipeline } = setup();
    await sources.add({ name: 'weather', address: plain.address });
    // Far below the runtime's 30 s default, so the server can only have seen the timeout asked for.
    const seen = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.deadline', timeoutMs: 8_000 });
    const remaining = (seen.result?.structuredContent as { remaining_ms: number }).remaining_ms;
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThanOrEqual(8_000);
    const slow = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.sleep', arguments: { ms: 3_000 }, timeoutMs: 300 });
    expect(slow.error?.code).toBe('Timeout');
    await sources.close();
  });

  it('retries UNAVAILABLE as the runtime policy of a workspace source allows', async () => {
    const { sources, pipeline, catalog } = setup();
    sources.applyWorkspace([{ name: 'ws', address: plain.address, tls: { mode: 'plaintext' }, config: { runtime: { retry: { max_attempts: 3, backoff: '10ms' } } } }]);
    await sources.ensureListed('ws');
    expect(catalog.get('grpc:ws.status')?.runtime.retry.maxAttempts).toBe(3);
    const outcome = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:ws.status', arguments: { code: 'UNAVAILABLE' } });
    expect(outcome.record.attempts).toBe(3);
    expect(sources.get('ws').managedBy).toBe('workspace');
    sources.applyWorkspace([]);
    expect(catalog.list({ source: 'grpc:ws' })).toEqual([]);
    await sources.close();
  });

  it('carries the pinned version: a compatible one runs, an incompatible one is reported as such', async () => {
    const { sources, pipeline } = setup();
    await sources.add({ name: 'weather', address: plain.address });
    await sources.pin('weather', 'forecast', '2.0.0');
    expect(sources.get('weather').tools.find((tool) => tool.name === 'forecast')).toMatchObject({ pinnedVersion: '2.0.0', callVersion: '2.0.0' });
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.forecast', arguments: { city: 'Rome' } })).error).toBeUndefined();
    await sources.pin('weather', 'forecast', '1.0.0');
    const refused = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.forecast', arguments: { city: 'Rome' } });
    expect(refused.error).toMatchObject({ code: 'ExecutionFailed', step: 'version' });
    expect(refused.error?.message).toMatch(/incompatible version.*"1\.0\.0".*2\.1\.0.*2\.0\.0/);
    await sources.pin('weather', 'forecast', undefined);
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.forecast', arguments: { city: 'Rome' } })).error).toBeUndefined();
    await sources.close();
  });

  it('keeps metadata in the secret store: refused without it, nothing saved; never written to the file', async () => {
    const { sources, pipeline, dataDir, secretStore } = setup();
    await expect(sources.add({ name: 'guarded', address: withToken.address })).rejects.toMatchObject({ code: 'Unauthorized' });
    expect(sources.has('guarded')).toBe(false);
    await sources.add({ name: 'guarded', address: withToken.address, metadata: { authorization: 'Bearer s3cret-token' } });
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:guarded.convert_units', arguments: { value: 10, from: 'km', to: 'mi' } })).result?.structuredContent).toEqual({ value: 6.2137, unit: 'mi' });
    const file = readFileSync(join(dataDir, 'grpc-sources.json'), 'utf8');
    expect(file).not.toContain('s3cret-token');
    expect(JSON.parse(file).sources[0].metadataKeys).toEqual(['authorization']);
    expect(await secretStore.get(grpcMetadataSecretKey('guarded', 'authorization'))).toBe('Bearer s3cret-token');
    await sources.close();
  });

  it('speaks TLS with a private CA and mTLS with a client certificate', async () => {
    const { sources, pipeline, dataDir } = setup();
    await sources.add({ name: 'secure', address: tlsPeer.address, tls: { mode: 'tls', ca: certs.pem.ca } });
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:secure.forecast', arguments: { city: 'Lima' } })).error).toBeUndefined();
    await sources.add({ name: 'mutual', address: mtlsPeer.address, tls: { mode: 'mtls', ca: certs.pem.ca, cert: certs.pem.clientCert, key: certs.pem.clientKey } });
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:mutual.forecast', arguments: { city: 'Lima' } })).error).toBeUndefined();
    expect(readFileSync(join(dataDir, 'grpc-sources.json'), 'utf8')).not.toContain('PRIVATE KEY');
    await sources.close();
  });

  it('names the step an unreachable endpoint fails at: DNS, TCP, TLS handshake, HTTP/2', async () => {
    const { sources } = setup();
    const failure = (address: string, tls?: Parameters<GrpcSources['add']>[0]['tls']) => sources.add({ name: 'x', address, ...(tls ? { tls } : {}) }).then(() => undefined, (error: unknown) => error);
    expect(await failure('no-such-host.invalid:50051')).toMatchObject({ code: 'ConnectionFailed', step: 'dns' });
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
    expect(await failure(`127.0.0.1:${closed}`)).toMatchObject({ code: 'ConnectionFailed', step: 'tcp' });
    expect(await failure(tlsPeer.address, { mode: 'tls' })).toMatchObject({ code: 'ConnectionFailed', step: 'tls', message: expect.stringMatching(/certificate/i) });
    expect(await failure(tlsPeer.address, { mode: 'tls', ca: certs.pem.otherCa })).toMatchObject({ step: 'tls' });
    expect(await failure(tlsPeer.address)).toMatchObject({ step: 'tls', message: expect.stringMatching(/expects TLS/) });
    expect(await failure(mtlsPeer.address, { mode: 'tls', ca: certs.pem.ca })).toMatchObject({ code: 'ConnectionFailed', step: 'tls' });
    expect(await failure(`127.0.0.1:${http1Port}`)).toMatchObject({ code: 'ConnectionFailed', step: 'http2' });
    await sources.close();
  });

  it('reflects any service: methods with schemas, unary calls with trailers, server streams as progress, status codes', async () => {
    const { sources, pipeline } = setup();
    const view = await sources.add({ name: 'peer', address: reflecting.address, protocol: 'reflection' });
    expect(view.services.map((service) => service.name)).toEqual(expect.arrayContaining(['grpc.health.v1.Health', 'explorer.v1.Explorer']));
    const health = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:peer.grpc.health.v1.Health/Check', arguments: { service: 'explorer.v1.Explorer' } });
    expect(health.result?.structuredContent).toMatchObject({ response: { status: 'SERVING' }, status: { code: 0, name: 'OK' } });

    const echo = view.services.find((service) => service.name === 'explorer.v1.Explorer')!.methods.find((method) => method.method === 'Echo')!;
    // The renderer's form test (renderer/src/features/grpc/GrpcMethodPanel.form.test.tsx) fills in
    // this method view from a file, since the renderer cannot reflect; the file must stay exactly what
    // reflection of the real server yields, or that test would pass on a schema the app never shows.
    expect(echo).toEqual(JSON.parse(readFileSync(new URL('../../renderer/src/features/grpc/testing/explorerEchoMethod.json', import.meta.url), 'utf8')));
    const schema = echo.requestSchema as { properties: Record<string, Record<string, unknown>>; oneOf: unknown[]; $defs: Record<string, unknown> };
    // Every message and enum type is one $defs entry, referenced where used (see descriptorSchema.ts).
    expect(schema.properties.priority).toEqual({ $ref: '#/$defs/explorer.v1.Priority', title: 'priority' });
    expect(schema.$defs['explorer.v1.Priority']).toMatchObject({ enum: ['PRIORITY_UNSPECIFIED', 'PRIORITY_LOW', 'PRIORITY_HIGH'] });
    expect(schema.properties.at).toMatchObject({ format: 'date-time' });
    expect(schema.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(schema.properties.counts).toMatchObject({ type: 'object', additionalProperties: { type: 'integer' } });
    expect(schema.properties.address).toEqual({ $ref: '#/$defs/explorer.v1.Address', title: 'address' });
    expect(schema.$defs['explorer.v1.Address']).toMatchObject({ type: 'object', properties: { street: { type: 'string' } } });
    expect(schema.properties.big).toMatchObject({ type: 'string', pattern: '^-?[0-9]+$' });
    expect(schema.oneOf).toHaveLength(3);
    expect(schema.$defs['explorer.v1.Node']).toBeDefined();

    const args = {
      text: 'hi',
      times: 2,
      big: '9007199254740993',
      priority: 'PRIORITY_HIGH',
      tags: ['a', 'b'],
      counts: { x: 1 },
      address: { street: 'Main', city: 'Oslo' },
      email: 'a@b.c',
      urgent: true,
      at: '2026-01-31T12:00:00Z',
      wait: '1.5s',
      extra: { any: ['json', 1] },
      nickname: 'nick',
      tree: { label: 'root', children: [{ label: 'leaf' }] },
    };
    const reply = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:peer.explorer.v1.Explorer/Echo', arguments: args });
    expect(reply.error).toBeUndefined();
    const structured = reply.result?.structuredContent as { response: { request: Record<string, unknown>; summary: string }; trailers: Record<string, string> };
    expect(structured.response.summary).toBe('hi hi');
    expect(structured.response.request).toMatchObject({ big: '9007199254740993', priority: 'PRIORITY_HIGH', email: 'a@b.c', at: '2026-01-31T12:00:00Z', wait: '1.500s', nickname: 'nick', tree: { children: [{ label: 'leaf' }] } });
    expect(structured.trailers['x-echo-count']).toBe('2');

    const twoContacts = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:peer.explorer.v1.Explorer/Echo', arguments: { email: 'a@b.c', phone: '1' } });
    expect(twoContacts.error).toMatchObject({ code: 'InvalidArguments' });

    const progress: string[] = [];
    const counted = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:peer.explorer.v1.Explorer/Count', arguments: { to: 3, intervalMs: 10 }, onProgress: (p) => progress.push(p.message!) });
    expect(progress.map((message) => JSON.parse(message))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(counted.result?.structuredContent).toMatchObject({ responses: [{ n: 1 }, { n: 2 }, { n: 3 }], status: { name: 'OK' } });

    const controller = new AbortController();
    const canceled = await pipeline.invoke({ caller: operatorCaller('cli'),
      name: 'grpc:peer.explorer.v1.Explorer/Count',
      arguments: { to: 1000, intervalMs: 20 },
      signal: controller.signal,
      onProgress: (p) => (p.progress >= 2 ? controller.abort() : undefined),
    });
    expect(canceled.error?.code).toBe('Canceled');

    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:peer.explorer.v1.Explorer/Fail', arguments: { code: 'PERMISSION_DENIED' } })).error).toMatchObject({ code: 'Unauthorized' });
    await sources.close();
  });

  it('says so when a server offers no reflection', async () => {
    const { sources } = setup();
    await expect(sources.explore({ address: silent.address })).rejects.toMatchObject({ code: 'NotFound', step: 'reflection', message: expect.stringMatching(/does not offer gRPC server reflection/) });
    const services = await sources.explore({ address: reflecting.address });
    expect(services.find((service) => service.name === 'grpc.health.v1.Health')?.methods.map((method) => [method.method, method.serverStreaming])).toEqual([
      ['Check', false],
      ['List', false],
      ['Watch', true],
    ]);
    await sources.close();
  });
});
