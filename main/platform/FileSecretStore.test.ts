import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSecretStore } from './FileSecretStore';

describe('FileSecretStore', () => {
  it('round-trips secrets across instances and never writes them in plaintext', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-secrets-'));
    const store = new FileSecretStore(dir);
    await store.set('mcp:github/token', 'ghp_supersecretvalue');
    await store.set('a2a:bot/apikey', 'k-123');
    await store.delete('a2a:bot/apikey');

    const reopened = new FileSecretStore(dir);
    expect(await reopened.get('mcp:github/token')).toBe('ghp_supersecretvalue');
    expect(await reopened.get('a2a:bot/apikey')).toBeUndefined();
    expect(await reopened.keys()).toEqual(['mcp:github/token']);

    for (const file of readdirSync(dir)) {
      expect(readFileSync(join(dir, file), 'utf8')).not.toContain('supersecret');
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    }
  });

  it('two stores that make the key at the same moment (the CLI beside a console) end up with one key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-secrets-'));
    const stores = Array.from({ length: 5 }, () => new FileSecretStore(dir));
    // Each store serializes only its own writes, so the last sealed file wins; what matters is that
    // whichever wins was sealed with the key that is on disk.
    await Promise.all(stores.map((store, n) => store.set(`k${n}`, `v${n}`)));
    const survivor = await new FileSecretStore(dir).keys();
    expect(survivor).toHaveLength(1);
    expect(await new FileSecretStore(dir).get(survivor[0]!)).toBe(`v${survivor[0]!.slice(1)}`);
    expect(readdirSync(dir).sort()).toEqual(['secrets.key', 'secrets.sealed']);
  });

  it('refuses to open a sealed file with a different key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-secrets-'));
    await new FileSecretStore(dir).set('k', 'v');
    const other = mkdtempSync(join(tmpdir(), 'tooldeck-secrets-'));
    const { copyFileSync } = await import('node:fs');
    copyFileSync(join(dir, 'secrets.sealed'), join(other, 'secrets.sealed'));
    await new FileSecretStore(other).keys().catch(() => undefined);
    await expect(new FileSecretStore(other).get('k')).rejects.toThrow();
  });
});
