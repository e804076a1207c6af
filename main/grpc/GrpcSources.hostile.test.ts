import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileReflectionPeer, type HostileReflectionPeer } from '../../e2e/peers/grpc/hostileReflectionPeer';
import { createStderrLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { MemoryInvocationRecorder } from '../registry/testing/MemoryInvocationRecorder';
import { ToolCatalog } from '../registry/ToolCatalog';
import { GrpcSources } from './GrpcSources';
import { SERVER_STREAM_CAPS } from './ReflectedMethods';
import { REFLECTION_CAPS } from './ReflectionClient';
import { operatorCaller } from '../../shared/caller';

/**
 * Against the hand-written hostile reflection server of e2e/peers/grpc/hostileReflectionPeer.ts: a
 * doubling DAG of depth 30 (unfolded, its schema would hold 2^30 copies of the last level), an
 * endless chain of imports, and a stream that never ends. Sizes and counts are asserted, never time.
 */
describe('gRPC reflection against a hostile server', () => {
  let dag: HostileReflectionPeer;
  let endlessTiny: HostileReflectionPeer;
  let endlessLarge: HostileReflectionPeer;

  beforeAll(async () => {
    [dag, endlessTiny, endlessLarge] = await Promise.all([
      startHostileReflectionPeer({ depth: 30 }),
      startHostileReflectionPeer({ depth: 2, endlessImports: { padBytes: 0 } }),
      startHostileReflectionPeer({ depth: 2, endlessImports: { padBytes: 512 * 1024 } }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([dag, endlessTiny, endlessLarge].map((peer) => peer?.stop()));
  });

  function setup() {
    const catalog = new ToolCatalog();
    const sources = new GrpcSources({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-grpc-hostile-')), catalog, secretStore: new MemorySecretStore(), logger: createStderrLogger('error') });
    const pipeline = new InvocationPipeline({ catalog, recorder: new MemoryInvocationRecorder() });
    return { sources, pipeline };
  }

  it('builds the schema of a doubling DAG of depth 30 with one $defs entry per type, and validates and calls through it', async () => {
    const { sources, pipeline } = setup();
    const view = await sources.add({ name: 'dag', address: dag.address, protocol: 'reflection' });
    const echo = view.services.find((service) => service.name === 'hostile.v1.Dag')!.methods.find((method) => method.method === 'Echo')!;
    expect(echo.unusable).toBeUndefined();
    const schema = echo.requestSchema as { properties: Record<string, unknown>; $defs: Record<string, unknown> };
    expect(schema.properties).toEqual({ left: { $ref: '#/$defs/hostile.v1.Level1', title: 'left' }, right: { $ref: '#/$defs/hostile.v1.Level1', title: 'right' } });
    expect(Object.keys(schema.$defs)).toHaveLength(30);
    expect(schema.$defs['hostile.v1.Level30']).toEqual({ type: 'object', title: 'Level30', properties: { leaf: { type: 'string', title: 'leaf' } } });
    // Linear in the 31 types: a few KB, where the unfolded schema would be gigabytes.
    expect(JSON.stringify(echo.requestSchema).length).toBeLessThan(31 * 200);
    expect(JSON.stringify(view).length).toBeLessThan(31 * 200 * 3);

    const deep = { left: { right: { left: {} } }, right: {} };
    const echoed = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:dag.hostile.v1.Dag/Echo', arguments: deep });
    expect(echoed.error).toBeUndefined();
    expect((echoed.result?.structuredContent as { response: unknown }).response).toEqual(deep);
    const invalid = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:dag.hostile.v1.Dag/Echo', arguments: { left: { right: { left: 'not a message' } } } });
    expect(invalid.error).toMatchObject({ code: 'InvalidArguments', step: 'validate', message: expect.stringContaining('/left/right/left must be object') });
    await sources.close();
  });

  it('cuts a stream that never ends at the message cap, canceling the call, with one sentence naming the cap', async () => {
    const { sources, pipeline } = setup();
    await sources.add({ name: 'dag', address: dag.address, protocol: 'reflection' });
    let progress = 0;
    const flooded = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:dag.hostile.v1.Dag/Flood', arguments: { leaf: 'small' }, onProgress: () => progress++ });
    expect(flooded.error).toMatchObject({
      code: 'ExecutionFailed',
      step: 'stream',
      message: `grpc:dag.hostile.v1.Dag/Flood: the server streamed more than ${SERVER_STREAM_CAPS.messages.toLocaleString('en')} messages, the cap on one stream; the call was canceled there.`,
    });
    expect(progress).toBe(SERVER_STREAM_CAPS.messages);
    await dag.floodCanceled();
    await sources.close();
  });

  it('cuts a stream of large messages at the byte cap', async () => {
    const { sources, pipeline } = setup();
    await sources.add({ name: 'dag', address: dag.address, protocol: 'reflection' });
    const flooded = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:dag.hostile.v1.Dag/Flood', arguments: { leaf: 'big' } });
    expect(flooded.error).toMatchObject({ code: 'ExecutionFailed', step: 'stream', message: expect.stringContaining(`the server streamed more than ${SERVER_STREAM_CAPS.bytes / 1024 / 1024} MiB, the cap on one stream`) });
    await sources.close();
  });

  it('stops an endless chain of imports at the file cap, and one of large files at the byte cap, saving nothing', async () => {
    const { sources } = setup();
    await expect(sources.add({ name: 'chain', address: endlessTiny.address, protocol: 'reflection' })).rejects.toMatchObject({
      code: 'ExecutionFailed',
      step: 'reflection',
      message: `${endlessTiny.address} reflection sent more than ${REFLECTION_CAPS.files.toLocaleString('en')} descriptor files, the cap on one reflection; its methods were not listed.`,
    });
    expect(endlessTiny.chainFilesServed()).toBeLessThanOrEqual(REFLECTION_CAPS.files);
    await expect(sources.add({ name: 'chain', address: endlessLarge.address, protocol: 'reflection' })).rejects.toMatchObject({
      step: 'reflection',
      message: expect.stringContaining(`reflection sent more than ${REFLECTION_CAPS.bytes / 1024 / 1024} MiB of descriptor files, the cap on one reflection`),
    });
    expect(endlessLarge.chainFilesServed()).toBeLessThanOrEqual(REFLECTION_CAPS.bytes / (512 * 1024) + 1);
    expect(sources.has('chain')).toBe(false);
    await sources.close();
  });
});
