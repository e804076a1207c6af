import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleAgent, type RunningPeer } from '../../e2e/peers/a2a/sampleAgent';
import { AppError } from '../../shared/errors';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { A2aAgentService } from './A2aAgentService';
import { createAuthFetch } from './A2aAuth';

/** A server on another port that records every request it is sent (headers and body) and answers 401. */
async function startRecorder(): Promise<{ url: string; requests: Array<{ url: string; headers: IncomingHttpHeaders; body: string }>; close(): Promise<void> }> {
  const requests: Array<{ url: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"recorded"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
}

/**
 * Hand-written hostile A2A agents (real @a2a-js/sdk servers) whose cards point their interface or
 * their OAuth token URL at a recording server on another port: the credentials saved for the agent
 * must never arrive there.
 */
describe('A2A credentials go only to the origin the agent was saved at', () => {
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  let interfaceElsewhere: RunningPeer;
  let tokenUrlElsewhere: RunningPeer;
  let honest: RunningPeer;
  let backend: RunningPeer;
  let cardElsewhere: RunningPeer;

  beforeAll(async () => {
    recorder = await startRecorder();
    backend = await startSampleAgent({ auth: { bearerToken: 'saved-bearer-token' } });
    // Not hostile, just split: the card is served here, the agent answers at `backend`.
    cardElsewhere = await startSampleAgent({ hostileCard: { interfaceBaseUrl: backend.url } });
    [interfaceElsewhere, tokenUrlElsewhere, honest] = await Promise.all([
      startSampleAgent({ auth: { bearerToken: 'saved-bearer-token' }, hostileCard: { interfaceBaseUrl: recorder.url } }),
      startSampleAgent({ auth: { oauthClient: { clientId: 'tooldeck', clientSecret: 'saved-client-secret' } }, hostileCard: { tokenUrl: `${recorder.url}/oauth/token` } }),
      startSampleAgent({ auth: { oauthClient: { clientId: 'tooldeck', clientSecret: 'saved-client-secret' } } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([backend?.close(), cardElsewhere?.close(), recorder?.close(), interfaceElsewhere?.close(), tokenUrlElsewhere?.close(), honest?.close()]);
  });

  function newService() {
    return new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-origin-')), secretStore: new MemorySecretStore(), logger: silentLogger });
  }

  const leaked = () => recorder.requests.filter((request) => JSON.stringify(request).includes('saved-') || request.headers.authorization);

  it('refuses a card whose interface URL is on another origin, with one sentence, and sends the bearer token nowhere there', async () => {
    const service = newService();
    await service.save({ name: 'moved', url: interfaceElsewhere.url, auth: { kind: 'bearer', token: 'saved-bearer-token' } });
    const error = await failure(service.send('moved', 'hello'));
    expect(error.code).toBe('Unauthorized');
    expect(error.message).toMatch(
      /^The agent card of "moved" points its interface elsewhere \(http:\/\/127\.0\.0\.1:\d+ is not http:\/\/127\.0\.0\.1:\d+, where the credentials were saved\), so no credentials were sent; if you trust it, save the agent again with http:\/\/127\.0\.0\.1:\d+ as its interface origin\.$/,
    );
    expect(recorder.requests).toEqual([]);
  });

  it('uses an interface on another origin once the user saved that origin as the agent’s interface origin (the confirmation)', async () => {
    const service = newService();
    await service.save({ name: 'split', url: cardElsewhere.url, auth: { kind: 'bearer', token: 'saved-bearer-token' } });
    expect((await failure(service.send('split', 'hello'))).message).toMatch(/points its interface elsewhere/);
    await service.save({ name: 'split', url: cardElsewhere.url, interfaceOrigin: backend.url, auth: { kind: 'bearer' } });
    expect(await service.send('split', 'hello')).toMatchObject({ kind: 'message', text: 'hello' });
  });

  it('refuses a card whose OAuth token URL is on another origin: the client secret never reaches it', async () => {
    const service = newService();
    await service.save({ name: 'token-elsewhere', url: tokenUrlElsewhere.url, auth: { kind: 'oauth2ClientCredentials', clientId: 'tooldeck', clientSecret: 'saved-client-secret' } });
    const error = await failure(service.send('token-elsewhere', 'hello'));
    expect(error.message).toMatch(/^The agent card of "token-elsewhere" points its OAuth token URL elsewhere \(http:\/\/127\.0\.0\.1:\d+ is not http:\/\/127\.0\.0\.1:\d+, where the credentials were saved\)/);
    expect(leaked()).toEqual([]);
  });

  it('uses a token URL on another origin once the user saved it explicitly (the confirmation)', async () => {
    const service = newService();
    await service.save({
      name: 'confirmed',
      url: tokenUrlElsewhere.url,
      auth: { kind: 'oauth2ClientCredentials', clientId: 'tooldeck', clientSecret: 'saved-client-secret', tokenUrl: `${tokenUrlElsewhere.url}/oauth/token` },
    });
    expect(await service.send('confirmed', 'hello')).toMatchObject({ kind: 'message', text: 'hello' });
  });

  it('still talks to an agent whose card keeps interface and token URL on the saved origin', async () => {
    const service = newService();
    await service.save({ name: 'honest', url: honest.url, auth: { kind: 'oauth2ClientCredentials', clientId: 'tooldeck', clientSecret: 'saved-client-secret' } });
    expect(await service.send('honest', 'hello')).toMatchObject({ kind: 'message', text: 'hello' });
    expect(leaked()).toEqual([]);
  });

  it('follows a redirect within the saved origin but refuses one to another origin before any credential header goes there', async () => {
    const redirector = createServer((req, res) => {
      if (req.url === '/same') return void res.writeHead(307, { location: '/final' }).end();
      if (req.url === '/final') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiKey: req.headers['x-api-key'] ?? null }));
      res.writeHead(307, { location: `${recorder.url}/stolen` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    try {
      const before = recorder.requests.length;
      const auth = createAuthFetch(fetch, { kind: 'apiKey', in: 'header', name: 'X-Api-Key', key: 'saved-api-key' }, { 'X-Sealed': 'saved-sealed-header' }, `${origin}/`, 'redirecting');
      expect(await (await auth.fetch(`${origin}/same`, { method: 'POST', body: '{}' })).json()).toEqual({ apiKey: 'saved-api-key' });
      const error = await failure(auth.fetch(`${origin}/a2a/jsonrpc`, { method: 'POST', body: '{}' }));
      expect(error.message).toMatch(/^"redirecting" redirected a call elsewhere \(http:\/\/127\.0\.0\.1:\d+ is not http:\/\/127\.0\.0\.1:\d+, where the credentials were saved\), so no credentials were sent/);
      expect(recorder.requests.length).toBe(before);
    } finally {
      redirector.closeAllConnections();
      await new Promise((resolve) => redirector.close(resolve));
    }
  });

  it('refuses to move a saved agent to another origin while keeping its stored credentials: they must be given again', async () => {
    const service = newService();
    await service.save({ name: 'moving', url: honest.url, headers: [{ name: 'X-Tenant-Key', value: 'saved-tenant-key', secret: true }], auth: { kind: 'bearer', token: 'saved-bearer-token' } });
    const error = await failure(service.save({ name: 'moving', url: recorder.url, headers: [{ name: 'X-Tenant-Key', secret: true }], auth: { kind: 'bearer' } }));
    expect(error.message).toBe(
      `"moving" moves to ${recorder.url} from ${honest.url}: give its bearer token, x-tenant-key header again, as saved credentials stay with the address they were given for.`,
    );
    expect((await service.get('moving')).url).toBe(honest.url);
    await service.save({ name: 'moving', url: `${honest.url}/`, headers: [{ name: 'X-Tenant-Key', secret: true }], auth: { kind: 'bearer' } });
    await service.save({ name: 'moving', url: recorder.url, headers: [{ name: 'X-Tenant-Key', value: 'new-tenant-key', secret: true }], auth: { kind: 'bearer', token: 'new-token' } });
    expect((await service.get('moving')).url).toBe(recorder.url);
  });

  it('never sends credentials saved for https over plain http to the same host and port', async () => {
    const port = new URL(recorder.url).port;
    const before = recorder.requests.length;
    const auth = createAuthFetch(fetch, { kind: 'bearer', token: 'saved-bearer-token' }, {}, `https://127.0.0.1:${port}/`, 'tls-agent');
    const error = await failure(auth.fetch(`${recorder.url}/a2a/jsonrpc`, { method: 'POST', body: '{}' }));
    expect(error.message).toBe(
      `The agent card of "tls-agent" points its interface elsewhere (http://127.0.0.1:${port} is unencrypted where the credentials were saved for https://127.0.0.1:${port}), so no credentials were sent; if you trust it, save the agent again with http://127.0.0.1:${port} as its interface origin.`,
    );
    expect(recorder.requests.length).toBe(before);
  });
});
