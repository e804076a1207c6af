import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

  it('imports Clawdapus cllama’s providers.json (v1 and v2 key pools): keys sealed, Anthropic’s /v1 dropped, a bad entry skipped with its reason', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-providers-'));
    const v1 = join(dataDir, 'v1.json');
    writeFileSync(v1, JSON.stringify({ providers: { anthropic: { base_url: 'https://api.anthropic.com/v1', api_key: KEY, auth: 'x-api-key' }, ollama: { base_url: 'http://ollama:11434/v1', auth: 'none' }, gemini: { base_url: 'https://g.example/v1', api_format: 'gemini' } } }));
    const imported = await runTooldeck(dataDir, ['providers', 'import', v1]);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('Skipped gemini: its api_format "gemini" is neither openai nor anthropic');
    const v2 = join(dataDir, 'v2.json');
    writeFileSync(v2, JSON.stringify({ version: 2, providers: { openrouter: { base_url: 'https://openrouter.ai/api/v1', auth: 'bearer', api_format: 'openai', active_key_id: 'k2', keys: [{ id: 'k1', secret: 'sk-other' }, { id: 'k2', secret: KEY }] } } }));
    expect((await runTooldeck(dataDir, ['providers', 'import', v2])).code).toBe(0);
    const listed = JSON.parse((await runTooldeck(dataDir, ['providers', 'list', '--json'])).stdout) as unknown[];
    expect(listed).toEqual([
      { name: 'anthropic', format: 'anthropic', baseUrl: 'https://api.anthropic.com', hasKey: true },
      { name: 'ollama', format: 'openai', baseUrl: 'http://ollama:11434/v1', hasKey: false },
      { name: 'openrouter', format: 'openai', baseUrl: 'https://openrouter.ai/api/v1', hasKey: true },
    ]);
    for (const file of filesUnder(dataDir).filter((path) => !path.endsWith('v1.json') && !path.endsWith('v2.json'))) expect(readFileSync(file).includes(KEY)).toBe(false);
    writeFileSync(v1, '{"providers": 3}');
    const bad = await runTooldeck(dataDir, ['providers', 'import', v1]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/^The providers file is not cllama's providers.json: providers: /)]);
  });
});
