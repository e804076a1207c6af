import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeReflectionPeer, type NodeReflectionPeer } from '../../../e2e/peers/grpc/nodeReflectionPeer';
import { runTooldeck } from '../testing/runTooldeck';

/** `tooldeck grpc list` in-process against a server using the reference Node reflection, @grpc/reflection 1.0.4. */
describe('tooldeck grpc list against @grpc/reflection', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-grpc-node-cli-'));
  let peer: NodeReflectionPeer;

  beforeAll(async () => {
    peer = await startNodeReflectionPeer();
  });
  afterAll(async () => {
    await peer?.stop();
  });

  it('lists both services and their methods', async () => {
    const listed = await runTooldeck(dataDir, ['grpc', 'list', peer.address]);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('nodepeer.v1.Shapes');
    expect(listed.stdout).toContain('Describe');
    expect(listed.stdout).toContain('tools.v1.ToolServer');
    expect(listed.stdout).toContain('ListTools');
  });
});
