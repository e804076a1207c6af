import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthStatus } from '../../shared/oauth';
import { createCore, type Core } from '../core';
import { startProtectedMcpServer, type ProtectedServer } from '../mcp/oauth/testing/startProtectedMcpServer';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { oauthRouter } from './oauthRouter';
import { createCallerFactory } from './trpc';
import { operatorCaller } from '../../shared/caller';

let core: Core;
let server: ProtectedServer;
const callerFor = createCallerFactory(oauthRouter);

beforeAll(async () => {
  server = await startProtectedMcpServer({ scopesSupported: ['mcp:tools'] });
  core = await createCore({ appVersion: '0.0.0-test', host: 'cli', dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-oauth-rpc-')), secretStore: new MemorySecretStore(), logger: silentLogger, shutdownGraceMs: 200 });
  await core.mcp.save({ config: { name: 'notes', transport: 'http', url: server.url, enabled: false } as never });
  await core.mcp.save({ config: { name: 'local', transport: 'stdio', command: 'true' } as never });
});
afterAll(async () => {
  await core?.close();
  await server?.close();
});

describe('oauth router', () => {
  it('streams the steps of a sign-in started over RPC and finished by the browser, then signs out', async () => {
    const rpc = callerFor({ core, caller: operatorCaller('ui') });
    expect(await rpc.status({ server: 'notes' })).toMatchObject({ state: 'signed-out', steps: [], hasRefreshToken: false });

    const seen: OAuthStatus[] = [];
    const watching = (async () => {
      for await (const status of await rpc.watch({ server: 'notes' })) {
        seen.push(status);
        if (status.state === 'signed-in') break;
      }
    })();

    const started = await rpc.login({ server: 'notes' });
    if (started.status !== 'redirect') throw new Error('expected a browser sign-in');
    const approval = await fetch(started.authorizationUrl, { redirect: 'manual' });
    await fetch(approval.headers.get('location')!);
    await core.mcp.oauth.waitForLogin('notes');
    await watching;

    expect(seen.some((s) => s.state === 'awaiting-browser' && s.authorizationUrl === started.authorizationUrl)).toBe(true);
    expect(seen.at(-1)!.steps.map((s) => s.kind)).toEqual(['challenge', 'resource-metadata', 'authorization-server-metadata', 'registration', 'authorization', 'callback', 'token']);

    await rpc.logout({ server: 'notes' });
    expect(await rpc.status({ server: 'notes' })).toMatchObject({ state: 'signed-out', steps: [{ kind: 'sign-out' }] });
  });

  it('validates client settings and refuses stdio servers', async () => {
    const rpc = callerFor({ core, caller: operatorCaller('ui') });
    await expect(rpc.setClient({ server: 'notes', grant: 'client_credentials', clientId: 'machine' })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('pre-registered client id and its secret or private key') });
    expect((await rpc.setClient({ server: 'notes', grant: 'client_credentials', clientId: 'machine', clientSecret: 'x'.repeat(24), scopes: 'mcp:tools' })).settings).toEqual({
      grant: 'client_credentials',
      clientId: 'machine',
      hasClientSecret: true,
      scopes: 'mcp:tools',
    });
    await expect(rpc.status({ server: 'local' })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('stdio') });
    await expect(rpc.status({ server: 'missing' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
