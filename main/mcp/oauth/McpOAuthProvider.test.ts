import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import { OAuthSettings } from '../../../shared/oauth';
import { MemorySecretStore } from '../../platform/SecretStore';
import { loadFlowSecrets } from './loadFlowSecrets';
import { McpOAuthProvider, type FlowSetup } from './McpOAuthProvider';
import { OAuthStepLog } from './OAuthStepLog';
import { OAuthStore } from './OAuthStore';

const SERVER_URL = new URL('https://notes.example/mcp');

function providerOver(store: OAuthStore) {
  return new McpOAuthProvider({ server: 'notes', serverUrl: SERVER_URL, store, log: new OAuthStepLog(), clientName: 'Tooldeck tests' });
}

function setup(settings: Partial<OAuthSettings>, secrets: FlowSetup['secrets'] = {}): FlowSetup {
  return { settings: OAuthSettings.parse(settings), secrets, redirectUrl: 'http://127.0.0.1/cb', cachedDiscovery: true, passive: false };
}

describe('McpOAuthProvider', () => {
  it('presents the bound tokens only to a server URL of the origin they were issued for', async () => {
    const store = new OAuthStore(new MemorySecretStore());
    await store.saveTokens('https://auth.example', SERVER_URL.href, { access_token: 'at-1', token_type: 'Bearer', issuer: 'https://auth.example', obtained_at: Date.now() } as never);
    await store.update('notes', { binding: { issuer: 'https://auth.example', resource: SERVER_URL.href } });
    expect(await providerOver(store).tokens()).toMatchObject({ access_token: 'at-1' });
    const elsewhere = (url: string) => new McpOAuthProvider({ server: 'notes', serverUrl: new URL(url), store, log: new OAuthStepLog(), clientName: 'Tooldeck tests' });
    expect(await elsewhere('https://notes.example/other').tokens()).toMatchObject({ access_token: 'at-1' });
    expect(await elsewhere('https://attacker.example/mcp').tokens()).toBeUndefined();
    expect(await elsewhere('http://notes.example/mcp').tokens()).toBeUndefined();
  });

  it('binds tokens to one DPoP key that outlives the process: created for a token request, reloaded from the secret store', async () => {
    const secrets = new MemorySecretStore();
    const store = new OAuthStore(secrets);
    await store.update('notes', { discovery: { authorizationServerUrl: 'https://auth.example', authorizationServerMetadata: { issuer: 'https://auth.example', dpop_signing_alg_values_supported: ['RS512', 'ES384'] } } as never });

    const first = providerOver(store);
    first.begin(setup({}));
    expect(await first.dpop()).toBeUndefined();
    first.authorizing = true;
    const session = (await first.dpop())!;
    expect(session.alg).toBe('RS512');
    const proof = await session.buildProof({ htm: 'post', htu: 'https://auth.example/token?x=1' });
    const header = jose.decodeProtectedHeader(proof);
    expect(header).toMatchObject({ typ: 'dpop+jwt', alg: 'RS512' });
    expect(header.jwk).not.toHaveProperty('d');
    const { payload } = await jose.jwtVerify(proof, await jose.importJWK(header.jwk!, 'RS512'));
    expect(payload).toMatchObject({ htm: 'POST', htu: 'https://auth.example/token' });

    const afterRestart = providerOver(new OAuthStore(secrets));
    expect((await afterRestart.dpop())?.thumbprint).toBe(session.thumbprint);
    expect(await afterRestart.dpopThumbprint()).toBe(await jose.calculateJwkThumbprint(header.jwk!));

    await store.signOut('notes');
    expect(await providerOver(store).dpop()).toBeUndefined();
  });

  it('asks for DPoP only where offered in auto mode, always when told, never when off', async () => {
    const store = new OAuthStore(new MemorySecretStore());
    const asked = async (settings: Partial<OAuthSettings>) => {
      const provider = providerOver(store);
      provider.begin(setup(settings));
      provider.authorizing = true;
      return (await provider.dpop())?.alg;
    };
    expect(await asked({})).toBeUndefined();
    expect(await asked({ dpop: 'off' })).toBeUndefined();
    expect(await asked({ dpop: 'always' })).toBe('ES256');
  });

  it('prepares each grant without a browser, and sends a refused assertion only once', async () => {
    const store = new OAuthStore(new MemorySecretStore());
    const provider = providerOver(store);
    provider.begin(setup({ grant: 'client_credentials', clientId: 'm', hasClientSecret: true }, { clientSecret: 's' }));
    expect(provider.redirectUrl).toBeUndefined();
    expect(String(await provider.prepareTokenRequest('a b'))).toBe('grant_type=client_credentials&scope=a+b');

    provider.begin(setup({ grant: 'jwt_bearer', clientId: 'w', hasAssertion: true }, { assertion: 'eyJ.workload.jwt' }));
    expect(provider.clientMetadata.grant_types).toEqual(['urn:ietf:params:oauth:grant-type:jwt-bearer']);
    expect(String(await provider.prepareTokenRequest())).toBe('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJ.workload.jwt');
    await expect(provider.prepareTokenRequest()).rejects.toThrow(/not sent again/);

    provider.begin(setup({ grant: 'authorization_code' }));
    expect(await provider.prepareTokenRequest()).toBeUndefined();
    expect(provider.redirectUrl).toBe('http://127.0.0.1/cb');
  });

  it('authenticates a pre-registered client the way the settings say', async () => {
    const provider = providerOver(new OAuthStore(new MemorySecretStore()));
    const run = async (settings: Partial<OAuthSettings>, secrets: FlowSetup['secrets']) => {
      provider.begin(setup({ clientId: 'ops client', ...settings }, secrets));
      const headers = new Headers();
      const params = new URLSearchParams();
      await provider.addClientAuthentication?.(headers, params, 'https://auth.example/token', { issuer: 'https://auth.example' } as never);
      return { authorization: headers.get('authorization'), params: Object.fromEntries(params) };
    };
    expect(await run({}, {})).toEqual({ authorization: null, params: {} });
    expect(await run({ clientAuth: 'client_secret_basic', hasClientSecret: true }, { clientSecret: 'a:b&c' })).toEqual({
      authorization: `Basic ${Buffer.from('ops%20client:a%3Ab%26c').toString('base64')}`,
      params: {},
    });
    expect(await run({ clientAuth: 'client_secret_post', hasClientSecret: true }, { clientSecret: 's' })).toEqual({ authorization: null, params: { client_id: 'ops client', client_secret: 's' } });

    const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const signed = await run({ hasPrivateKey: true }, { privateKey: await jose.exportPKCS8(privateKey) });
    expect(signed.params.client_assertion_type).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    const { payload } = await jose.jwtVerify(signed.params.client_assertion!, publicKey, { audience: 'https://auth.example', issuer: 'ops client', subject: 'ops client' });
    expect(payload.jti).toBeTruthy();
  });

  it('reads a workload token file afresh for each flow and names a missing one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tooldeck-wif-'));
    const file = join(dir, 'token');
    const store = new OAuthStore(new MemorySecretStore());
    const settings = OAuthSettings.parse({ grant: 'jwt_bearer', clientId: 'w', assertionFile: file });
    await expect(loadFlowSecrets(store, 'notes', settings)).rejects.toThrow(`JWT bearer grant failed: cannot read the workload identity token file ${file}: no such file`);
    await writeFile(file, 'first.jwt\n');
    expect((await loadFlowSecrets(store, 'notes', settings)).assertion).toBe('first.jwt');
    await writeFile(file, 'rotated.jwt');
    expect((await loadFlowSecrets(store, 'notes', settings)).assertion).toBe('rotated.jwt');
    await writeFile(file, '  ');
    await expect(loadFlowSecrets(store, 'notes', settings)).rejects.toThrow(/is empty/);
  });
});
