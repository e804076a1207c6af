import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReflectionServer, startToolsV1Server, type GrpcPeer } from '../../e2e/peers/grpc/grpcPeers';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { ToolCatalog } from '../registry/ToolCatalog';
import type { ToolSourceKind } from '../registry/ToolSourceKind';
import { GrpcSources } from './GrpcSources';
import { GrpcSourceKind } from './grpcSourceKind';

/** The gRPC adapter over GrpcSources, against the tools.v1 server written for the tests and the Python reflection server. */
describe('gRPC sources as a source kind', () => {
  let toolServer: GrpcPeer;
  let reflecting: GrpcPeer;
  let sources: GrpcSources;
  let catalog: ToolCatalog;
  let kind: ToolSourceKind<'grpc'>;

  beforeAll(async () => {
    [toolServer, reflecting] = await Promise.all([startToolsV1Server(), startReflectionServer()]);
    catalog = new ToolCatalog();
    // Like a one-shot CLI command: nothing is listed until a call needs it.
    sources = new GrpcSources({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-grpc-kind-')), catalog, secretStore: new MemorySecretStore(), logger: silentLogger });
    await sources.init();
    await sources.add({ name: 'hid', address: toolServer.address, protocol: 'tools.v1', tls: { mode: 'plaintext' }, metadata: {}, skipCheck: true });
    kind = new GrpcSourceKind(sources);
  }, 600_000);

  afterAll(async () => {
    await kind?.close?.();
    await Promise.all([toolServer, reflecting].map((peer) => peer?.stop()));
  });

  it('prepares a saved source by listing its tools, and names no source it does not have', async () => {
    catalog.removeSource({ kind: 'grpc', name: 'hid' });
    await kind.prepare('hid');
    expect(catalog.list({ source: 'grpc:hid' }).length).toBeGreaterThan(0);
    await expect(kind.prepare('nowhere')).rejects.toMatchObject({ code: 'NotFound', message: 'No gRPC source named "nowhere"' });
  });

  it('keeps its saved sources, each at its address; a one-off target does not last', async () => {
    expect(await kind.savedSources({})).toEqual(['hid']);
    expect(await kind.endpoints()).toEqual({ hid: toolServer.address });
    const close = await sources.openEphemeral('one-off', { address: reflecting.address, tls: { mode: 'plaintext' }, metadata: {} });
    try {
      expect(catalog.list({ source: 'grpc:one-off' }).length).toBeGreaterThan(0);
      expect(kind.lasting('hid')).toBe(true);
      expect(kind.lasting('one-off')).toBe(false);
      expect(await kind.savedSources({ disabled: true })).toEqual(['hid']);
    } finally {
      close();
    }
  });
});
