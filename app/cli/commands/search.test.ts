import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleAgent, type RunningPeer } from '../../../e2e/peers/a2a/sampleAgent';
import { startNodeReflectionPeer, type NodeReflectionPeer } from '../../../e2e/peers/grpc/nodeReflectionPeer';
import { createCore } from '../../../main/core';
import { silentLogger } from '../../../main/platform/Logger';
import { MemorySecretStore } from '../../../main/platform/SecretStore';
import { createCaller } from '../../../main/rpc/router';
import { runTooldeck } from '../testing/runTooldeck';
import { operatorCaller } from '../../../shared/caller';

/** `tooldeck search` over every kind of registry entry, against a real gRPC server and a real A2A agent. */
describe('tooldeck search', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-search-cli-'));
  let grpcPeer: NodeReflectionPeer;
  let agent: RunningPeer;

  beforeAll(async () => {
    [grpcPeer, agent] = await Promise.all([startNodeReflectionPeer(), startSampleAgent()]);
    // The CLI has no command to save an agent: saved through the contract, as the UI does.
    const core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'cli', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger });
    await createCaller({ core, caller: operatorCaller('cli') }).a2a.save({ name: 'sample', url: agent.url });
    await core.close();
  });
  afterAll(async () => {
    await Promise.all([grpcPeer?.stop(), agent?.close()]);
  });

  it('finds a gRPC tool and an A2A skill after --refresh, as it finds MCP tools', async () => {
    const added = await runTooldeck(dataDir, ['grpc', 'add', 'hid', grpcPeer.address]);
    expect(added.stdout, added.stderr).toMatch(/Saved hid .* 2 tools/);

    const found = await runTooldeck(dataDir, ['search', 'reverse a text', '--refresh']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout.split('\n')[0]).toMatch(/^\d\.\d\d {2}grpc:hid\.mirror +Reverses a text, character by character$/);

    const skill = await runTooldeck(dataDir, ['search', 'greets whoever answered', '--refresh', '--json']);
    expect(skill.code, skill.stderr).toBe(0);
    expect((JSON.parse(skill.stdout) as Array<{ id: string; kind: string }>)[0]).toMatchObject({ id: 'a2a:sample.ask', kind: 'skill' });
  });

  it('says which sources were not listed when run without --refresh', async () => {
    const found = await runTooldeck(dataDir, ['search', 'reverse a text']);
    expect(found.code).toBe(0);
    expect(found.stderr).toContain('1 gRPC source(s) not listed in this run; run with --refresh.');
  });
});
