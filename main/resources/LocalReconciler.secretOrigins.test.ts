import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp, type RunningPeer } from '../../e2e/peers/mcp/everything';
import { startRecordingEndpoint, type RecordingEndpoint } from '../../e2e/peers/mcp/recordingEndpoint';
import { McpService } from '../mcp/McpService';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createLocalResources, type LocalResources } from './createLocalResources';

const remoteYaml = (endpoint: string) => `apiVersion: orloj.dev/v1
kind: McpServer
metadata:
  name: remote
spec:
  transport: http
  endpoint: ${endpoint}
  reconnect: {max_attempts: 1, backoff: 50ms}
`;

/**
 * A workspace McpServer keeps its name while its endpoint changes — a \`git pull\`, or Resources →
 * Open folder on another folder with an McpServer of the same name. The bearer token the operator
 * stored for it was given for the old endpoint, and must not reach the new one (here a hand-written
 * recording endpoint standing in for an attacker's host).
 */
describe('LocalReconciler: a workspace McpServer that points at another origin', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-ws-origin-data-'));
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-ws-origin-'));
  const secretStore = new MemorySecretStore();
  const mcp = new McpService({ dataDir, secretStore, logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' }, connectTimeoutMs: 10_000, shutdownGraceMs: 200 });
  let resources: LocalResources;
  let everything: RunningPeer;
  let elsewhere: RecordingEndpoint;

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
  const atElsewhere = () => mcp.configs().some((config) => config.name === 'remote' && config.transport !== 'stdio' && config.url === elsewhere.url);
  const status = () => resources.reconciler.statuses().mcpServers.find((s) => s.name === 'remote')?.status;

  /** The operator stores a bearer token for the workspace's server in the Servers view. */
  async function storeToken(token: string) {
    const saved = mcp.configs().find((config) => config.name === 'remote')!;
    await mcp.save({ config: saved, previousName: 'remote', bearerToken: token });
    expect(await secretStore.get('mcp:remote:bearer')).toBe(token);
  }

  beforeAll(async () => {
    everything = await startEverythingHttp('streamableHttp');
    elsewhere = await startRecordingEndpoint();
    await mcp.init();
    writeFileSync(join(workspaceDir, 'remote.yaml'), remoteYaml(everything.url));
    resources = await createLocalResources({ dataDir, mcp, logger: silentLogger, workspaceDir, resyncIntervalMs: 600_000 });
    await until(() => status()?.phase === 'Ready');
  });

  afterAll(async () => {
    await resources?.close();
    await mcp.close();
    await everything?.close();
    await elsewhere?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspaceDir, { recursive: true, force: true });
  });

  it('after a pull that changes the endpoint, the server keeps its name and the token stays behind', async () => {
    await storeToken('tok-workspace-1');
    writeFileSync(join(workspaceDir, 'remote.yaml'), remoteYaml(elsewhere.url));
    await resources.workspace.rescan();
    // Its one attempt (max_attempts: 1) at the new endpoint has failed: every request it made is in.
    await until(() => status()?.phase === 'Error' && atElsewhere());
    expect(elsewhere.receivedText()).not.toContain('tok-workspace-1');
    expect(elsewhere.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
    expect(await secretStore.get('mcp:remote:bearer')).toBeUndefined();
  });

  it('opening another folder whose McpServer has the same name and another endpoint sends it no token', async () => {
    writeFileSync(join(workspaceDir, 'remote.yaml'), remoteYaml(everything.url));
    await resources.workspace.rescan();
    await until(() => status()?.phase === 'Ready' && mcp.configs().some((config) => config.transport !== 'stdio' && config.url === everything.url));
    await storeToken('tok-workspace-2');
    const before = elsewhere.requests.length;

    const other = join(mkdtempSync(join(tmpdir(), 'tooldeck-ws-other-')), 'project');
    mkdirSync(other);
    writeFileSync(join(other, 'remote.yaml'), remoteYaml(elsewhere.url));
    await resources.openFolder(other);
    await until(() => status()?.phase === 'Error' && atElsewhere() && elsewhere.requests.length > before);
    expect(elsewhere.receivedText()).not.toContain('tok-workspace-2');
    expect(await secretStore.get('mcp:remote:bearer')).toBeUndefined();
  });
});
