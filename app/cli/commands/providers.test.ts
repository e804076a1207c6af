import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTooldeck } from '../testing/runTooldeck';

const KEY = 'sk-provider-secret-0123456789';

/** Every file under `dir`, for a look at what the data dir holds. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('tooldeck providers', () => {
  afterEach(() => {
    delete process.env.TOOLDECK_TEST_PROVIDER_KEY;
  });

  it('adds a provider with its key from the environment, lists it without the key, and removes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-providers-'));
    process.env.TOOLDECK_TEST_PROVIDER_KEY = KEY;
    const added = await runTooldeck(dataDir, ['providers', 'add', 'openai', '--format', 'openai', '--base-url', 'https://api.openai.com/v1/', '--api-key-env', 'TOOLDECK_TEST_PROVIDER_KEY']);
    expect([added.code, added.stdout]).toEqual([0, 'Saved provider openai (openai, https://api.openai.com/v1, key in the secret store)\n']);
    const listed = await runTooldeck(dataDir, ['providers', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([{ name: 'openai', format: 'openai', baseUrl: 'https://api.openai.com/v1', hasKey: true }]);
    expect(listed.stdout).not.toContain(KEY);
    // Never in plaintext in the data dir.
    for (const file of filesUnder(dataDir)) expect(readFileSync(file).includes(KEY)).toBe(false);
    expect((await runTooldeck(dataDir, ['providers', 'remove', 'openai'])).code).toBe(0);
    expect((await runTooldeck(dataDir, ['providers', 'remove', 'openai'])).code).toBe(1);
  });

  it('refuses a bad name, a base URL that is not http(s), and an empty key variable, with one sentence and exit 2', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-providers-'));
    const badName = await runTooldeck(dataDir, ['providers', 'add', 'Bad Name', '--format', 'openai', '--base-url', 'https://x.example/v1']);
    expect(badName.code).toBe(2);
    const badUrl = await runTooldeck(dataDir, ['providers', 'add', 'p', '--format', 'anthropic', '--base-url', 'file:///etc/passwd']);
    expect(badUrl.code).toBe(2);
    const noKey = await runTooldeck(dataDir, ['providers', 'add', 'p', '--format', 'openai', '--base-url', 'https://x.example/v1', '--api-key-env', 'TOOLDECK_TEST_PROVIDER_KEY']);
    expect([noKey.code, noKey.stderr.trim()]).toEqual([2, '--api-key-env: environment variable TOOLDECK_TEST_PROVIDER_KEY is empty or not set']);
  });
});
