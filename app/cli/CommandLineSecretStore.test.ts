import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { everythingScript } from '../../e2e/peers/mcp/everything';
import { keychainSealedFile } from '../common/secretFiles';
import { DesktopSecretStore } from '../electron/DesktopSecretStore';
import { FakeElectron } from '../electron/testing/FakeElectron';
import { runTooldeck } from './testing/runTooldeck';

async function tooldeck(dataDir: string, ...argv: string[]) {
  return runTooldeck(dataDir, argv);
}

it('a command that needs a secret the desktop app sealed says it needs the app; removing the server still works', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-cli-sealed-'));
  const added = await tooldeck(dataDir, 'mcp', 'add', 'everything', '--stdio', `"${process.execPath}" "${everythingScript}" stdio`, '--env', 'API_TOKEN=from-the-cli', '--no-connect');
  expect(added.code, added.stderr).toBe(0);
  expect((await tooldeck(dataDir, 'mcp', 'call', 'echo', '--args', '{"message":"hi"}', 'everything')).stdout).toContain('Echo: hi');

  // The same secret saved again in the desktop app: sealed with the keychain, gone from the CLI's file.
  const electron = new FakeElectron({ userData: mkdtempSync(join(tmpdir(), 'tooldeck-cli-sealed-ud-')) });
  await electron.emitReady();
  await new DesktopSecretStore(electron.safeStorage, dataDir, 'darwin').set('mcp:everything:env:API_TOKEN', 'from-the-app');

  const call = await tooldeck(dataDir, 'mcp', 'call', 'echo', '--args', '{"message":"hi"}', 'everything');
  expect(call.code).toBe(3);
  expect(call.stderr).toMatch(/"mcp:everything:env:API_TOKEN" was saved by the Tooldeck desktop app and is sealed with the OS keychain, which only the app can open/);
  expect(call.stderr).not.toContain('from-the-app');

  expect((await tooldeck(dataDir, 'mcp', 'remove', 'everything')).code).toBe(0);
  expect(JSON.parse(readFileSync(keychainSealedFile(dataDir), 'utf8'))).toEqual({});
});
