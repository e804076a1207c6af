import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../../e2e/peers/a2a/fakeCardHost';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { ToolCatalog } from '../registry/ToolCatalog';
import { A2aAgentService } from './A2aAgentService';
import { isTurnEntry } from './A2aTurns';
import { A2aSourceKind } from './a2aSourceKind';

/** The A2A adapter against the sample agent peer (a real A2A server in this process) and a port nothing listens on. */
describe('A2A agents as a source kind', () => {
  let peers: PeerSet;
  let agents: A2aAgentService;
  let catalog: ToolCatalog;
  let kind: A2aSourceKind;
  let deadUrl: string;

  beforeAll(async () => {
    peers = await startPeers({ sample: { kind: 'sample' } });
    deadUrl = `http://127.0.0.1:${await closedPort()}`;
    agents = new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-kind-')), secretStore: new MemorySecretStore(), logger: silentLogger });
    catalog = new ToolCatalog();
    kind = new A2aSourceKind({ agents, catalog, logger: silentLogger });
    await agents.save({ name: 'sample', url: peers.urls.sample! });
    await agents.save({ name: 'gone', url: deadUrl });
  });
  afterAll(async () => {
    await kind?.close();
    await peers?.stop();
  });

  it("prepares a saved agent by reading its card: its skills become registry entries", async () => {
    await kind.prepare('sample');
    expect(catalog.list({ source: 'a2a:sample' }).filter((entry) => !isTurnEntry(entry)).length).toBeGreaterThan(0);
    expect(kind.catalogSync.cardOf('sample')).toBeDefined();
  });

  it('refuses an agent that is not saved, and one whose card cannot be read, with the same sentences as before', async () => {
    await expect(kind.prepare('ghost')).rejects.toMatchObject({ code: 'NotFound', message: 'No saved agent named "ghost"' });
    await expect(kind.prepare('gone')).rejects.toMatchObject({ code: 'ConnectionFailed', message: 'Agent "gone" has no skills registered: its card could not be read' });
    // Its turn entries stay: a turn sent to it fails, and is recorded, with the real reason.
    expect(catalog.list({ source: 'a2a:gone' }).every(isTurnEntry)).toBe(true);
  });

  it('keeps its saved agents, each at its URL; an agent addressed by URL does not last', async () => {
    expect([...(await kind.savedSources())].sort()).toEqual(['gone', 'sample']);
    expect(await kind.endpoints()).toEqual({ sample: peers.urls.sample, gone: deadUrl });
    expect(kind.lasting('sample')).toBe(true);
    expect(kind.lasting('https://agent.example/')).toBe(false);
    expect(kind.lasting('HTTP://127.0.0.1:9')).toBe(false);
  });
});
