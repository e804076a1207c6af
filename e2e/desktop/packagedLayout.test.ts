import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPackage, statFile } from '@electron/asar';
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { Arch, build, Platform, type Configuration } from 'electron-builder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedPlaceholderContext } from '../../app/electron/shippedRuntime';
import { createCore, type Core } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import pkg from '../../package.json' with { type: 'json' };
import { nodeBinaryPath, projectRoot, SHIPPED_MODULES, stageDesktopResources } from '../../scripts/desktopResources.mjs';
import { desktopBuildOverrides } from '../../scripts/packageDesktop.mjs';
import { createFakeElectronDist } from './FakeElectronDist';
import { operatorCaller } from '../../shared/caller';

// electron-builder packages the app here for real (Linux, `dir` target) around a stand-in for the
// Electron binary; what a user installs is this folder plus the binary.
const release = mkdtempSync(join(tmpdir(), 'tooldeck-release-'));
const appDir = join(release, 'linux-unpacked');
const resources = join(appDir, 'resources');
const asarPath = join(resources, 'app.asar');

/** Packages only the renderer bundle uses: they must never reach the asar. */
const RENDERER_ONLY = ['monaco-editor', 'monaco-yaml', '@monaco-editor/react', '@mantine/core', '@mantine/hooks', '@tabler/icons-react', 'recharts', '@rjsf/core', '@rjsf/mantine', 'react', 'react-dom', '@tanstack/react-query', '@trpc/client', 'dayjs', 'typescript', 'prettier', 'electron'];

function packagesIn(paths: string[]): Set<string> {
  const names = new Set<string>();
  for (const path of paths) {
    const parts = path.split(/[\\/]/).filter(Boolean);
    for (let i = 0; i < parts.length - 1; i++) {
      if (parts[i] !== 'node_modules') continue;
      const name = parts[i + 1]!.startsWith('@') ? `${parts[i + 1]}/${parts[i + 2] ?? ''}` : parts[i + 1]!;
      if (!name.endsWith('/')) names.add(name);
    }
  }
  return names;
}

/** The packages a built file imports by bare name (node: built-ins and electron excluded). */
function bareImports(source: string): string[] {
  // `from` as ES syntax writes it (after a space, `}` or `*`), not inside a string such as docker's "--volumes-from".
  const specifiers = [...source.matchAll(/(?:(?:^|[\s}*])from\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)["']([^"'./][^"']*)["']/gm)].map((m) => m[1]!);
  return specifiers.filter((s) => !s.startsWith('node:') && s !== 'electron').map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
}

let asarEntries: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(projectRoot, 'out/main/index.js')) || !existsSync(join(projectRoot, 'out/renderer/index.html'))) {
    const built = spawnSync(process.execPath, [join(projectRoot, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: projectRoot, stdio: 'inherit' });
    expect(built.status).toBe(0);
  }
  // The project's own Node 22 stands for the one a release ships (same version, this machine's build).
  await stageDesktopResources({ nodeBinary: join(projectRoot, 'node_modules/node/bin/node') });
  await build({
    projectDir: projectRoot,
    targets: Platform.LINUX.createTarget('dir', Arch.x64),
    config: { ...(desktopBuildOverrides({}) as Configuration), electronDist: createFakeElectronDist(pkg.devDependencies.electron.replace(/^\^/, '')), directories: { output: release } },
    publish: 'never',
  });
  asarEntries = listPackage(asarPath, { isPack: false });
}, 240_000);

// The packaged folder holds a Node.js binary and the asar: a few hundred MB per run.
afterAll(() => rmSync(release, { recursive: true, force: true }));

