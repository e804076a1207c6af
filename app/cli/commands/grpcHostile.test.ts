import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileReflectionPeer, type HostileReflectionPeer } from '../../../e2e/peers/grpc/hostileReflectionPeer';
import { runTooldeck } from '../testing/runTooldeck';

/**
 * `tooldeck grpc add --reflection` and `tooldeck grpc call` against the hand-written hostile
 * reflection server (e2e/peers/grpc/hostileReflectionPeer.ts): a doubling DAG of depth 30 (before
 * `$defs` per type, depth 20 took 24 s and 2.6 GB, depth 30 never finished), an endless chain of
 * imports, an endless stream. Sizes and exit codes are asserted, never time.
 */
describe('tooldeck grpc against a hostile reflection server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-grpc-hostile-cli-'));
  let dag: HostileReflectionPeer;
  let chain: HostileReflectionPeer;

  beforeAll(async () => {
    [dag, chain] = await Promise.all([startHostileReflectionPeer({ depth: 30 }), startHostileReflectionPeer({ depth: 2, endlessImports: { padBytes: 0 } })]);
  });

  afterAll(async () => {
    await Promise.all([dag, chain].map((peer) => peer?.stop()));
  });

  it('adds the depth-30 DAG and lists its methods; its saved view stays a few KB', async () => {
    const added = await runTooldeck(dataDir, ['grpc', 'add', 'dag', dag.address, '--reflection']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('hostile.v1.Dag/Echo');
    const listed = await runTooldeck(dataDir, ['grpc', 'list-sources', '--refresh', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const [source] = JSON.parse(listed.stdout) as Array<{ name: string; state: string }>;
    expect(source).toMatchObject({ name: 'dag', state: 'ready' });
    expect(listed.stdout.length).toBeLessThan(50_000);
  });

  it('refuses an endless chain of imports with exit 1 and one sentence naming the cap, saving nothing', async () => {
    const refused = await runTooldeck(dataDir, ['grpc', 'add', 'chain', chain.address, '--reflection']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('reflection sent more than 2,000 descriptor files, the cap on one reflection; its methods were not listed.');
    const listed = await runTooldeck(dataDir, ['grpc', 'list-sources', '--json']);
    expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((source) => source.name)).toEqual(['dag']);
  });

  it('cuts an endless stream at the message cap with exit 1 and the cap named', async () => {
    const flooded = await runTooldeck(dataDir, ['grpc', 'call', dag.address, 'hostile.v1.Dag/Flood', '--data', '{"leaf":"small"}']);
    expect(flooded.code).toBe(1);
    expect(flooded.stderr).toContain('the server streamed more than 10,000 messages, the cap on one stream; the call was canceled there.');
    await dag.floodCanceled();
  });
});
