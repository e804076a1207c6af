import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEverythingHttp, type RunningPeer } from '../../../e2e/peers/mcp/everything';
import { silentLogger } from '../../platform/Logger';
import { MemorySecretStore } from '../../platform/SecretStore';
import { McpService } from '../McpService';

/** The real in-memory store, counting its reads: the desktop and CLI stores read files (or the OS keychain) on each. */
class ReadCountingSecretStore extends MemorySecretStore {
  reads = 0;
  override async get(key: string) {
    this.reads++;
    return super.get(key);
  }
}

let everything: RunningPeer;
const secrets = new ReadCountingSecretStore();
const service = new McpService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-secret-reads-')), secretStore: secrets, logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' } });

beforeAll(async () => {
  everything = await startEverythingHttp('streamableHttp');
  await service.init();
  await service.save({ config: { name: 'everything', transport: 'http', url: everything.url } as never });
}, 60_000);

afterAll(async () => {
  await service.close();
  await everything?.close();
});

it('calls to an HTTP server without OAuth read no secret per request', async () => {
  const connection = service.requireConnection('everything');
  const before = secrets.reads;
  for (let i = 0; i < 20; i++) await connection.callTool('echo', { message: `call ${i}` }, { backstopMs: 30_000 });
  expect(secrets.reads - before).toBe(0);
});
