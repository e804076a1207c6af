import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandLineSecretStore } from '../cli/CommandLineSecretStore';
import { DesktopSecretStore } from './DesktopSecretStore';
import { FakeElectron } from './testing/FakeElectron';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
}

async function readyFake(storageBackend?: string) {
  const fake = new FakeElectron({ userData: mkdtempSync(join(tmpdir(), 'tooldeck-secrets-ud-')), storageBackend });
  await fake.emitReady();
  return fake;
}

describe('secrets shared by the desktop app and the CLI', () => {
  it('seals app secrets with the keychain; the CLI says they need the app; a value saved by the CLI then wins everywhere', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-secrets-'));
    const app = new DesktopSecretStore((await readyFake()).safeStorage, dataDir, 'linux');
    const cli = new CommandLineSecretStore(dataDir);
    await app.set('mcp:github:bearer', 'ghp_from_the_app');
    expect(await app.get('mcp:github:bearer')).toBe('ghp_from_the_app');
    expect(filesUnder(dataDir).join('\n')).not.toContain('ghp_from_the_app');
    await expect(cli.get('mcp:github:bearer')).rejects.toMatchObject({ code: 'Unauthorized', message: expect.stringMatching(/saved by the Tooldeck desktop app and is sealed with the OS keychain.*Use the app, or save the secret again from the command line/) });

    await cli.set('mcp:github:bearer', 'ghp_from_the_cli');
    expect(await cli.get('mcp:github:bearer')).toBe('ghp_from_the_cli');
    expect(await app.get('mcp:github:bearer')).toBe('ghp_from_the_cli');
    expect(await app.keys()).toEqual(['mcp:github:bearer']);

    await app.set('mcp:github:bearer', 'ghp_again_from_the_app');
    await expect(cli.get('mcp:github:bearer')).rejects.toMatchObject({ code: 'Unauthorized' });
    await app.delete('mcp:github:bearer');
    expect(await app.get('mcp:github:bearer')).toBeUndefined();
    expect(await cli.get('mcp:github:bearer')).toBeUndefined();
  });

  it('uses the CLI’s sealed file on Linux without a keyring, where safeStorage’s password is public', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-secrets-basic-'));
    const app = new DesktopSecretStore((await readyFake('basic_text')).safeStorage, dataDir, 'linux');
    expect(await app.keychainUsable()).toBe(false);
    await app.set('a2a:agent:api-key', 'sk-shared');
    expect(await new CommandLineSecretStore(dataDir).get('a2a:agent:api-key')).toBe('sk-shared');
    expect(filesUnder(dataDir).join('\n')).not.toContain('sk-shared');
  });

  it('touches safeStorage only when a secret is used, so it can be built before the app is ready', async () => {
    const fake = new FakeElectron({ userData: mkdtempSync(join(tmpdir(), 'tooldeck-secrets-early-')) });
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-secrets-early-data-'));
    const app = new DesktopSecretStore(fake.safeStorage, dataDir, 'darwin');
    expect(await app.keys()).toEqual([]);
    expect(await app.get('nothing-saved')).toBeUndefined();
    await expect(app.set('k', 'v')).rejects.toThrow(/before the app is ready/);
    await fake.emitReady();
    await app.set('k', 'v');
    expect(await app.get('k')).toBe('v');
  });
});
