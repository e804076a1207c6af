import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServerConfig } from '../../../shared/mcp';
import type { SetOAuthClientInput } from '../../../shared/oauth';
import { HeadlessAuthorizer } from './HeadlessAuthorizer';
import { OAuthFlowError } from './OAuthFlowError';
import { OAuthService } from './OAuthService';
import type { OAuthSession } from './OAuthSession';
import type { OAuthStepLog } from './OAuthStepLog';
import { startProtectedMcpServer, type ProtectedServer, type ProtectedServerOptions } from './testing/startProtectedMcpServer';

let server: ProtectedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function headlessSession(options: ProtectedServerOptions, settings: Partial<Omit<SetOAuthClientInput, 'server'>> = {}): Promise<{ session: OAuthSession; log: OAuthStepLog; server: ProtectedServer }> {
  server = await startProtectedMcpServer(options);
  const config = McpServerConfig.parse({ name: 'notes', transport: 'http', url: server.url });
  if (config.transport === 'stdio') throw new Error('unreachable');
  const { session, log } = await OAuthService.ephemeralSession(config, { clientName: 'Tooldeck tests', settings: { grant: 'authorization_code', ...settings }, authorizer: new HeadlessAuthorizer() });
  return { session, log, server };
}

/** One MCP request through the session, as the transport sends it. */
async function listTools(session: OAuthSession, url: string): Promise<Response> {
  return session.fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

async function callWriteNote(session: OAuthSession, url: string): Promise<Response> {
  return session.fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_note', arguments: { text: 'x' } } }),
  });
}

describe('PKCE', () => {
  it('sends an S256 challenge of a fresh high-entropy verifier, which the server checks at the token endpoint', async () => {
    const { session, server } = await headlessSession({});
    await session.authorize();
    const verifier = session.provider.codeVerifier();
    expect(verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(server.provider.authorizationRequests[0]!.codeChallenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(server.provider.tokenRequests).toBe(1);

    await session.authorize({ force: true });
    expect(session.provider.codeVerifier()).not.toBe(verifier);
  });
});

describe('issuer validation', () => {
  it('accepts a redirect whose iss is the authorization server (RFC 9207)', async () => {
    const { session, server, log } = await headlessSession({});
    server.provider.issuer = server.authorizationServer;
    await session.authorize();
    expect(log.latest('callback')).toMatchObject({ status: 'ok', detail: `Authorization code received, iss ${server.authorizationServer}` });
  });

  it('refuses a redirect from a different issuer before redeeming the code', async () => {
    const { session, server, log } = await headlessSession({});
    server.provider.issuer = 'http://127.0.0.1:9/';
    const failure = await session.authorize().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthFlowError);
    expect(failure).toMatchObject({ oauthStep: 'callback' });
    expect((failure as Error).message).toMatch(/^Browser callback failed: .*issuer/i);
    expect(server.provider.tokenRequests).toBe(0);
    expect(log.latest('callback')?.status).toBe('failed');
  });

  it('refuses authorization server metadata that names another issuer', async () => {
    const { session, server, log } = await headlessSession({ metadataHost: 'localhost' });
    const failure = await session.authorize().catch((error: unknown) => error);
    expect(failure).toMatchObject({ oauthStep: 'authorization-server-metadata' });
    expect(log.latest('authorization-server-metadata')).toMatchObject({ status: 'failed' });
    expect(server.provider.registeredClients).toHaveLength(0);
  });
});

describe('scope selection', () => {
  it('asks for the scope of the WWW-Authenticate challenge, not everything the server supports', async () => {
    const { session, server } = await headlessSession({ scopesSupported: ['mcp:tools', 'mcp:admin'], requiredScopes: ['mcp:tools'] });
    expect((await listTools(session, server.url)).status).toBe(200);
    expect(server.provider.authorizationRequests[0]!.scopes).toEqual(['mcp:tools']);
  });

  it('falls back to all of scopes_supported when the challenge names none', async () => {
    const { session, server } = await headlessSession({ scopesSupported: ['notes:read', 'notes:write'] });
    expect((await listTools(session, server.url)).status).toBe(200);
    expect(server.provider.authorizationRequests[0]!.scopes).toEqual(['notes:read', 'notes:write']);
  });

  it('then to the scopes configured for the server, else omits scope', async () => {
    const configured = await headlessSession({}, { scopes: 'notes:read' });
    await listTools(configured.session, configured.server.url);
    expect(configured.server.provider.authorizationRequests[0]!.scopes).toEqual(['notes:read']);
    await configured.server.close();

    const bare = await headlessSession({});
    await listTools(bare.session, bare.server.url);
    expect(new URL(bare.log.latest('authorization')!.url!).searchParams.has('scope')).toBe(false);
    expect(bare.log.latest('authorization')!.detail).toContain('no scope');
  });

  it('adds offline_access only where the authorization server offers it', async () => {
    const offered = await headlessSession({ scopesSupported: ['mcp:tools', 'offline_access'], requiredScopes: ['mcp:tools'] });
    await listTools(offered.session, offered.server.url);
    expect(offered.server.provider.authorizationRequests[0]!.scopes).toEqual(['mcp:tools', 'offline_access']);
    await offered.server.close();

    const notOffered = await headlessSession({ scopesSupported: ['mcp:tools'], requiredScopes: ['mcp:tools'] });
    await listTools(notOffered.session, notOffered.server.url);
    expect(notOffered.server.provider.authorizationRequests[0]!.scopes).toEqual(['mcp:tools']);
  });
});

describe('step-up', () => {
  it('re-authorizes with the union of granted and challenged scopes, and succeeds', async () => {
    const { session, server } = await headlessSession({ scopesSupported: ['mcp:tools', 'notes:write'], requiredScopes: ['mcp:tools'], writeScopes: ['notes:write'] });
    expect((await listTools(session, server.url)).status).toBe(200);
    expect((await callWriteNote(session, server.url)).status).toBe(200);
    expect(server.provider.authorizationRequests.map((r) => r.scopes)).toEqual([['mcp:tools'], ['mcp:tools', 'notes:write']]);
  });

  it('stops after two step-ups when the server keeps answering insufficient_scope', async () => {
    const { session, server, log } = await headlessSession({ scopesSupported: ['mcp:tools', 'notes:write'], requiredScopes: ['mcp:tools'], writeScopes: ['notes:write'] });
    server.provider.grantOnly = ['mcp:tools'];
    await listTools(session, server.url);
    await expect(callWriteNote(session, server.url)).rejects.toThrow(/still refuses the request for insufficient scope \("mcp:tools notes:write"\) after 2 step-up authorizations/);
    await expect(callWriteNote(session, server.url)).rejects.toThrow(/after 2 step-up authorizations/);
    expect(server.provider.authorizationRequests).toHaveLength(3);
    expect(log.list().at(-1)).toMatchObject({ kind: 'challenge', status: 'failed', httpStatus: 403 });
  });
});
