import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpServerConfig } from '../../../shared/mcp';
import type { Logger } from '../../platform/Logger';
import { FileSecretStore } from '../../platform/FileSecretStore';
import { McpService } from '../McpService';
import { startProtectedMcpServer, type ProtectedServer, type ProtectedServerOptions } from './testing/startProtectedMcpServer';
import { pipelineFor } from '../testing/pipelineFor';

/** A logger that keeps every line, to prove no token reaches the logs. */
function recordingLogger(lines: string[]): Logger {
  const write = (message: string, fields?: Record<string, unknown>) => void lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  return { debug: write, info: write, warn: write, error: write };
}

/** What the system browser does with an auto-approving server: follow the redirect to the loopback listener. */
async function browse(authorizationUrl: string, rewrite: (callback: URL) => URL = (u) => u): Promise<{ status: number; text: string }> {
  const approval = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = approval.headers.get('location');
  if (!location) throw new Error(`the authorization server did not redirect (${approval.status}): ${await approval.text()}`);
  const callback = await fetch(rewrite(new URL(location)));
  return { status: callback.status, text: await callback.text() };
}

describe('MCP authorization of a saved server (SDK auth router + bearer middleware on 127.0.0.1)', () => {
  let server: ProtectedServer;
  let mcp: McpService;
  let tools: ReturnType<typeof pipelineFor>;
  let dataDir: string;
  let secrets: FileSecretStore;
  const logLines: string[] = [];

  async function setUp(options: ProtectedServerOptions = {}) {
    server = await startProtectedMcpServer(options);
    dataDir = await mkdtemp(join(tmpdir(), 'tooldeck-oauth-'));
    secrets = new FileSecretStore(join(dataDir, 'secrets'));
    mcp = new McpService({
      dataDir,
      secretStore: secrets,
      logger: recordingLogger(logLines),
      clientInfo: { name: 'tooldeck', version: 'test' },
      connectTimeoutMs: 10_000,
      shutdownGraceMs: 200,
    });
    tools = pipelineFor(mcp);
    await mcp.init();
    await mcp.save({ config: McpServerConfig.parse({ name: 'notes', transport: 'http', url: server.url, headers: { 'X-Team': 'ops' } }) });
  }

  async function signIn(): Promise<void> {
    const started = await mcp.oauth.login('notes', { timeoutMs: 20_000 });
    if (started.status !== 'redirect') throw new Error(`expected a browser sign-in, got ${started.status}`);
    const page = await browse(started.authorizationUrl);
    expect(page.text).toContain('Signed in');
    await mcp.oauth.waitForLogin('notes');
  }

  beforeEach(() => void (logLines.length = 0));
  afterEach(async () => {
    await mcp?.close();
    await server?.close();
  });

  it('asks for sign-in, then signs in through the browser and the loopback redirect, step by step', async () => {
    await setUp({ scopesSupported: ['mcp:tools', 'offline_access'], requiredScopes: ['mcp:tools'] });
    expect(mcp.get('notes').state).toMatchObject({ status: 'error', step: 'auth' });
    expect(mcp.get('notes').state.message).toMatch(/requires authorization.*Sign in/);

    const started = await mcp.oauth.login('notes', { timeoutMs: 20_000 });
    expect(started.status).toBe('redirect');
    const authorizationUrl = new URL((started as { authorizationUrl: string }).authorizationUrl);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('scope')).toBe('mcp:tools offline_access');
    expect(authorizationUrl.searchParams.get('resource')).toBe(server.url);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
    expect((await mcp.oauth.status('notes')).state).toBe('awaiting-browser');

    const page = await browse(authorizationUrl.href);
    expect(page).toMatchObject({ status: 200 });
    await mcp.oauth.waitForLogin('notes');

    expect(mcp.get('notes').state.status).toBe('ready');
    const whoami = await tools.call('notes', 'whoami', {});
    const registered = server.provider.registeredClients[0]!;
    expect(JSON.parse((whoami.content[0] as { text: string }).text)).toEqual({ clientId: registered.client_id, scopes: ['mcp:tools', 'offline_access'] });

    const status = await mcp.oauth.status('notes');
    expect(status).toMatchObject({ state: 'signed-in', issuer: server.authorizationServer, resource: server.url, scope: 'mcp:tools offline_access', hasRefreshToken: true });
    expect(status.steps.map((s) => [s.kind, s.status])).toEqual([
      ['challenge', 'ok'],
      ['resource-metadata', 'ok'],
      ['authorization-server-metadata', 'ok'],
      ['registration', 'ok'],
      ['authorization', 'ok'],
      ['callback', 'ok'],
      ['token', 'ok'],
    ]);
    const [, prm, asMetadata, registration] = status.steps;
    expect(prm!.document).toMatchObject({ resource: server.url, authorization_servers: [server.authorizationServer] });
    expect(asMetadata!.document).toMatchObject({ issuer: server.authorizationServer, token_endpoint: `${server.authorizationServer}token` });
    expect(registration!.detail).toContain(`client_id ${registered.client_id}`);
    expect(JSON.stringify(registration!.document)).not.toContain(registered.client_secret!);
  });

  it('keeps tokens and client secrets out of configs, logs, the transcript and the step log', async () => {
    await setUp({ scopesSupported: ['mcp:tools', 'offline_access'] });
    await mcp.oauth.setClient({ server: 'notes', grant: 'authorization_code', scopes: 'mcp:tools' });
    await signIn();
    await tools.call('notes', 'whoami', {});

    const keys = await secrets.keys();
    const tokenKey = keys.find((k) => k.startsWith('oauth:tokens:'))!;
    expect(tokenKey).toBe(`oauth:tokens:${server.authorizationServer} ${server.url}`);
    const tokens = JSON.parse((await secrets.get(tokenKey))!) as { access_token: string; refresh_token: string };
    const clientSecret = server.provider.registeredClients[0]!.client_secret!;
    const exposed = [
      await readFile(join(dataDir, 'servers.json'), 'utf8'),
      await readFile(join(dataDir, 'oauth.json'), 'utf8'),
      await readFile(join(dataDir, 'secrets', 'secrets.sealed'), 'utf8'),
      mcp.transcript('notes')!.export(),
      JSON.stringify(await mcp.oauth.status('notes')),
      logLines.join('\n'),
    ].join('\n');
    for (const secret of [tokens.access_token, tokens.refresh_token, clientSecret]) expect(exposed).not.toContain(secret);
    expect(mcp.transcript('notes')!.export()).toContain('whoami');
  });

  it('refuses a redirect whose state does not match and never asks for a token', async () => {
    await setUp();
    const started = await mcp.oauth.login('notes', { timeoutMs: 20_000 });
    const refused = expect(mcp.oauth.waitForLogin('notes')).rejects.toThrow(/Browser callback failed: the redirect's state does not match/);
    const page = await browse((started as { authorizationUrl: string }).authorizationUrl, (callback) => {
      callback.searchParams.set('state', 'forged-state');
      return callback;
    });
    expect(page.status).toBe(400);
    await refused;
    expect(server.provider.tokenRequests).toBe(0);
    const status = await mcp.oauth.status('notes');
    expect(status).toMatchObject({ state: 'failed', failure: { step: 'callback' } });
    expect(status.steps.at(-1)).toMatchObject({ kind: 'callback', status: 'failed' });
  });

  it('shows the token endpoint error with the step that failed', async () => {
    await setUp();
    server.provider.failCodeExchange = 'The authorization code has already been used';
    const started = await mcp.oauth.login('notes', { timeoutMs: 20_000 });
    const refused = expect(mcp.oauth.waitForLogin('notes')).rejects.toThrow('Token exchange failed: HTTP 400: invalid_grant — The authorization code has already been used');
    const page = await browse((started as { authorizationUrl: string }).authorizationUrl);
    expect(page.text).toContain('Sign-in failed');
    await refused;
    const status = await mcp.oauth.status('notes');
    expect(status.failure).toEqual({ step: 'token', message: 'Token exchange failed: HTTP 400: invalid_grant — The authorization code has already been used' });
    expect(status.steps.at(-1)).toMatchObject({ kind: 'token', status: 'failed', httpStatus: 400 });
  });

  it('reports an expired token whose refresh fails as a refresh failure, leaving the server settings alone', async () => {
    await setUp({ scopesSupported: ['mcp:tools', 'offline_access'] });
    await mcp.oauth.setClient({ server: 'notes', grant: 'authorization_code', scopes: 'mcp:tools' });
    await signIn();
    await mcp.disconnect('notes');
    server.provider.expireAccessTokens();
    const serversBefore = await readFile(join(dataDir, 'servers.json'), 'utf8');
    const settingsBefore = (await mcp.oauth.status('notes')).settings;

    server.provider.failRefresh = 'The refresh token was revoked';
    await expect(mcp.connect('notes')).rejects.toThrow(/Token refresh failed: HTTP 400: invalid_grant — The refresh token was revoked\. Sign in again/);
    expect(mcp.get('notes').state).toMatchObject({ status: 'error', step: 'auth' });
    const status = await mcp.oauth.status('notes');
    expect(status).toMatchObject({ state: 'failed', failure: { step: 'refresh' } });
    expect(status.steps.findLast((s) => s.kind === 'refresh')).toMatchObject({ status: 'failed', error: 'HTTP 400: invalid_grant — The refresh token was revoked' });
    expect(await readFile(join(dataDir, 'servers.json'), 'utf8')).toBe(serversBefore);
    expect(status.settings).toEqual(settingsBefore);
    expect(mcp.get('notes').config).toMatchObject({ url: server.url, secretHeaders: ['X-Team'] });
  });

  it('refreshes an expired token without a browser', async () => {
    await setUp({ scopesSupported: ['mcp:tools', 'offline_access'] });
    await signIn();
    await mcp.disconnect('notes');
    server.provider.expireAccessTokens();
    await mcp.connect('notes');
    expect(mcp.get('notes').state.status).toBe('ready');
    expect((await mcp.oauth.status('notes')).steps.filter((s) => s.kind === 'refresh').map((s) => s.status)).toContain('ok');
  });

  it('steps up for more scope after a 403 insufficient_scope', async () => {
    await setUp({ scopesSupported: ['mcp:tools', 'notes:write'], requiredScopes: ['mcp:tools'], writeScopes: ['notes:write'] });
    await signIn();
    await expect(tools.call('notes', 'write_note', { text: 'hi' })).rejects.toThrow(/needs more permissions \(scope "mcp:tools notes:write"\)/);
    // Incremental consent (SEP-835): what the token lacks is listed for the operator to grant.
    expect(await mcp.oauth.status('notes')).toMatchObject({ state: 'signed-in', scope: 'mcp:tools', requestedScopes: ['notes:write'] });

    await signIn();
    expect((await mcp.oauth.status('notes')).requestedScopes).toBeUndefined();
    expect(server.provider.authorizationRequests.at(-1)!.scopes).toEqual(['mcp:tools', 'notes:write']);
    const result = await tools.call('notes', 'write_note', { text: 'hi' });
    expect(result.content[0]).toMatchObject({ text: 'saved: hi' });
  });

  it('authorizes a legacy HTTP+SSE server the same way (event stream and message posts)', async () => {
    await setUp({ requiredScopes: ['mcp:tools'] });
    await mcp.save({ config: McpServerConfig.parse({ name: 'notes-sse', transport: 'sse', url: server.sseUrl }) });
    expect(mcp.get('notes-sse').state).toMatchObject({ status: 'error', step: 'auth' });
    const started = await mcp.oauth.login('notes-sse', { timeoutMs: 20_000 });
    await browse((started as { authorizationUrl: string }).authorizationUrl);
    await mcp.oauth.waitForLogin('notes-sse');
    expect(mcp.get('notes-sse').state.status).toBe('ready');
    const whoami = await tools.call('notes-sse', 'whoami', {});
    expect(JSON.parse((whoami.content[0] as { text: string }).text)).toMatchObject({ scopes: ['mcp:tools'] });
    expect((await mcp.oauth.status('notes-sse')).resource).toBe(server.sseUrl);
  });

  it('signs out: the tokens and registration leave the secret store and the connection closes', async () => {
    await setUp();
    await signIn();
    await mcp.oauth.logout('notes');
    expect((await secrets.keys()).filter((k) => k.startsWith('oauth:'))).toEqual([]);
    expect(mcp.get('notes').state.status).toBe('closed');
    expect(await mcp.oauth.status('notes')).toMatchObject({ state: 'signed-out', steps: [{ kind: 'sign-out', status: 'ok' }] });
    await expect(mcp.connect('notes')).rejects.toThrow(/requires authorization/);
  });

  it('refuses authorization server metadata whose issuer is not the server it was fetched from', async () => {
    await setUp({ metadataHost: 'localhost' });
    await expect(mcp.oauth.login('notes', { timeoutMs: 20_000 })).rejects.toThrow(/^Authorization server metadata failed: .*issuer/i);
    const status = await mcp.oauth.status('notes');
    expect(status.failure?.step).toBe('authorization-server-metadata');
    expect(server.provider.authorizationRequests).toHaveLength(0);
  });

  it('uses a pre-registered client id and secret instead of registering', async () => {
    await setUp();
    server.provider.preRegister({ client_id: 'tooldeck-ops', client_secret: 'pre-shared-secret', redirect_uris: ['http://127.0.0.1/oauth/callback'] });
    const status = await mcp.oauth.setClient({ server: 'notes', grant: 'authorization_code', clientId: 'tooldeck-ops', clientSecret: 'pre-shared-secret' });
    expect(status.settings).toEqual({ grant: 'authorization_code', clientId: 'tooldeck-ops', hasClientSecret: true });
    expect(await readFile(join(dataDir, 'oauth.json'), 'utf8')).not.toContain('pre-shared-secret');
    await signIn();
    expect(server.provider.registeredClients).toHaveLength(1);
    const steps = (await mcp.oauth.status('notes')).steps;
    expect(steps.find((s) => s.kind === 'registration')?.detail).toBe('Pre-registered client tooldeck-ops (with a client secret)');
    // The SDK's authorization server supports client_secret_post (and none) at its token endpoint.
    expect(steps.find((s) => s.kind === 'token')?.detail).toContain('client authentication: client_secret_post');
  });
});
