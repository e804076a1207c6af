import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { AgentCardResolver } from './AgentCardResolver';
import { closedPort, startFakeCardHost, type FakeCardHost } from '../../e2e/peers/a2a/fakeCardHost';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';

let peers: PeerSet;
let fake: FakeCardHost;
const resolver = new AgentCardResolver({ timeoutMs: 5000 });

beforeAll(async () => {
  [peers, fake] = await Promise.all([
    startPeers({
      sample: { kind: 'sample' },
      securedSample: {
        kind: 'sample',
        options: { auth: { bearerToken: 't0ken', apiKey: { in: 'header', name: 'X-API-Key', value: 'k3y' }, oauthClient: { clientId: 'c', clientSecret: 's' } } },
      },
      legacy: { kind: 'legacy' },
      legacyOldPath: { kind: 'legacy', options: { wellKnown: 'agent.json', auth: { apiKey: { in: 'query', name: 'api_key', value: 'k' } } } },
    }),
    startFakeCardHost(() => ({
      '/html/.well-known/agent-card.json': { body: '<!doctype html><title>Login</title>' },
      '/array/.well-known/agent-card.json': { body: [1, 2, 3] },
      '/nointerface/.well-known/agent-card.json': { body: { name: 'Nameless', description: 'no way to call it' } },
      '/broken/.well-known/agent-card.json': { status: 500, body: 'oops' },
      '/locked/.well-known/agent-card.json': { status: 401, body: { error: 'login' } },
    })),
  ]);
});
afterAll(async () => {
  await Promise.all([peers?.stop(), fake?.close()]);
});

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
}

describe('AgentCardResolver', () => {
  it('resolves a 1.0 card from the base URL', async () => {
    const card = await resolver.resolve(peers.urls.sample!);
    expect(card.cardUrl).toBe(`${peers.urls.sample}/.well-known/agent-card.json`);
    expect(card.protocolVersion).toBe('1.0');
    expect(card.view.interfaces.map((i) => i.binding)).toEqual(['JSONRPC', 'HTTP+JSON']);
    expect(card.view.interfaces[0]).toMatchObject({ url: `${peers.urls.sample}/a2a/jsonrpc`, protocolVersion: '1.0' });
    expect(card.view.skills.map((s) => s.id)).toEqual(['echo', 'report', 'ask', 'slow', 'fail']);
    expect(card.view.capabilities.streaming).toBe(true);
  });

  it('resolves a 0.3 card (url, preferredTransport, protocolVersion)', async () => {
    const card = await resolver.resolve(`${peers.urls.legacy}/`);
    expect(card.protocolVersion).toBe('0.3');
    expect(card.view.interfaces).toEqual([{ url: `${peers.urls.legacy}/a2a/jsonrpc`, binding: 'JSONRPC', protocolVersion: '0.3.0' }]);
    expect(card.view.skills).toHaveLength(5);
  });

  it('falls back to /.well-known/agent.json and accepts the card URL itself', async () => {
    const fallback = await resolver.resolve(peers.urls.legacyOldPath!);
    expect(fallback.cardUrl).toBe(`${peers.urls.legacyOldPath}/.well-known/agent.json`);
    const direct = await resolver.resolve(`${peers.urls.sample}/.well-known/agent-card.json`);
    expect(direct.view.name).toBe('Sample Agent');
  });

  it('reads security schemes of both card versions', async () => {
    const secured = await resolver.resolve(peers.urls.securedSample!);
    expect(secured.view.securitySchemes).toEqual([
      expect.objectContaining({ name: 'bearer', type: 'http', httpScheme: 'bearer' }),
      expect.objectContaining({ name: 'apiKey', type: 'apiKey', location: 'header', paramName: 'X-API-Key' }),
      expect.objectContaining({ name: 'oauth', type: 'oauth2', tokenUrl: `${peers.urls.securedSample}/oauth/token`, scopes: ['agent:call'] }),
    ]);
    expect(secured.view.securityRequirements).toEqual([['bearer'], ['apiKey'], ['oauth']]);
    const legacy = await resolver.resolve(peers.urls.legacyOldPath!);
    expect(legacy.view.securitySchemes).toEqual([expect.objectContaining({ name: 'apiKey', type: 'apiKey', location: 'query', paramName: 'api_key' })]);
    expect(legacy.view.securityRequirements).toEqual([['apiKey']]);
  });

  it('fails at the fetch step when nothing listens, when there is no card, or on server errors', async () => {
    const down = await failure(resolver.resolve(`http://127.0.0.1:${await closedPort()}/`));
    expect(down).toMatchObject({ code: 'ConnectionFailed', step: 'fetch' });
    expect(down.message).toMatch(/connection refused/);

    const missing = await failure(resolver.resolve(`${fake.url}/nothing-here`));
    expect(missing).toMatchObject({ code: 'NotFound', step: 'fetch' });
    expect(missing.message).toContain('/nothing-here/.well-known/agent-card.json (HTTP 404)');
    expect(missing.message).toContain('/nothing-here/.well-known/agent.json (HTTP 404)');

    expect(await failure(resolver.resolve(`${fake.url}/broken`))).toMatchObject({ code: 'ConnectionFailed', step: 'fetch', retryable: true });
    expect(await failure(resolver.resolve(`${fake.url}/locked`))).toMatchObject({ code: 'Unauthorized', step: 'fetch' });
    expect(await failure(resolver.resolve('ftp://example.test/'))).toMatchObject({ code: 'InvalidInput', step: 'fetch' });
  });

  it('fails at the parse step when the card is not JSON', async () => {
    const error = await failure(resolver.resolve(`${fake.url}/html`));
    expect(error).toMatchObject({ code: 'ExecutionFailed', step: 'parse' });
    expect(error.message).toMatch(/is not JSON \(text\/html\): <!doctype html>/);
  });

  it('fails at the validate step when the JSON is not a usable card', async () => {
    expect(await failure(resolver.resolve(`${fake.url}/array`))).toMatchObject({ step: 'validate' });
    const error = await failure(resolver.resolve(`${fake.url}/nointerface`));
    expect(error).toMatchObject({ code: 'ExecutionFailed', step: 'validate' });
    expect(error.message).toMatch(/declares no interface/);
  });
});
