import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleAgent, type RunningPeer } from '../../e2e/peers/a2a/sampleAgent';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createCaller } from './router';
import { operatorCaller } from '../../shared/caller';

let core: Core;
let agent: RunningPeer;

beforeAll(async () => {
  agent = await startSampleAgent({ stepDelayMs: 20 });
  core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-rpc-')), secretStore: new MemorySecretStore(), logger: silentLogger });
});
afterAll(async () => {
  await core.close();
  await agent.close();
});

describe('A2A turns land in history and metrics', () => {
  it('records a blocking send and a streamed turn as a2a:<agent> calls', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('ui') });
    await rpc.a2a.save({ name: 'sample', url: agent.url });
    expect((await rpc.a2a.send({ agent: 'sample', message: '/echo hello' })).text).toContain('hello');
    const states: string[] = [];
    for await (const event of await rpc.a2a.stream({ agent: 'sample', message: '/report numbers' })) if (event.state) states.push(event.state);
    expect(states.at(-1)).toBe('COMPLETED');

    const { items } = core.history.list({ sourceKind: 'a2a' });
    expect(items.map((r) => [r.sourceName, r.tool, r.status])).toEqual([
      ['sample', 'SendStreamingMessage', 'ok'],
      ['sample', 'SendMessage', 'ok'],
    ]);
    expect(items[0]!.resultPreview).toContain('COMPLETED');
  });
});
