import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClawDescriptor } from './ClawDescriptor';
import { httpToolEntries } from './httpToolEntries';
import { loadClawDescriptor } from './loadClawDescriptor';

const seedDescriptor = fileURLToPath(new URL('./testing/trading-api.claw-describe.json', import.meta.url));

describe('claw.describe v2 descriptors (Clawdapus)', () => {
  it('loads the documented Clawdapus example from a file and turns its tools into http:<service>.<tool> entries', async () => {
    const { descriptor } = await loadClawDescriptor(seedDescriptor);
    const entries = httpToolEntries(descriptor, { service: 'trading-api', baseUrl: 'http://trading-api:4000' });
    expect(entries.map((e) => e.name)).toEqual(['http:trading-api.get_market_context', 'http:trading-api.execute_trade']);

    const [context, trade] = entries;
    expect(context).toMatchObject({
      source: { kind: 'http', name: 'trading-api' },
      toolName: 'get_market_context',
      description: 'Retrieve agent-scoped market context: positions, balance, buying power',
      annotations: { readOnlyHint: true },
      policy: { riskLevel: 'low', operationClasses: ['read'] },
      http: { baseUrl: 'http://trading-api:4000', method: 'GET', path: '/api/v1/market_context/{claw_id}', auth: { type: 'bearer', env: 'TRADING_API_TOKEN' } },
    });
    // readOnly: false in Clawdapus means side-effecting: a write, not a delete.
    expect(trade).toMatchObject({
      annotations: { readOnlyHint: false, destructiveHint: false },
      policy: { operationClasses: ['write'] },
      http: { method: 'POST', path: '/api/v1/trades', body: 'json' },
    });
    expect(trade!.inputSchema.required).toEqual(['symbol', 'side', 'quantity']);
  });

  it('lets operator settings override the descriptor hints', async () => {
    const { descriptor } = await loadClawDescriptor(seedDescriptor);
    const [, trade] = httpToolEntries(descriptor, {
      service: 'trading-api',
      baseUrl: 'http://trading-api:4000',
      config: { execute_trade: { risk_level: 'critical', operation_classes: ['write', 'admin'], runtime: { timeout: '5s' } } },
    });
    expect(trade).toMatchObject({ policy: { riskLevel: 'critical', operationClasses: ['write', 'admin'] }, runtime: { timeoutMs: 5000, isolationMode: 'sandboxed' } });
  });

  it('reports every problem with its path', () => {
    const broken = {
      version: 2,
      tools: [
        { name: 'ok', description: 'fine', inputSchema: { type: 'object' }, http: { method: 'GET', path: '/ok' } },
        { name: 'ok', description: '', inputSchema: { type: 'array' }, http: { method: 'FETCH', path: 'relative' } },
        { name: 'x', description: 'no http', inputSchema: { type: 'object' } },
        { name: 'y', description: 'key on GET', inputSchema: { type: 'object' }, http: { method: 'get', path: '/y', body_key: 'data' } },
      ],
      auth: { type: 'oauth' },
    };
    expect(() => parseClawDescriptor(broken, 'svc.json')).toThrow(
      'Invalid claw.describe descriptor svc.json: ' +
        'tools[1].description: is required; ' +
        'tools[1].inputSchema.type: must be "object"; ' +
        'tools[1].http.method: Invalid option: expected one of "GET"|"POST"|"PUT"|"PATCH"|"DELETE"; ' +
        "tools[1].http.path: must start with '/'; " +
        'auth.type: Invalid option: expected one of "bearer"|"header"|"none".',
    );
    const structural = { ...broken, tools: [broken.tools[0], { ...broken.tools[0] }, broken.tools[2], broken.tools[3]], auth: undefined };
    expect(() => parseClawDescriptor(structural, 'svc.json')).toThrow(
      'Invalid claw.describe descriptor svc.json: tools[1].name: duplicates the tool name "ok"; tools[2].http: is required; tools[3].http.body_key: needs POST, PUT or PATCH.',
    );
    expect(() => parseClawDescriptor({ version: 1, tools: [broken.tools[0]] }, 'v1.json')).toThrow(/tools: needs descriptor version 2/);
    expect(() => parseClawDescriptor({ version: 3 }, 'v3.json')).toThrow(/version: must be 1 or 2/);
  });

  it('leaves tools of an MCP-speaking service to the MCP connection', () => {
    const descriptor = parseClawDescriptor(
      { version: 2, mcp: { transport: 'streamable_http', path: '/mcp' }, tools: [{ name: 'search', description: 'Search the web.', inputSchema: { type: 'object' } }] },
      'perplexity.json',
    );
    expect(httpToolEntries(descriptor, { service: 'perplexity', baseUrl: 'http://perplexity:8080' })).toEqual([]);
  });

  it('says clearly when a file is missing or not JSON', async () => {
    await expect(loadClawDescriptor('/nonexistent/claw-describe.json')).rejects.toMatchObject({ code: 'NotFound', message: expect.stringContaining('/nonexistent/claw-describe.json') });
    const dir = mkdtempSync(join(tmpdir(), 'claw-describe-'));
    writeFileSync(join(dir, 'bad.json'), '{ version: 2');
    await expect(loadClawDescriptor(join(dir, 'bad.json'))).rejects.toMatchObject({ code: 'InvalidInput', message: expect.stringMatching(/bad\.json: not JSON/) });
  });

  describe('over HTTP', () => {
    let base = '';
    let endlessClosed = false;
    const server = createServer((req, res) => {
      if (req.url === '/endless.json') {
        // A server that never stops sending: the reader must stop at the limit and hang up.
        res.setHeader('content-type', 'application/json');
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        res.once('close', () => (endlessClosed = true));
        pump();
      } else if (req.url === '/.claw-describe.json') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ version: 2, tools: [{ name: 'ping', description: 'Ping.', inputSchema: { type: 'object' }, http: { method: 'GET', path: '/ping' } }] }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('fetches a descriptor by URL and reports its origin as the default base URL', async () => {
      const loaded = await loadClawDescriptor(`${base}/.claw-describe.json`);
      expect(loaded.origin).toBe(base);
      expect(loaded.descriptor.tools?.[0]?.name).toBe('ping');
      await expect(loadClawDescriptor(`${base}/missing.json`)).rejects.toMatchObject({ code: 'NotFound', message: expect.stringContaining('HTTP 404') });
    });

    it('stops reading a descriptor that never ends at the limit, and hangs up', async () => {
      await expect(loadClawDescriptor(`${base}/endless.json`)).rejects.toMatchObject({
        code: 'InvalidInput',
        message: `${base}/endless.json is larger than the 1 MiB a claw.describe descriptor may have.`,
      });
      await expect.poll(() => endlessClosed).toBe(true);
    });
  });

  it('reads a descriptor file with the same limit (a device that never ends included)', { skip: process.platform === 'win32' }, async () => {
    await expect(loadClawDescriptor('/dev/zero')).rejects.toMatchObject({ code: 'InvalidInput', message: '/dev/zero is larger than the 1 MiB a claw.describe descriptor may have.' });
  });
});
