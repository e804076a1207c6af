import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolsV1Server, type GrpcPeer } from '../../e2e/peers/grpc/grpcPeers';
import { startRecordingGrpcPeer, type RecordingGrpcPeer } from '../../e2e/peers/grpc/recordingPeer';
import { grpcMetadataSecretKey } from '../grpc/GrpcSources';
import { GrpcSources } from '../grpc/GrpcSources';
import { McpService } from '../mcp/McpService';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { ToolCatalog } from '../registry/ToolCatalog';
import { createLocalResources, type LocalResources } from './createLocalResources';
import { operatorCaller } from '../../shared/caller';

const grpcTool = (name: string, spec: string) => `apiVersion: orloj.dev/v1
kind: Tool
metadata:
  name: ${name}
spec:
  type: grpc
${spec}`;

/** Orloj Tools of type grpc in a workspace, reconciled by the local target into live gRPC sources. */
describe('LocalReconciler: Orloj Tools of type grpc', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-grpc-ws-data-'));
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-grpc-ws-'));
  const secretStore = new MemorySecretStore();
  const mcp = new McpService({ dataDir, secretStore, logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' } });
  const catalog = new ToolCatalog();
  const grpc = new GrpcSources({ dataDir, catalog, secretStore, logger: silentLogger, autoList: true });
  let resources: LocalResources;
  let pipeline: InvocationPipeline;
  let peer: GrpcPeer;
  let guarded: GrpcPeer;
  let recorder: RecordingGrpcPeer;

  const status = (name: string) => resources.reconciler.statuses().tools.find((tool) => tool.name === name)?.status;

  /** Resolves once `probe` holds, checked after every status change (the test timeout bounds the wait). */
  function until<T>(probe: () => T | undefined | false): Promise<T> {
    return new Promise((resolve) => {
      let done = false;
      const check = () => {
        const value = probe();
        if (done || !value) return;
        done = true;
        off();
        resolve(value);
      };
      const off = resources.reconciler.onChange(check);
      check();
    });
  }

  beforeAll(async () => {
    [peer, guarded, recorder] = await Promise.all([startToolsV1Server(), startToolsV1Server({ token: 'ws-token' }), startRecordingGrpcPeer()]);
    await mcp.init();
    writeFileSync(join(workspaceDir, 'weather.yaml'), grpcTool('weather', `  endpoint: ${peer.address}\n  risk_level: high\n  runtime: {timeout: 5s, retry: {max_attempts: 2}}\n`));
    writeFileSync(join(workspaceDir, 'broken.yaml'), grpcTool('broken', '  endpoint: not-an-endpoint\n'));
    writeFileSync(join(workspaceDir, 'guarded.yaml'), grpcTool('guarded', `  endpoint: ${guarded.address}\n  auth: {secretRef: default/guarded-token}\n`));
    writeFileSync(
      join(workspaceDir, 'permissions.yaml'),
      `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: weather-writes-need-approval
spec:
  tool_ref: weather
  operation_rules:
    - {operation_class: write, verdict: approval_required}
`,
    );
    resources = await createLocalResources({ dataDir, mcp, grpc, logger: silentLogger, workspaceDir, seedExamples: false });
    pipeline = new InvocationPipeline({ catalog, permissions: resources.permissions });
  });

  afterAll(async () => {
    await resources?.close();
    await grpc.close();
    await mcp.close();
    await Promise.all([peer?.stop(), guarded?.stop(), recorder?.stop()]);
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    rmSync(workspaceDir, { recursive: true, force: true });
  });

  it('becomes a source whose tools carry the Tool’s risk and runtime, with a Ready status naming them and their versions', async () => {
    const ready = await until(() => (status('weather')?.phase === 'Ready' ? status('weather') : undefined));
    expect(ready.message).toMatch(/6 tools from 127\.0\.0\.1:\d+: .*grpc:weather\.forecast \(v2\.1\.0\).*; 1 unusable/);
    const entry = catalog.get('grpc:weather.forecast')!;
    expect(entry.runtime).toMatchObject({ timeoutMs: 5_000, retry: { maxAttempts: 2 } });
    expect(entry.policy).toMatchObject({ riskLevel: 'high', operationClasses: ['write'] });
    expect(grpc.get('weather').managedBy).toBe('workspace');
    expect(resources.reconciler.statuses().tools.find((tool) => tool.name === 'weather')?.registryName).toBe('grpc:weather.*');
  });

  it('obeys the ToolPermission that names the Tool, for every tool of its source', async () => {
    await until(() => catalog.get('grpc:weather.forecast'));
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.forecast', arguments: { city: 'Oslo' } })).error).toMatchObject({ code: 'PolicyDenied' });
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:weather.forecast', arguments: { city: 'Oslo' }, confirmed: true })).error).toBeUndefined();
  });

  it('reports a bad endpoint, and a missing token until it is set, as Error with the reason', async () => {
    expect(status('broken')).toMatchObject({ phase: 'Error', lastError: expect.stringContaining('not host:port') });
    const waiting = await until(() => (status('guarded')?.phase === 'Error' ? status('guarded') : undefined));
    expect(waiting.lastError).toMatch(/needs authorization/);
    await grpc.setMetadata('guarded', { authorization: 'ws-token' });
    await until(() => status('guarded')?.phase === 'Ready');
    expect((await pipeline.invoke({ caller: operatorCaller('cli'), name: 'grpc:guarded.convert_units', arguments: { value: 2, from: 'km', to: 'km' } })).error).toBeUndefined();
  });

  it('drops the token, sending it nowhere, when the Tool keeps its name but its endpoint moves (a git pull)', async () => {
    await until(() => status('guarded')?.phase === 'Ready');
    writeFileSync(join(workspaceDir, 'guarded.yaml'), grpcTool('guarded', `  endpoint: ${recorder.address}\n  auth: {secretRef: default/guarded-token}\n`));
    const moved = await until(() => (status('guarded')?.phase === 'Error' && /dropped/.test(status('guarded')?.lastError ?? '') ? status('guarded') : undefined));
    expect(moved.lastError).toMatch(/its saved metadata was dropped, not sent, because grpc:\/\/127\.0\.0\.1:\d+ is not grpc:\/\/127\.0\.0\.1:\d+, where the credentials were saved/);
    expect(recorder.authorizations).toEqual([]);
    expect(await secretStore.get(grpcMetadataSecretKey('guarded', 'authorization'))).toBeUndefined();
  });

  it('removes the source and its entries when the Tool goes', async () => {
    unlinkSync(join(workspaceDir, 'weather.yaml'));
    await until(() => !grpc.has('weather'));
    expect(catalog.list({ source: 'grpc:weather' })).toEqual([]);
  });
});
