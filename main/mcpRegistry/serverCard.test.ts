import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffCardTools, fetchServerCard } from './serverCard';

/** A hand-written hostile server publishing cards: huge, redirecting, not JSON, badly shaped. */
let server: Server;
let origin: string;
const cards: Record<string, (res: import('node:http').ServerResponse) => void> = {};
/** The card the server answers with now. */
let current = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = cards[current];
    if (req.url !== '/.well-known/mcp/server-card' || !answer) {
      res.statusCode = 404;
      return res.end();
    }
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function cardFor(name: string, answer: (res: import('node:http').ServerResponse) => void) {
  current = name;
  cards[name] = answer;
  return fetchServerCard(`${origin}/tenant/mcp`);
}

describe('fetchServerCard', () => {
  it('reads a card from the origin of the endpoint, and compares its tools with tools/list', async () => {
    const card = await cardFor('good', (res) => res.end(JSON.stringify({ name: 'com.example/x', version: '1', tools: [{ name: 'a' }, { name: 'b' }], extra: { ignored: true } })));
    expect(card).toEqual({ name: 'com.example/x', version: '1', tools: [{ name: 'a' }, { name: 'b' }] });
    expect(diffCardTools(card!, ['a', 'c'])).toEqual({ undeclared: ['c'], missing: ['b'] });
    expect(diffCardTools({ name: 'dynamic' }, ['a'])).toEqual({ undeclared: [], missing: [] });
  });

  it('reads nothing from a card that redirects, is not JSON, is larger than 1 MiB, or is missing', async () => {
    expect(await cardFor('redirect', (res) => (res.writeHead(302, { location: 'http://evil.example/card' }), res.end()))).toBeUndefined();
    expect(await cardFor('garbage', (res) => res.end('<html>'))).toBeUndefined();
    expect(await cardFor('huge', (res) => res.end(JSON.stringify({ name: 'x', description: 'y'.repeat(2 * 1024 * 1024) })))).toBeUndefined();
    delete cards.none;
    current = 'none';
    expect(await fetchServerCard(`${origin}/mcp`)).toBeUndefined();
  });

  it('keeps a card whose tools are not a list (the draft allows "dynamic"), without tools', async () => {
    expect(await cardFor('dynamic', (res) => res.end(JSON.stringify({ name: 'x', tools: 'dynamic' })))).toEqual({ name: 'x' });
  });
});
