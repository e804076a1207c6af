import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry } from '../../e2e/mcp-registry/registry.mjs';
import { makeTestCertificates } from '../../e2e/peers/grpc/grpcPeers';
import { operatorCaller } from '../../shared/caller';
import { CONFIRM_LAUNCH_STEP } from '../../shared/errors';
import { PLAN_CHANGED_STEP } from '../mcpRegistry/McpRegistry';
import { createCore, type Core } from '../core';
import { BUNDLED_SERVER_SOURCE, bundleEntry } from '../mcpRegistry/testing/registrySeed';
import { writeZip } from '../mcpRegistry/testing/zipWriter';
import { MemorySecretStore } from '../platform/SecretStore';
import { silentLogger } from '../platform/Logger';
import { createCaller } from './router';

const bundle = writeZip([
  { path: 'manifest.json', data: JSON.stringify({ name: 'bundled', server: { type: 'node', mcp_config: { command: process.execPath, args: ['${__dirname}/index.cjs'], env: { BUNDLE_MODE: 'test' } } } }) },
  { path: 'index.cjs', data: BUNDLED_SERVER_SOURCE },
]);
const NAME = 'com.example.mcp/bundled';

let core: Core;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let files: Server;
let dataDir: string;

let downloads = 0;

beforeAll(async () => {
  // Bundles come over https from public addresses only; this one is on loopback, with the test's own CA, which only this core is told to accept.
  const certificates = makeTestCertificates();
  const tampered = Buffer.from(bundle);
  tampered[tampered.length - 30]! ^= 0xff;
  files = createServer({ key: readFileSync(certificates.files.serverKey), cert: readFileSync(certificates.files.serverCert) }, (req, res) => {
    downloads++;
    if (req.url === '/moved.mcpb') return res.writeHead(302, { location: '/b.mcpb' }).end();
    res.end(req.url === '/t.mcpb' ? tampered : bundle);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  const at = (path: string) => `https://127.0.0.1:${(files.address() as AddressInfo).port}${path}`;
  const sha = createHash('sha256').update(bundle).digest('hex');
  registry = await startRegistry({ seed: [bundleEntry(NAME, at('/b.mcpb'), sha), bundleEntry('com.example.mcp/tampered', at('/t.mcpb'), sha), bundleEntry('com.example.mcp/moved', at('/moved.mcpb'), sha)] });
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-registry-rpc-'));
  core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'cli', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, shutdownGraceMs: 200, registryBundleNetwork: { ca: certificates.pem.ca, allowAddress: () => true } });
  rmSync(certificates.dir, { recursive: true, force: true });
}, 600_000);

afterAll(async () => {
  await core?.close();
  await registry?.stop();
  files?.closeAllConnections();
  await new Promise((resolve) => files?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('mcpRegistry.install', () => {
  it('saves and starts a stdio server only with its exact launch line confirmed, from any host', async () => {
    // Not the browser: even so, a command that comes from a registry is never run unseen.
    const rpc = createCaller({ core, caller: operatorCaller('cli'), fromBrowser: false });
    const request = { name: NAME, registry: registry.url, choice: { env: { API_TOKEN: 'token-9b1e44c07d' } } };
    const preview = await rpc.mcpRegistry.preview(request);
    const folder = join(dataDir, 'mcpb', 'bundled');
    // The preview downloads nothing: it says what will be downloaded, with what.
    expect(preview).toMatchObject({ serverName: 'bundled', transport: 'stdio', bundle: { url: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/b\.mcpb$/) } });
    expect(preview.launch).toMatch(/^download https:\/\/127\.0\.0\.1:\d+\/b\.mcpb \(sha256 [0-9a-f]{64}\) with API_TOKEN=\*\*\*; /);
    expect(downloads).toBe(0);

    const notBound = await rpc.mcpRegistry.install(request).catch((error: unknown) => (error as { cause?: unknown }).cause);
    expect(notBound).toMatchObject({ code: 'InvalidInput', step: PLAN_CHANGED_STEP });
    expect(downloads).toBe(0);

    // The manifest's own value is the bundle's, shown as it is; the user's is sealed.
    const line = `cd ${folder} && BUNDLE_MODE=test API_TOKEN=*** ${process.execPath} ${folder}/index.cjs`;
    for (const confirmedLaunchLine of [undefined, line.replace('***', 'token-9b1e44c07d')]) {
      const refused = await rpc.mcpRegistry.install({ ...request, previewHash: preview.planHash, confirmedLaunchLine }).catch((error: unknown) => (error as { cause?: unknown }).cause);
      expect(refused).toMatchObject({ code: 'PolicyDenied', step: CONFIRM_LAUNCH_STEP, details: [line] });
      expect(core.mcp.list()).toEqual([]);
      // Nothing of the bundle is written before its launch is confirmed.
      expect(existsSync(folder)).toBe(false);
    }
    // Downloaded and verified once, for the line to confirm.
    expect(downloads).toBe(1);

    const installed = await rpc.mcpRegistry.install({ ...request, previewHash: preview.planHash, confirmedLaunchLine: line });
    expect(installed.launch).toBe(line);
    expect(core.mcp.connection('bundled')?.tools.map((tool) => tool.name)).toEqual(['bundle-echo']);
    expect(core.mcp.get('bundled').config).toMatchObject({ env: { BUNDLE_MODE: 'test' }, secretEnv: ['API_TOKEN'] });
    expect(await core.mcpRegistry.installed()).toEqual({ bundled: { registry: registry.url, name: NAME, version: '0.1.0', kind: 'mcpb', identifier: expect.stringMatching(/\/b\.mcpb$/), launch: line } });
    expect(await rpc.mcpRegistry.updates()).toEqual([]);
    expect(existsSync(join(folder, 'index.cjs'))).toBe(true);

    // Installing again under the same name is refused before the running server's files are touched.
    writeFileSync(join(folder, 'marker'), 'still here');
    const again = await rpc.mcpRegistry.install({ ...request, previewHash: preview.planHash, confirmedLaunchLine: line }).catch((error: unknown) => (error as { cause?: unknown }).cause);
    expect(again).toMatchObject({ code: 'AlreadyExists', message: 'A server named "bundled" already exists: install under another name (--name).' });
    expect(readFileSync(join(folder, 'marker'), 'utf8')).toBe('still here');
  }, 60_000);

  it('refuses a bundle whose checksum does not match, and one that redirects, writing nothing', async () => {
    const rpc = createCaller({ core, caller: operatorCaller('cli'), fromBrowser: false });
    for (const [name, refusal] of [
      ['com.example.mcp/tampered', /does not match its fileSha256: the registry says [0-9a-f]{64}, the download is [0-9a-f]{64}\. Nothing was unpacked or run\.$/],
      ['com.example.mcp/moved', /: HTTP 302; it redirects to \/b\.mcpb, which is not followed$/],
    ] as const) {
      const request = { name, registry: registry.url, choice: {} };
      const preview = await rpc.mcpRegistry.preview(request);
      const refused = await rpc.mcpRegistry.install({ ...request, previewHash: preview.planHash }).catch((error: unknown) => (error as { cause?: unknown }).cause);
      expect((refused as Error).message).toMatch(refusal);
      expect(existsSync(join(dataDir, 'mcpb', name.split('/')[1]!))).toBe(false);
    }
  }, 60_000);
});