describe('the packaged app', () => {
  it('holds the built app in its asar: main, preload, renderer and package.json; no sources, maps or staged resources', () => {
    for (const file of ['/out/main/index.js', '/out/preload/preload.cjs', '/out/renderer/index.html', '/package.json']) expect(asarEntries).toContain(file);
    expect(asarEntries.filter((e) => /\.(tsx?|map)$/.test(e) && !e.includes('/node_modules/'))).toEqual([]);
    expect(asarEntries.filter((e) => e.startsWith('/out/desktop-resources'))).toEqual([]);
    // Nothing is unpacked: what other processes run lives in resources/, outside the asar.
    expect(existsSync(`${asarPath}.unpacked`)).toBe(false);
  });

  it('ships only the packages the main and preload bundles import (and theirs), none of the renderer’s', () => {
    const shipped = packagesIn(asarEntries);
    for (const name of RENDERER_ONLY) expect(shipped, `${name} is in the asar`).not.toContain(name);
    const builtFiles = readdirSync(join(projectRoot, 'out/main'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .map((file) => join(projectRoot, 'out/main', file))
      .concat(join(projectRoot, 'out/preload/preload.cjs'));
    const imported = new Set(builtFiles.flatMap((file) => bareImports(readFileSync(file, 'utf8'))));
    const missing = [...imported].filter((name) => !shipped.has(name));
    expect(missing, 'imported by the main bundle but not in the asar').toEqual([]);
    // Every direct production dependency is imported by the built main process (nothing dead ships).
    const unused = Object.keys(pkg.dependencies).filter((name) => !imported.has(name) && name !== '@opentelemetry/api');
    expect(unused, 'production dependencies the main bundle never imports').toEqual([]);
    const bytes = asarEntries.reduce((sum, entry) => {
      const stat = statFile(asarPath, entry.slice(1), false) as { size?: number };
      return sum + (stat.size ?? 0);
    }, 0);
    console.log(`asar: ${asarEntries.length} entries, ${(bytes / 1e6).toFixed(1)} MB, ${shipped.size} packages; file ${(statSync(asarPath).size / 1e6).toFixed(1)} MB`);
  });

  it('lays out the shipped Node.js, the bundled servers and the example workspace outside the asar', () => {
    const node = nodeBinaryPath(resources, 'linux');
    expect(node).toBe(shippedPlaceholderContext(resources, 'linux').node);
    accessSync(node, constants.X_OK);
    for (const { specifier } of SHIPPED_MODULES) expect(shippedPlaceholderContext(resources, 'linux').resolveModule(specifier)).toBe(join(resources, 'modules', ...specifier.split('/')));
    expect(existsSync(join(resources, 'modules/@modelcontextprotocol/server-everything/docs/instructions.md'))).toBe(true);
    expect(readdirSync(join(resources, 'examples/workspace'))).toContain('everything.yaml');
    expect(() => shippedPlaceholderContext(resources, 'linux').resolveModule('left-pad/index.js')).toThrow(/not one of the servers shipped/);
    expect(() => shippedPlaceholderContext(resources, 'linux').resolveModule('../../app.asar')).toThrow(/not one of the servers shipped/);
  });

  it('burns the hardening fuses into the binary', async () => {
    const wire = await getCurrentFuseWire(join(appDir, 'tooldeck'));
    const on = (fuse: FuseV1Options) => wire[fuse] === 49;
    expect(on(FuseV1Options.RunAsNode)).toBe(false);
    expect(on(FuseV1Options.EnableNodeOptionsEnvironmentVariable)).toBe(false);
    expect(on(FuseV1Options.EnableNodeCliInspectArguments)).toBe(false);
    expect(on(FuseV1Options.GrantFileProtocolExtraPrivileges)).toBe(false);
    expect(on(FuseV1Options.EnableCookieEncryption)).toBe(true);
    expect(on(FuseV1Options.EnableEmbeddedAsarIntegrityValidation)).toBe(true);
    expect(on(FuseV1Options.OnlyLoadAppFromAsar)).toBe(true);
  });

  describe('first launch from this layout, with no node on PATH', () => {
    let core: Core;
    const savedPath = process.env.PATH;
    const savedResources = (process as { resourcesPath?: string }).resourcesPath;

    beforeAll(async () => {
      // What Electron sets in a packaged app: the example workspace is found there.
      (process as { resourcesPath?: string }).resourcesPath = resources;
      process.env.PATH = mkdtempSync(join(tmpdir(), 'tooldeck-empty-path-'));
      core = await createCore({
        appVersion: pkg.version,
        host: 'electron',
        dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-first-launch-')),
        secretStore: new MemorySecretStore(),
        logger: silentLogger,
        autoConnect: true,
        placeholders: shippedPlaceholderContext(resources),
      });
    });

    afterAll(async () => {
      await core?.close();
      process.env.PATH = savedPath;
      (process as { resourcesPath?: string }).resourcesPath = savedResources;
    });

    it('connects the example server through the shipped Node and calls its tools', async () => {
      const readyState = () => core.mcp.list().find((s) => s.config.name === 'everything')?.state;
      const ready = () => { const state = readyState(); return state?.status === 'ready' && !state.listing; };
      await new Promise<void>((resolve) => {
        if (ready()) return resolve();
        const stop = core.mcp.onChange(() => ready() && (stop(), resolve()));
      });
      const server = core.mcp.get('everything');
      expect(server.config).toMatchObject({ transport: 'stdio', command: nodeBinaryPath(resources) });
      expect(server.serverInfo?.name).toBe('mcp-servers/everything');
      // The docs it reads from disk were shipped beside the bundle.
      expect(server.instructions).toMatch(/Server Instructions/);
      const call = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:everything.get-sum', arguments: { a: 2, b: 3 } });
      expect(call.record).toMatchObject({ status: 'ok' });
      expect(JSON.stringify(call.result)).toContain('The sum of 2 and 3 is 5');
    });
  });
});
