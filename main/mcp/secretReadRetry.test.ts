import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { AppError } from '../../shared/errors';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { McpService } from './McpService';

/** A store whose reads fail until `unlock()`, as an OS keychain does before the user unlocks it. */
class LockedSecretStoreForTests extends MemorySecretStore {
  locked = true;
  failedReads = 0;
  override async get(key: string) {
    if (this.locked) {
      this.failedReads++;
      throw new Error('the keychain is locked');
    }
    return super.get(key);
  }
}

const secrets = new LockedSecretStoreForTests();
const service = new McpService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-secret-retry-')), secretStore: secrets, logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' }, reconnect: { baseMs: 20, maxMs: 100 } });
afterAll(() => service.close());

it('a connect whose secrets cannot be read yet is retried like any other failed connect', async () => {
  await service.init();
  secrets.locked = false;
  await service.save({ config: { ...(everythingStdio() as object), name: 'everything', secretEnv: ['API_TOKEN'] } as never, secretEnvValues: { API_TOKEN: 'not-in-any-log' } });
  await service.disconnect('everything');
  secrets.locked = true;
  await expect(service.connect('everything')).rejects.toMatchObject({ code: 'ConnectionFailed', step: 'auth', message: /Could not read the secrets of "everything": the keychain is locked/, retryable: true });
  await expect.poll(() => secrets.failedReads).toBeGreaterThan(1);
  secrets.locked = false;
  await expect.poll(() => service.get('everything').state.status, { timeout: 20_000 }).toBe('ready');
});

it('a store that says a secret is final (only another app can open it) is not retried', async () => {
  await service.disconnect('everything');
  const before = secrets.failedReads;
  secrets.get = async () => {
    secrets.failedReads++;
    throw new AppError('Unauthorized', 'sealed by the desktop app', { retryable: false });
  };
  await expect(service.connect('everything')).rejects.toMatchObject({ code: 'ConnectionFailed', step: 'auth', message: 'sealed by the desktop app', retryable: false });
  // No retry was scheduled: the count stays where the one attempt left it.
  expect(secrets.failedReads).toBe(before + 1);
  expect(service.get('everything').state.nextRetryAt).toBeUndefined();
});
