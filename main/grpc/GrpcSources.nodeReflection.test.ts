import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeReflectionPeer, type NodeReflectionPeer } from '../../e2e/peers/grpc/nodeReflectionPeer';
import { createStderrLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { MemoryInvocationRecorder } from '../registry/testing/MemoryInvocationRecorder';
import { ToolCatalog } from '../registry/ToolCatalog';
import { GrpcSources } from './GrpcSources';
import { operatorCaller } from '../../shared/caller';

/**
 * The reference Node server reflection, @grpc/reflection 1.0.4 over descriptors from
 * @grpc/proto-loader: it does not list itself among the services, and names field types relative
 * to their scope (`ToolDefinition`, `Shape.Style`) where protoc writes them fully qualified.
 */
describe('gRPC reflection against @grpc/reflection (the reference Node implementation)', () => {
  let peer: NodeReflectionPeer;

  beforeAll(async () => {
    peer = await startNodeReflectionPeer();
  });
  afterAll(async () => {
    await peer?.stop();
  });

  function setup() {
    const catalog = new ToolCatalog();
    const sources = new GrpcSources({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-grpc-node-')), catalog, secretStore: new MemorySecretStore(), logger: createStderrLogger('error') });
    return { catalog, sources, pipeline: new InvocationPipeline({ catalog, recorder: new MemoryInvocationRecorder() }) };
  }

  it('lists the services and methods, resolving relative type names by protobuf scoping', async () => {
    const { sources } = setup();
    const services = await sources.explore({ address: peer.address });
    expect(services.map((service) => service.name).sort()).toEqual(['nodepeer.v1.Shapes', 'tools.v1.ToolServer']);
    const describe = services.find((service) => service.name === 'nodepeer.v1.Shapes')!.methods.find((method) => method.method === 'Describe')!;
    expect(describe).toMatchObject({ requestType: 'nodepeer.v1.Shape', responseType: 'nodepeer.v1.Outline' });
    const schema = describe.requestSchema as { properties: Record<string, unknown>; $defs: Record<string, { properties?: Record<string, unknown> }> };
    // `Point center` inside Shape is the nested Shape.Point (innermost scope first), not the top-level Point.
    expect(schema.properties.center).toEqual({ $ref: '#/$defs/nodepeer.v1.Shape.Point', title: 'center' });
    expect(schema.$defs['nodepeer.v1.Shape.Point']!.properties!.x).toMatchObject({ type: 'number' });
    expect(schema.$defs['nodepeer.v1.Point']).toBeUndefined();
    expect(schema.properties.style).toEqual({ $ref: '#/$defs/nodepeer.v1.Shape.Style', title: 'style' });
    expect(schema.properties.kind).toEqual({ $ref: '#/$defs/nodepeer.v1.Kind', title: 'kind' });
    // A well-known type from the file proto-loader names google_protobuf.proto, which nothing imports.
    expect(schema.properties.at).toMatchObject({ format: 'date-time' });
    const listTools = services.find((service) => service.name === 'tools.v1.ToolServer')!.methods.find((method) => method.method === 'ListTools')!;
    expect(listTools).toMatchObject({ requestType: 'tools.v1.ListToolsRequest', responseType: 'tools.v1.ListToolsResponse' });
    await sources.close();
  });

  it('calls a reflected method whose messages use relative names, both ways', async () => {
    const { sources, pipeline } = setup();
    await sources.add({ name: 'node', address: peer.address, protocol: 'reflection' });
    const result = await pipeline.invoke({
      caller: operatorCaller('cli'),
      name: 'grpc:node.nodepeer.v1.Shapes/Describe',
      arguments: { label: 'disc', kind: 'KIND_ROUND', center: { x: 1.5, y: 2 }, style: { color: 'red', kind: 'KIND_ROUND' } },
    });
    expect(result.error).toBeUndefined();
    expect(result.result?.structuredContent).toMatchObject({ response: { summary: 'shape disc', style: { color: 'red', kind: 'KIND_ROUND' }, shape: { center: { x: 1.5, y: 2 } } }, status: { name: 'OK' } });
    const tools = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:node.tools.v1.ToolServer/ListTools', arguments: {} });
    expect(tools.result?.structuredContent).toMatchObject({ response: { tools: [expect.objectContaining({ name: 'mirror' }), expect.objectContaining({ name: 'shout' })] } });
    await sources.close();
  });

  it('adds it as a tools.v1 server too', async () => {
    const { sources, pipeline } = setup();
    const view = await sources.add({ name: 'hid', address: peer.address });
    expect(view.tools.map((tool) => tool.registryName)).toEqual(['grpc:hid.mirror', 'grpc:hid.shout']);
    const mirrored = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:hid.mirror', arguments: { text: 'abc' } });
    expect(mirrored.result?.structuredContent).toEqual({ text: 'cba' });
    await sources.close();
  });
});
