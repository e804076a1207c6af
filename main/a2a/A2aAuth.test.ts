import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { A2aAgentService } from './A2aAgentService';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';

let peers: PeerSet;

beforeAll(async () => {
  peers = await startPeers({
    bearer: { kind: 'sample', options: { auth: { bearerToken: 'bearer-s3cret' } } },
    keyHeader: { kind: 'sample', options: { auth: { apiKey: { in: 'header', name: 'X-API-Key', value: 'key-h3ader' } } } },
    keyQuery: { kind: 'legacy', options: { auth: { apiKey: { in: 'query', name: 'api_key', value: 'key-qu3ry' } } } },
    oauth: { kind: 'sample', options: { auth: { oauthClient: { clientId: 'tooldeck', clientSecret: 'client-s3cret' } } } },
  });
});
afterAll(() => peers?.stop());

function newService() {
  return new A2aAgentService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-a2a-auth-')), secretStore: new MemorySecretStore(), logger: silentLogger });
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

function transcriptText(service: A2aAgentService, agent: string): string {
  return JSON.stringify(service.transcriptOf(agent));
}

describe('A2A auth from the card', () => {
  it('sends a bearer token and never shows it in the transcript', async () => {
    const service = newService();
    await service.save({
      name: 'bearer',
      url: peers.urls.bearer!,
      auth: { kind: 'bearer', token: 'bearer-s3cret' },
      headers: [
        { name: 'X-Tenant', value: 'blue' },
        { name: 'X-Session', value: 'session-s3cret', secret: true },
      ],
    });
    expect((await service.send('bearer', 'with a token')).text).toBe('with a token');
    const calls = service.transcriptOf('bearer').filter((e) => e.direction === 'request' && e.method === 'SendMessage');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers).toMatchObject({ authorization: 'Bearer ***', 'x-tenant': 'blue', 'x-session': '***', 'a2a-version': '1.0' });
    expect(transcriptText(service, 'bearer')).not.toMatch(/s3cret/);
  });

  it('is refused without credentials, with wrong ones, and when none are stored', async () => {
    const service = newService();
    const anonymous = await failure(service.send(peers.urls.bearer!, 'no token'));
    expect(anonymous).toMatchObject({ code: 'Unauthorized' });

    await service.save({ name: 'wrong', url: peers.urls.bearer!, auth: { kind: 'bearer', token: 'not-the-token' } });
    expect(await failure(service.send('wrong', 'bad token'))).toMatchObject({ code: 'Unauthorized' });

    await service.save({ name: 'empty', url: peers.urls.bearer!, auth: { kind: 'bearer' } });
    const empty = await failure(service.send('empty', 'no stored token'));
    expect(empty).toMatchObject({ code: 'Unauthorized', step: 'auth' });
    expect(empty.message).toMatch(/No bearer token is stored for agent "empty"/);
  });

  it("puts an API key where the card's scheme says: a header", async () => {
    const service = newService();
    await service.save({ name: 'keyed', url: peers.urls.keyHeader!, auth: { kind: 'apiKey', key: 'key-h3ader' } });
    expect((await service.send('keyed', '/report keys')).state).toBe('COMPLETED');
    const request = service.transcriptOf('keyed').find((e) => e.method === 'SendMessage')!;
    expect(request.headers!['x-api-key']).toBe('***');
    expect(transcriptText(service, 'keyed')).not.toContain('key-h3ader');
  });

  it('puts an API key in the query for a 0.3 agent that wants it there', async () => {
    const service = newService();
    await service.save({ name: 'query', url: peers.urls.keyQuery!, auth: { kind: 'apiKey', key: 'key-qu3ry' } });
    expect((await service.send('query', 'hello 0.3')).text).toBe('hello 0.3');
    const request = service.transcriptOf('query').find((e) => e.method === 'message/send')!;
    expect(request.url).toMatch(/[?&]api_key=\*\*\*/);
    expect(transcriptText(service, 'query')).not.toContain('key-qu3ry');
  });

  it('fetches an OAuth2 client-credentials token from the tokenUrl and masks the exchange', async () => {
    const service = newService();
    await service.save({ name: 'oauth', url: peers.urls.oauth!, auth: { kind: 'oauth2ClientCredentials', clientId: 'tooldeck', clientSecret: 'client-s3cret' } });
    expect((await service.send('oauth', 'first')).text).toBe('first');
    expect((await service.send('oauth', 'second')).text).toBe('second');
    const entries = service.transcriptOf('oauth');
    const tokenCalls = entries.filter((e) => e.direction === 'request' && e.method === 'POST /oauth/token');
    expect(tokenCalls).toHaveLength(1);
    expect(tokenCalls[0]!.headers!.authorization).toBe('Basic ***');
    const tokenAnswer = entries.find((e) => e.direction === 'response' && e.requestSeq === tokenCalls[0]!.seq)!;
    expect(tokenAnswer.body).toContain('"access_token":"***"');
    const sends = entries.filter((e) => e.direction === 'request' && e.method === 'SendMessage');
    expect(sends.map((e) => e.headers!.authorization)).toEqual(['Bearer ***', 'Bearer ***']);
    expect(JSON.stringify(entries)).not.toMatch(/client-s3cret|peer-[0-9a-f-]{36}/);

    await service.save({ name: 'badclient', url: peers.urls.oauth!, auth: { kind: 'oauth2ClientCredentials', clientId: 'tooldeck', clientSecret: 'wrong' } });
    const refused = await failure(service.send('badclient', 'nope'));
    expect(refused).toMatchObject({ code: 'Unauthorized', step: 'auth' });
    expect(refused.message).toMatch(/token endpoint refused the client credentials \(HTTP 401: invalid_client\)/);
  });
});
