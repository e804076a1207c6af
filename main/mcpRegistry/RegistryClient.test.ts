import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry } from '../../e2e/mcp-registry/registry.mjs';
import { isAppError } from '../../shared/errors';
import { RegistryClient } from './RegistryClient';
import { everythingEntry, remoteEntry, SCHEMA, timeEntry } from './testing/registrySeed';

let registry: Awaited<ReturnType<typeof startRegistry>>;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-registry-client-'));
  // The official registry server, built from its Go module, on a private PostgreSQL.
  registry = await startRegistry({ seed: [everythingEntry('2026.1.26'), everythingEntry('2026.8.31'), timeEntry, remoteEntry] });
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('RegistryClient against the official registry server', () => {
  it('pages through the latest versions with the cursor', async () => {
    const client = new RegistryClient({ dataDir });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.search(registry.url, { limit: 1, cursor });
      expect(page).toMatchObject({ offline: false, skipped: 0, registry: registry.url });
      names.push(...page.servers.map((entry) => `${entry.server.name}@${entry.server.version}`));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(names.sort()).toEqual(['com.example.mcp/tenant-tools@3.1.0', 'io.github.modelcontextprotocol/everything@2026.8.31', 'io.github.modelcontextprotocol/time@2026.10.19']);
  });

  it('searches by name, lists versions and reads one', async () => {
    const client = new RegistryClient({ dataDir });
    const found = await client.search(registry.url, { search: 'time' });
    expect(found.servers.map((entry) => entry.server.name)).toEqual(['io.github.modelcontextprotocol/time']);
    expect(found.servers[0]!.meta).toMatchObject({ status: 'active', isLatest: true });
    const versions = await client.versions(registry.url, 'io.github.modelcontextprotocol/everything');
    expect(versions.versions.map((entry) => entry.server.version).sort()).toEqual(['2026.1.26', '2026.8.31']);
    const old = await client.version(registry.url, 'io.github.modelcontextprotocol/everything', '2026.1.26');
    expect(old.entry.server.packages?.[0]).toMatchObject({ registryType: 'npm', version: '2026.1.26' });
    const missing = await client.version(registry.url, 'io.github.nobody/none').catch((error: unknown) => error);
    expect(isAppError(missing) && missing.code).toBe('NotFound');
  });
});

describe('RegistryClient against a hand-written hostile registry', () => {
  let hostile: Server;
  let hostileUrl: string;
  beforeAll(async () => {
    const valid = { server: { $schema: SCHEMA, name: 'com.example/ok', description: 'fine', version: '1.0.0' }, _meta: {} };
    hostile = createServer((request, response) => {
      if (request.url!.startsWith('/v0.1/servers?')) {
        response.setHeader('content-type', 'application/json');
        return response.end(
          JSON.stringify({
            servers: [
              valid,
              { server: { name: 'com.example/huge', description: 'x'.repeat(100_000), version: '1.0.0' } },
              { server: { name: 'com.example/\u001b[2Jclear', description: 'control characters', version: '1.0.0' } },
              { server: { name: 'com.example/many', description: 'd', version: '1', packages: Array.from({ length: 1000 }, () => ({ registryType: 'npm', identifier: 'x', transport: { type: 'stdio' } })) } },
              'not even an object',
            ],
            metadata: { count: 5 },
          }),
        );
      }
      // An endless answer: cut off at the limit, never buffered whole.
      response.setHeader('content-type', 'application/json');
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (response.write(chunk));
      };
      response.on('drain', pump);
      response.write('{"servers":[');
      pump();
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://127.0.0.1:${(hostile.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    hostile.closeAllConnections();
    await new Promise((resolve) => hostile.close(resolve));
  });

  it('leaves out entries that break a bound and counts them, instead of failing the page', async () => {
    const page = await new RegistryClient({ dataDir }).search(hostileUrl, {});
    expect(page.servers.map((entry) => entry.server.name)).toEqual(['com.example/ok']);
    expect(page.skipped).toBe(4);
  });

  it('stops reading an answer past 4 MiB', async () => {
    const error = await new RegistryClient({ dataDir }).versions(hostileUrl, 'com.example/ok').catch((e: unknown) => e);
    expect(isAppError(error) && error.message).toMatch(/larger than the 4 MiB a registry response may have/);
  });
});

describe('RegistryClient offline', () => {
  it('answers from the cache, saying so, when the registry cannot be reached', async () => {
    const client = new RegistryClient({ dataDir });
    const online = await client.search(registry.url, { search: 'everything' });
    await registry.stop();
    const offline = await client.search(registry.url, { search: 'everything' });
    expect(offline).toMatchObject({ offline: true, fetchedAt: online.fetchedAt });
    expect(offline.reason).toBeTruthy();
    expect(offline.servers).toEqual(online.servers);
    const uncached = await client.search(registry.url, { search: 'never asked' }).catch((e: unknown) => e);
    expect(isAppError(uncached) && uncached.code === 'ConnectionFailed' && uncached.message).toMatch(/nothing is cached for this request/);
  });
});
