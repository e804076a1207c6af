import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp, type RunningPeer } from '../../../e2e/peers/mcp/everything';
import { runTooldeck } from '../testing/runTooldeck';

/** What the card in front of server-everything claims: one tool it has, one it does not. */
const SERVER_CARD = { name: 'com.example.mcp/hand-added', version: '1.2.0', description: 'A server someone told you about', tools: [{ name: 'echo' }, { name: 'delete-everything' }] };

let everything: RunningPeer;
let front: { server: Server; origin: string; seen: Array<{ url: string; headers: IncomingHttpHeaders }> };

beforeAll(async () => {
  everything = await startEverythingHttp();
  front = await cardInFront(everything.url);
}, 60_000);

afterAll(async () => {
  front?.server.closeAllConnections();
  front?.server.close();
  await everything?.close();
});

describe('tooldeck mcp add --url reads the server’s Server Card', { timeout: 60_000 }, () => {
  it('shows the card’s claims before trusting it, and holds them against tools/list once connected', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-mcp-card-'));
    const added = await runTooldeck(dataDir, ['mcp', 'add', 'handy', '--url', `${front.origin}/mcp`, '--header', 'x-api-key=card-test-token-0123456789']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('Its server card says: com.example.mcp/hand-added 1.2.0 — A server someone told you about; declares 2 tools');
    expect(added.stderr).toMatch(/warning: tools\/list has \d+ tools its server card does not declare: .*get-sum/);
    expect(added.stderr).toContain('warning: its server card declares delete-everything, which tools/list does not have');
    expect(added.stdout).toMatch(/^Saved handy — connected, \d+ tools\n$/);
    // The card is read with no credential: the header goes to the MCP endpoint only.
    const cardRequest = front.seen.find((seen) => seen.url === '/.well-known/mcp/server-card');
    expect(cardRequest).toBeDefined();
    expect(cardRequest!.headers['x-api-key']).toBeUndefined();
  });

  it('says nothing of a card a server does not publish', async () => {
    const added = await runTooldeck(mkdtempSync(join(tmpdir(), 'tooldeck-mcp-card-')), ['mcp', 'add', 'plain', '--url', everything.url]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).not.toContain('server card');
  });
});

/** A pass-through in front of server-everything that serves a Server Card and keeps what Tooldeck sent (a hand-written stand-in: server-everything publishes no card). */
async function cardInFront(target: string) {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/.well-known/mcp/server-card') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(SERVER_CARD));
    }
    const forward = request({ host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}
