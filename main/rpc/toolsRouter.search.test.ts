import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleAgent, type RunningPeer } from '../../e2e/peers/a2a/sampleAgent';
import { startNodeReflectionPeer, type NodeReflectionPeer } from '../../e2e/peers/grpc/nodeReflectionPeer';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createCaller } from './router';
import { operatorCaller } from '../../shared/caller';

let core: Core;
let grpcPeer: NodeReflectionPeer;
let agent: RunningPeer;

beforeAll(async () => {
  [grpcPeer, agent] = await Promise.all([startNodeReflectionPeer(), startSampleAgent()]);
  core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'web', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-search-rpc-')), secretStore: new MemorySecretStore(), logger: silentLogger });
});
afterAll(async () => {
  await core.close();
  await Promise.all([grpcPeer?.stop(), agent?.close()]);
});

describe('tools.search (what the command palette asks)', () => {
  it('finds gRPC tools, reflected gRPC methods and A2A skills, not only MCP tools', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    await rpc.grpc.add({ name: 'hid', address: grpcPeer.address });
    await rpc.grpc.add({ name: 'shapes', address: grpcPeer.address, protocol: 'reflection' });
    await rpc.a2a.save({ name: 'sample', url: agent.url });
    await core.a2aSkills.syncAll();

    expect((await rpc.tools.search({ query: 'reverse a text' }))[0]).toMatchObject({ id: 'grpc:hid.mirror', kind: 'tool', source: 'grpc:hid' });
    expect((await rpc.tools.search({ query: 'Describe' })).map((hit) => hit.id)).toContain('grpc:shapes.nodepeer.v1.Shapes/Describe');
    expect((await rpc.tools.search({ query: 'greets whoever answered' }))[0]).toMatchObject({ id: 'a2a:sample.ask', kind: 'skill' });
  });
});
