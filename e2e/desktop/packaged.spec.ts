import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { FuseV1Options, FuseVersion, flipFuses, getCurrentFuseWire } from '@electron/fuses';
import { _electron as electron, expect, test, type Page } from '@playwright/test';

// The packaged app as a user installs it (TOOLDECK_PACKAGED_APP: its executable, e.g.
// release/linux-unpacked/tooldeck, release/mac-arm64/Tooldeck.app/Contents/MacOS/Tooldeck,
// release/win-unpacked/Tooldeck.exe). Run by .github/workflows/desktop.yml on each platform.
const packaged = process.env.TOOLDECK_PACKAGED_APP ? resolve(process.env.TOOLDECK_PACKAGED_APP) : undefined;
const ON = 49;
const OFF = 48;

/** The folder that is the installed app: the .app bundle on macOS, the unpacked folder elsewhere. */
function appRoot(executable: string): string {
  const bundle = executable.match(/^(.*?\.app)(\/|$)/);
  return bundle ? bundle[1]! : dirname(executable);
}

/**
 * Playwright drives Electron's main process through Node's inspector, which the release build's
 * EnableNodeCliInspectArguments fuse switches off. The test runs a copy of the app that differs
 * in that one fuse (re-signed ad hoc on macOS); the release binary's own fuses are read first.
 */
async function inspectableCopy(executable: string): Promise<string> {
  const root = appRoot(executable);
  const copyRoot = join(mkdtempSync(join(tmpdir(), 'tooldeck-packaged-')), root.split(/[\\/]/).pop()!);
  cpSync(root, copyRoot, { recursive: true, verbatimSymlinks: true });
  const copy = join(copyRoot, executable.slice(root.length));
  await flipFuses(copy, { version: FuseVersion.V1, [FuseV1Options.EnableNodeCliInspectArguments]: true, resetAdHocDarwinSignature: process.platform === 'darwin' });
  return copy;
}

/** A PATH whose only `node` fails loudly, so a server started with `node` from PATH could not run. */
function pathWithBrokenNode(): string {
  const bin = mkdtempSync(join(tmpdir(), 'tooldeck-path-'));
  if (process.platform === 'win32') {
    writeFileSync(join(bin, 'node.cmd'), '@echo node from PATH was used 1>&2\r\n@exit /b 97\r\n');
    return [bin, join(process.env.SystemRoot ?? 'C:\\Windows', 'System32')].join(';');
  }
  writeFileSync(join(bin, 'node'), '#!/bin/sh\necho "node from PATH was used" >&2\nexit 97\n');
  chmodSync(join(bin, 'node'), 0o755);
  return [bin, '/usr/bin', '/bin'].join(':');
}

function bridgeCall<T>(page: Page, type: 'query' | 'mutation', path: string, input?: unknown): Promise<T> {
  return page.evaluate(
    async ([type, path, input]) => {
      const result = await (globalThis as unknown as { tooldeckBridge: { call(m: unknown): Promise<{ ok: boolean; data?: unknown; error?: unknown }> } }).tooldeckBridge.call({ type, path, input });
      if (!result.ok) throw new Error(JSON.stringify(result.error));
      return result.data as T;
    },
    [type, path, input] as const,
  );
}

test.skip(!packaged, 'set TOOLDECK_PACKAGED_APP to a packaged Tooldeck executable');

test('the installed app: hardened fuses, first launch runs the bundled example server, a tool call, a deep link to a running instance, a clean quit', async () => {
  const executable = packaged!;
  const wire = await getCurrentFuseWire(executable);
  expect(wire[FuseV1Options.RunAsNode]).toBe(OFF);
  expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(OFF);
  expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(OFF);
  expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(ON);
  expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(ON);
  expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(ON);

  const copy = await inspectableCopy(executable);
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-data-'));
  const home = mkdtempSync(join(tmpdir(), 'tooldeck-home-'));
  mkdirSync(join(home, '.config'), { recursive: true });
  const env = { ...process.env, HOME: home, SHELL: '/bin/sh', PATH: pathWithBrokenNode(), TOOLDECK_DATA_DIR: dataDir };
  const args = process.platform === 'linux' ? ['--no-sandbox'] : [];
  const app = await electron.launch({ executablePath: copy, args, env });
  try {
    const page = await app.firstWindow();
    // The starting page first, then the app once the core is up.
    await expect(page).toHaveURL(/^app:\/\/tooldeck\/(?!__starting)/, { timeout: 60_000 });
    await expect(page.getByRole('navigation', { name: 'Sections' })).toBeVisible();

    // The example workspace's server, run by the Node.js inside the app, never the `node` on PATH.
    await expect.poll(async () => (await bridgeCall<{ state: { status: string } }>(page, 'query', 'mcp.get', { name: 'everything' })).state.status, { timeout: 60_000 }).toBe('ready');
    const server = await bridgeCall<{ config: { command: string }; pid?: number }>(page, 'query', 'mcp.get', { name: 'everything' });
    // Real paths: temp folders are reached through symlinks (macOS) or short names (Windows).
    expect(realpathSync.native(server.config.command).startsWith(realpathSync.native(appRoot(copy)))).toBe(true);
    const saved = JSON.parse(readFileSync(join(dataDir, 'servers.json'), 'utf8')) as { servers: Array<{ name: string; command: string }> };
    expect(saved.servers.find((s) => s.name === 'everything')?.command).toBe(server.config.command);

    // A call through the UI.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Tools', exact: true }).click();
    await page.getByRole('textbox', { name: 'Search tools' }).fill('echo');
    await page.getByRole('option', { name: 'mcp:everything.echo' }).click();
    await page.getByRole('textbox', { name: /message/i }).fill('Hello from the installed app');
    await page.getByRole('button', { name: 'Invoke' }).click();
    await expect(page.getByRole('region', { name: 'Result' })).toContainText('Echo: Hello from the installed app');

    // A second launch with a deep link hands it to this instance and exits.
    const second = spawn(copy, [...args, 'tooldeck://server/everything'], { env, stdio: 'ignore' });
    expect(await new Promise((done) => second.on('exit', done))).toBe(0);
    await expect(page).toHaveURL(/\/servers\?server=everything/);

    // Quitting waits for the core: the server's process ends with the app.
    const pid = server.pid;
    await app.close();
    if (pid) {
      await expect
        .poll(() => {
          try {
            process.kill(pid, 0);
            return 'running';
          } catch {
            return 'gone';
          }
        })
        .toBe('gone');
    }
    expect(readFileSync(join(dataDir, 'logs', 'main.log'), 'utf8')).toMatch(/"message":"quit","core":"closed"/);
  } finally {
    await app.close().catch(() => undefined);
  }
});
