import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2aCheckRow } from '../../shared/a2a';
import { AgentCardResolver } from './AgentCardResolver';
import { CardValidator } from './CardValidator';
import { closedPort, startFakeCardHost, type FakeCardHost } from '../../e2e/peers/a2a/fakeCardHost';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';

let peers: PeerSet;
let fake: FakeCardHost;
const resolver = new AgentCardResolver();
const validator = new CardValidator({ timeoutMs: 2000 });

async function report(url: string): Promise<Record<string, A2aCheckRow>> {
  const rows = await validator.validate(await resolver.resolve(url));
  return Object.fromEntries(rows.map((r) => [r.id, r]));
}

beforeAll(async () => {
  const deadPort = await closedPort();
  [peers, fake] = await Promise.all([
    startPeers({ sample: { kind: 'sample' }, legacy: { kind: 'legacy', options: { auth: { bearerToken: 'x' } } } }),
    startFakeCardHost((base) => ({
      '/sloppy/.well-known/agent-card.json': {
        body: {
          name: 'Sloppy',
          supportedInterfaces: [
            { url: `${base}/sloppy/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            { url: `http://127.0.0.1:${deadPort}/rpc`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          ],
          version: 7,
          capabilities: {},
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [
            { id: 'ok', name: 'Fine', description: 'Well formed', tags: ['a'], examples: ['x'] },
            { id: 'untagged', name: 'No tags', description: 'Missing tags' },
            { id: 'ok', name: 'Again', description: 'Duplicate id', tags: ['b'], examples: 'not a list' },
          ],
          securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } }, key: { apiKeySecurityScheme: { location: 'header' } } },
          securityRequirements: [{ schemes: { bearer: {} } }, { schemes: { oauth: {} } }],
          signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' }],
        },
      },
      '/sloppy/rpc': { status: 405, body: 'POST only' },
      '/grpc/.well-known/agent-card.json': {
        body: {
          name: 'Grpc only',
          description: 'x',
          version: '1',
          supportedInterfaces: [{ url: '127.0.0.1:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
          capabilities: {},
          defaultInputModes: [],
          defaultOutputModes: [],
          skills: [],
        },
      },
    })),
  ]);
});
afterAll(async () => {
  await Promise.all([peers?.stop(), fake?.close()]);
});

describe('CardValidator', () => {
  it('passes a well-formed 1.0 card and warns that it is unsigned', async () => {
    const rows = await report(peers.urls.sample!);
    expect(rows['required-fields']!.status).toBe('pass');
    expect(rows['protocol-version']).toMatchObject({ status: 'pass', detail: expect.stringContaining('A2A 1.0') });
    expect(rows['interfaces']).toMatchObject({ status: 'pass', detail: expect.stringContaining('Will use JSONRPC') });
    expect(rows['interface-reachable-0']!.status).toBe('pass');
    expect(rows['interface-reachable-1']!.status).toBe('pass');
    expect(rows['skills']).toMatchObject({ status: 'pass', detail: '5 skill(s) declared.' });
    expect(rows['skill-report']!.status).toBe('pass');
    expect(rows['security-schemes']).toMatchObject({ status: 'pass', detail: expect.stringContaining('None declared') });
    expect(rows['signature']!.status).toBe('warn');
    expect(Object.values(rows).filter((r) => r.status === 'fail')).toEqual([]);
  });

  it('checks a 0.3 card against 0.3 rules, security included', async () => {
    const rows = await report(peers.urls.legacy!);
    expect(rows['required-fields']!.status).toBe('pass');
    expect(rows['protocol-version']).toMatchObject({ status: 'pass', detail: expect.stringContaining('0.3.0') });
    expect(rows['security-schemes']).toMatchObject({ status: 'pass', detail: 'Declared: bearer.' });
    expect(rows['security-requirements']!.status).toBe('pass');
  });

  it('fails what is broken and says exactly what', async () => {
    const rows = await report(`${fake.url}/sloppy`);
    expect(rows['required-fields']).toMatchObject({ status: 'fail' });
    expect(rows['required-fields']!.detail).toMatch(/missing: description/);
    expect(rows['required-fields']!.detail).toMatch(/malformed: version \(expected a non-empty string\)/);
    expect(rows['interface-reachable-0']).toMatchObject({ status: 'pass', detail: expect.stringContaining('HTTP 405') });
    expect(rows['interface-reachable-1']).toMatchObject({ status: 'fail', detail: expect.stringContaining('connection refused') });
    expect(rows['skills']).toMatchObject({ status: 'fail', detail: expect.stringContaining('repeated: ok') });
    expect(rows['skill-untagged']).toMatchObject({ status: 'fail', detail: 'tags missing or empty.' });
    expect(rows['security-schemes']).toMatchObject({ status: 'fail', detail: expect.stringContaining('key') });
    expect(rows['security-requirements']).toMatchObject({ status: 'fail', detail: expect.stringContaining('oauth (card)') });
    expect(rows['signature']).toMatchObject({ status: 'pass' });
  });

  it('fails a card with no interface this client can use and warns about an empty skill list', async () => {
    const rows = await report(`${fake.url}/grpc`);
    expect(rows['interfaces']).toMatchObject({ status: 'fail', detail: expect.stringContaining('None usable') });
    expect(rows['interface-reachable-0']!.status).toBe('warn');
    expect(rows['skills']!.status).toBe('warn');
  });
});
