import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2aEvent } from '../../shared/a2a';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { A2aAgentService } from './A2aAgentService';
import { startPythonPeer } from '../../e2e/peers/a2a/peerProcess';
import { ensurePythonPeers } from '../../e2e/peers/python/pythonPeers';
import type { PeerSet } from '../../e2e/peers/a2a/startPeers';

// The Python a2a-sdk from PyPI, in the cached venv of e2e/peers/python (requirements.txt).
describe('A2aAgentService against the Python SDK', () => {
  let peer: PeerSet;
  beforeAll(async () => {
    peer = await startPythonPeer(join(ensurePythonPeers(), 'python'));
  }, 600_000);
  afterAll(() => peer?.stop());

  const service = () => new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-py-')), secretStore: new MemorySecretStore(), logger: silentLogger });

  it('echoes over a blocking send', async () => {
    expect(await service().send(peer.urls.python!, 'hello python')).toMatchObject({ kind: 'message', text: 'hello python' });
  });

  it('streams SUBMITTED, WORKING, then COMPLETED with a text and a data artifact', async () => {
    const events: A2aEvent[] = [];
    for await (const event of service().stream(peer.urls.python!, '/report py')) events.push(event);
    expect(events.filter((e) => e.state).map((e) => e.state)).toEqual(['SUBMITTED', 'WORKING', 'WORKING', 'COMPLETED']);
    expect(events.filter((e) => e.kind === 'artifact').map((e) => e.artifact!.parts[0]!.kind)).toEqual(['text', 'data']);
  });
});
