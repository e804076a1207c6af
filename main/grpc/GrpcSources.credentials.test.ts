import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolsV1Server, type GrpcPeer } from '../../e2e/peers/grpc/grpcPeers';
import { startRecordingGrpcPeer, type RecordingGrpcPeer } from '../../e2e/peers/grpc/recordingPeer';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { ToolCatalog } from '../registry/ToolCatalog';
import { GrpcSources, grpcMetadataSecretKey, type WorkspaceGrpcSource } from './GrpcSources';

const bearer = (name: string, address: string, tls = false): WorkspaceGrpcSource => ({
  name,
  address,
  tls: { mode: tls ? 'tls' : 'plaintext' },
  requiredMetadata: ['authorization'],
  metadataPrefix: { authorization: 'Bearer ' },
});

/**
 * gRPC metadata is bound to the endpoint (host:port and TLS) it was given for: a source that keeps
 * its name but dials elsewhere, or plaintext where it was TLS, never sends it; a source that goes
 * takes its metadata with it.
 */
describe('gRPC credentials follow the endpoint, not the name', { timeout: 120_000 }, () => {
  let guarded: GrpcPeer;
  let recorder: RecordingGrpcPeer;

  beforeAll(async () => {
    [guarded, recorder] = await Promise.all([startToolsV1Server({ token: 'ws-token' }), startRecordingGrpcPeer()]);
  }, 600_000);

  const opened: GrpcSources[] = [];

  afterAll(async () => {
    await Promise.all(opened.map((sources) => sources.close()));
    await Promise.all([guarded?.stop(), recorder?.stop()]);
  });

  function setup() {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-grpc-cred-'));
    const secretStore = new MemorySecretStore();
    const sources = new GrpcSources({ dataDir, catalog: new ToolCatalog(), secretStore, logger: silentLogger });
    opened.push(sources);
    return { dataDir, secretStore, sources };
  }

  it('a workspace Tool that keeps its name but points at another host:port does not take the token there', async () => {
    const { secretStore, sources } = setup();
    await sources.init();
    sources.applyWorkspace([bearer('guarded', guarded.address)]);
    await sources.setMetadata('guarded', { authorization: 'ws-token' });
    expect(sources.get('guarded').state).toBe('ready');

    // A `git pull`, or another folder with a Tool of the same name.
    sources.applyWorkspace([bearer('guarded', recorder.address)]);
    await expect(sources.refresh('guarded')).rejects.toThrow(/guarded: its saved metadata was dropped, not sent, because grpc:\/\/127\.0\.0\.1:\d+ is not grpc:\/\/127\.0\.0\.1:\d+, where the credentials were saved/);
    expect(recorder.authorizations).toEqual([]);
    expect(await secretStore.get(grpcMetadataSecretKey('guarded', 'authorization'))).toBeUndefined();

    // Dropped, not just skipped once: the next try asks for it again and still sends nothing.
    await expect(sources.refresh('guarded')).rejects.toThrow(/needs authorization/);
    expect(recorder.authorizations).toEqual([]);
  });

  it('a grpcs:// Tool that becomes plaintext at the same host:port does not send its token in the clear', async () => {
    const { secretStore, sources } = setup();
    await sources.init();
    sources.applyWorkspace([bearer('downgraded', recorder.address, true)]);
    await sources.setMetadata('downgraded', { authorization: 'tls-only-token' });

    sources.applyWorkspace([bearer('downgraded', recorder.address)]);
    await expect(sources.refresh('downgraded')).rejects.toThrow(/because grpc:\/\/127\.0\.0\.1:\d+ is unencrypted where the credentials were saved for grpcs:\/\/127\.0\.0\.1:\d+/);
    expect(recorder.authorizations).toEqual([]);
    expect(await secretStore.keys()).not.toContain(grpcMetadataSecretKey('downgraded', 'authorization'));
  });

  it('a workspace Tool that goes takes its metadata with it: one declared later under its name starts with none', async () => {
    const { secretStore, sources } = setup();
    await sources.init();
    sources.applyWorkspace([bearer('comes-back', guarded.address)]);
    await sources.setMetadata('comes-back', { authorization: 'ws-token' });
    expect(sources.get('comes-back').state).toBe('ready');

    const dropped = new Promise<void>((resolve) => {
      const check = async () => {
        if (!(await secretStore.keys()).includes(grpcMetadataSecretKey('comes-back', 'authorization'))) resolve();
        else setImmediate(() => void check());
      };
      void check();
    });
    sources.applyWorkspace([]);
    await dropped;

    const callsBefore = recorder.calls;
    sources.applyWorkspace([{ ...bearer('comes-back', recorder.address), requiredMetadata: [] }]);
    await expect(sources.refresh('comes-back')).rejects.toThrow();
    expect(recorder.calls).toBeGreaterThan(callsBefore);
    expect(recorder.authorizations).toEqual([]);
  });

  it('a saved source whose address is changed in grpc-sources.json does not send its metadata to the new address', async () => {
    const { dataDir, secretStore, sources } = setup();
    await sources.init();
    await sources.add({ name: 'saved', address: guarded.address, metadata: { authorization: 'Bearer ws-token' } });
    expect(sources.get('saved').state).toBe('ready');

    const file = join(dataDir, 'grpc-sources.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(`"address": "${guarded.address}"`, `"address": "${recorder.address}"`));
    const reopened = new GrpcSources({ dataDir, catalog: new ToolCatalog(), secretStore, logger: silentLogger });
    opened.push(reopened);
    await reopened.init();
    expect(reopened.get('saved').address).toBe(recorder.address);
    await expect(reopened.refresh('saved')).rejects.toThrow(/saved: its saved metadata was dropped, not sent/);
    expect(recorder.authorizations).toEqual([]);
  });

  it('a saved source added again at another address (tooldeck grpc add) keeps none of the old metadata', async () => {
    const { secretStore, sources } = setup();
    await sources.init();
    await sources.add({ name: 'readded', address: guarded.address, metadata: { authorization: 'Bearer ws-token' } });
    await sources.add({ name: 'readded', address: recorder.address, skipCheck: true });
    expect(await secretStore.keys()).not.toContain(grpcMetadataSecretKey('readded', 'authorization'));
    expect(recorder.authorizations).toEqual([]);
  });

  it('removing a saved source deletes its metadata', async () => {
    const { secretStore, sources } = setup();
    await sources.init();
    await sources.add({ name: 'gone', address: guarded.address, metadata: { authorization: 'Bearer ws-token' } });
    await sources.remove('gone');
    expect(await secretStore.keys()).toEqual([]);
  });
});
