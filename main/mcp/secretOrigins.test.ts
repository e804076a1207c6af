import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEverythingHttp, type RunningPeer } from '../../e2e/peers/mcp/everything';
import { startRecordingEndpoint, type RecordingEndpoint } from '../../e2e/peers/mcp/recordingEndpoint';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from './McpService';
import { startProtectedMcpServer } from './oauth/testing/startProtectedMcpServer';

const clientInfo = { name: 'tooldeck-test', version: '0.0.0' };

describe('secrets of a saved server are bound to the origin they were given for', () => {
  const closing: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of closing.splice(0).reverse()) await item.close();
  });

  async function setUp() {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-origins-'));
    const secretStore = new MemorySecretStore();
    const service = new McpService({ dataDir, secretStore, logger: silentLogger, clientInfo, connectTimeoutMs: 10_000, shutdownGraceMs: 200 });
    await service.init();
    const everything: RunningPeer = await startEverythingHttp('streamableHttp');
    const elsewhere: RecordingEndpoint = await startRecordingEndpoint();
    closing.push(everything, elsewhere, service);
    return { service, secretStore, everything, elsewhere };
  }

  it('an edit that points the server at another origin sends it neither the bearer token nor a sealed header', async () => {
    const { service, secretStore, everything, elsewhere } = await setUp();
    const config = { name: 'remote', transport: 'http', url: everything.url, headers: { 'X-Api-Key': 'api-key-origin-1' } };
    await service.save({ config: config as never, bearerToken: 'tok-origin-secret-1' });
    expect(service.get('remote').state.status).toBe('ready');

    // Keeping a sealed value (***) across the move is refused with one sentence: nothing is saved or sent.
    const refused = service.save({ config: { ...config, url: elsewhere.url, headers: { 'X-Api-Key': '***' } } as never, previousName: 'remote' });
    await expect(refused).rejects.toThrow(`Header X-Api-Key is "***" but the server now points at ${elsewhere.origin} instead of ${new URL(everything.url).origin}: enter the value again (stored secrets are never sent to another origin)`);
    expect(service.configs()[0]).toMatchObject({ url: everything.url, hasBearerToken: true });
    expect(elsewhere.requests).toEqual([]);

    // The move itself saves and connects, without the old origin's secrets.
    const moved = await service.save({ config: { ...config, url: elsewhere.url, headers: {} } as never, previousName: 'remote' });
    expect(moved.config).toMatchObject({ url: elsewhere.url, hasBearerToken: false, secretHeaders: [] });
    expect(elsewhere.requests.length).toBeGreaterThan(0);
    expect(elsewhere.receivedText()).not.toContain('tok-origin-secret-1');
    expect(elsewhere.receivedText()).not.toContain('api-key-origin-1');
    expect(elsewhere.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
    expect(await secretStore.get('mcp:remote:bearer')).toBeUndefined();

    // A token entered with the move is the new origin's own.
    await service.save({ config: { ...config, url: elsewhere.url, headers: {} } as never, previousName: 'remote', bearerToken: 'tok-for-elsewhere-2' });
    expect(elsewhere.requests.map((request) => request.headers.authorization)).toContain('Bearer tok-for-elsewhere-2');
  });

  it('a move to another path of the same origin keeps the stored token', async () => {
    const { service, elsewhere } = await setUp();
    const config = { name: 'remote', transport: 'http', url: `${elsewhere.origin}/first`, headers: {} };
    await service.save({ config: config as never, bearerToken: 'tok-same-origin-1' });
    await service.save({ config: { ...config, url: `${elsewhere.origin}/second` } as never, previousName: 'remote' });
    expect(elsewhere.requests.filter((r) => r.path === '/second').map((r) => r.headers.authorization)).toContain('Bearer tok-same-origin-1');
  });

  it('a rename that moves the server to another origin carries nothing either', async () => {
    const { service, everything, elsewhere } = await setUp();
    await service.save({ config: { name: 'first', transport: 'http', url: everything.url } as never, bearerToken: 'tok-rename-1' });
    await service.save({ config: { name: 'second', transport: 'http', url: elsewhere.url } as never, previousName: 'first' });
    expect(elsewhere.requests.length).toBeGreaterThan(0);
    expect(elsewhere.receivedText()).not.toContain('tok-rename-1');
  });

  it('an import that replaces a server with one at another origin carries nothing', async () => {
    const { service, everything, elsewhere } = await setUp();
    await service.save({ config: { name: 'remote', transport: 'http', url: everything.url } as never, bearerToken: 'tok-import-1' });
    const summary = await service.importServers(JSON.stringify({ mcpServers: { remote: { type: 'http', url: elsewhere.url } } }), { replace: true });
    expect(summary.replaced).toEqual(['remote']);
    expect(elsewhere.requests.length).toBeGreaterThan(0);
    expect(elsewhere.receivedText()).not.toContain('tok-import-1');
  });

  it('OAuth tokens obtained for one origin are deleted when the server moves, and never reach the new one', async () => {
    const { service, secretStore, elsewhere } = await setUp();
    const protectedServer = await startProtectedMcpServer({ scopesSupported: ['mcp:tools', 'offline_access'] });
    closing.push(protectedServer);
    await service.save({ config: { name: 'notes', transport: 'http', url: protectedServer.url } as never });
    const started = await service.oauth.login('notes', { timeoutMs: 20_000 });
    if (started.status !== 'redirect') throw new Error(`expected a browser sign-in, got ${started.status}`);
    // What the system browser does with the auto-approving server: follow its redirect to the loopback listener.
    const location = (await fetch(started.authorizationUrl, { redirect: 'manual' })).headers.get('location')!;
    await (await fetch(location)).text();
    await service.oauth.waitForLogin('notes');
    expect(service.get('notes').state.status).toBe('ready');
    const tokenKey = (await secretStore.keys()).find((key) => key.startsWith('oauth:tokens:'))!;
    const { access_token: accessToken } = JSON.parse((await secretStore.get(tokenKey))!) as { access_token: string };

    await service.save({ config: { name: 'notes', transport: 'http', url: elsewhere.url } as never, previousName: 'notes' });
    expect(elsewhere.requests.length).toBeGreaterThan(0);
    expect(elsewhere.receivedText()).not.toContain(accessToken);
    expect(elsewhere.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
    expect(await secretStore.get(tokenKey)).toBeUndefined();
    expect(await service.oauth.status('notes')).toMatchObject({ state: expect.not.stringMatching(/^signed-in$/) });
  });
});
