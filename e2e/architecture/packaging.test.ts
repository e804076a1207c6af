import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { mergeUpdateInfo } from '../../scripts/mergeUpdateInfo.mjs';
import { desktopBuildOverrides, releaseSummary } from '../../scripts/packageDesktop.mjs';

const builder = parse(readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8'));

interface WorkflowStep {
  name?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
}
interface WorkflowJob {
  'runs-on': string;
  if?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  strategy?: { matrix: { include: Array<{ os: string; platform: string; arch: string }> } };
  steps: WorkflowStep[];
}
const workflow = parse(readFileSync(new URL('../../.github/workflows/desktop.yml', import.meta.url), 'utf8')) as { permissions: Record<string, string>; jobs: Record<string, WorkflowJob> };

/**
 * Runner images GitHub has retired: a job asking for one waits for a runner that never comes, then
 * fails. macos-13 went on 2025-12-04, ubuntu-20.04 on 2025-04-15, windows-2019 on 2025-06-30,
 * macos-12 on 2024-12-03 (older ones long before).
 */
const RETIRED_RUNNERS = ['macos-10.15', 'macos-11', 'macos-12', 'macos-13', 'ubuntu-18.04', 'ubuntu-20.04', 'windows-2016', 'windows-2019'];

describe('packaging', () => {
  it('builds Tooldeck installers for every desktop platform; the update feed comes from the environment', () => {
    expect(builder).toMatchObject({ appId: 'dev.tooldeck.app', productName: 'Tooldeck', asar: true, publish: null });
    // The name Electron derives userData from: the same folder the CLI uses.
    expect(pkg.productName).toBe(builder.productName);
    expect(builder.linux.target).toEqual(['AppImage', 'deb']);
    // zip beside dmg: macOS updates are applied from the zip.
    expect(builder.mac.target).toEqual(['dmg', 'zip']);
    expect(builder.win.target).toEqual(['nsis']);
    expect(builder.protocols).toEqual([{ name: 'Tooldeck', schemes: ['tooldeck'] }]);
  });

  it('has an icon for every platform and the macOS entitlements in build/', () => {
    const build = new URL('../../build/', import.meta.url);
    const icns = readFileSync(new URL('icon.icns', build));
    expect(icns.subarray(0, 4).toString('latin1')).toBe('icns');
    const ico = readFileSync(new URL('icon.ico', build));
    expect(ico.readUInt16LE(2)).toBe(1);
    expect(ico.readUInt16LE(4)).toBeGreaterThanOrEqual(5);
    for (const size of [16, 32, 48, 64, 128, 256, 512, 1024]) {
      const png = readFileSync(new URL(`icons/${size}x${size}.png`, build));
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([size, size]);
    }
    for (const plist of [builder.mac.entitlements, builder.mac.entitlementsInherit]) {
      const text = readFileSync(new URL(`../../${plist}`, import.meta.url), 'utf8');
      expect(text).toContain('<key>com.apple.security.cs.allow-jit</key>');
    }
  });

  it('ships only the built app (a files allow-list)', () => {
    expect(builder.files).toContain('out/**/*');
    expect(builder.files.filter((f: string) => !f.startsWith('!'))).toEqual(['out/**/*', 'package.json']);
    expect(builder.files).toContain('!out/desktop-resources/**');
  });

  it('burns the hardening fuses, and re-signs unsigned arm64 macOS builds ad hoc after', () => {
    expect(builder.electronFuses).toMatchObject({
      resetAdHocDarwinSignature: true,
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
  });

  it('declares the tooldeck command and runs its scripts on the project Node 22', () => {
    expect(pkg.name).toBe('tooldeck');
    expect(pkg.bin.tooldeck).toBe('bin/tooldeck.js');
    expect(pkg.devDependencies.node).toMatch(/^\^?22\./);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
  });

  it('takes the update feed from the environment: a generic URL, else the GitHub repository, else none', () => {
    expect(desktopBuildOverrides({ TOOLDECK_UPDATE_URL: 'https://updates.example/tooldeck', GITHUB_REPOSITORY: 'acme/tooldeck' }).publish).toEqual([{ provider: 'generic', url: 'https://updates.example/tooldeck' }]);
    expect(desktopBuildOverrides({ GITHUB_REPOSITORY: 'acme/tooldeck' }).publish).toEqual([{ provider: 'github', owner: 'acme', repo: 'tooldeck', releaseType: 'release' }]);
    expect(desktopBuildOverrides({ GITHUB_REPOSITORY: 'not a repository' }).publish).toBeNull();
    expect(desktopBuildOverrides({}).publish).toBeNull();
    // Without credentials every release step says it is skipped and why.
    expect(releaseSummary(desktopBuildOverrides({}), {})).toEqual([
      'updates: none (set TOOLDECK_UPDATE_URL or GITHUB_REPOSITORY)',
      'macOS signing: none (ad-hoc signature reset after the fuses flip; set CSC_LINK)',
      'macOS notarization: skipped (needs signing and APPLE_* credentials)',
      'Windows signing: none (set WIN_CSC_LINK)',
    ]);
    const signed = { CSC_LINK: 'cert.p12', APPLE_API_KEY: 'k.p8', APPLE_API_KEY_ID: 'id', APPLE_API_ISSUER: 'issuer', WIN_CSC_LINK: 'w.pfx' };
    expect(releaseSummary(desktopBuildOverrides({}), signed)).toEqual([
      'updates: none (set TOOLDECK_UPDATE_URL or GITHUB_REPOSITORY)',
      'macOS signing: Developer ID from CSC_LINK/CSC_NAME',
      'macOS notarization: yes',
      'Windows signing: certificate from WIN_CSC_LINK/CSC_LINK',
    ]);
  });

  it('refuses an update feed that is not https, with one sentence naming the variable', () => {
    for (const url of ['http://updates.example/tooldeck', 'http://127.0.0.1:8080/feed', 'ftp://updates.example/t', 'file:///srv/feed']) {
      expect(() => desktopBuildOverrides({ TOOLDECK_UPDATE_URL: url }), url).toThrow(/^TOOLDECK_UPDATE_URL must be an https:\/\/ URL \(the update feed decides what the installed app runs next\), not [a-z]+:\/\/[^ ]*\.$/);
    }
    expect(() => desktopBuildOverrides({ TOOLDECK_UPDATE_URL: 'updates.example' })).toThrow('TOOLDECK_UPDATE_URL must be an https:// URL, and "updates.example" is not a URL.');
  });

  it('gives the GitHub update feed only to a v* tag build on GitHub Actions, where GITHUB_REPOSITORY is always set', () => {
    const actions = { GITHUB_ACTIONS: 'true', GITHUB_REPOSITORY: 'acme/tooldeck' };
    const github = [{ provider: 'github', owner: 'acme', repo: 'tooldeck', releaseType: 'release' }];
    expect(desktopBuildOverrides({ ...actions, GITHUB_REF: 'refs/tags/v1.2.0' }).publish).toEqual(github);
    for (const ref of ['refs/pull/42/merge', 'refs/heads/main', 'refs/tags/nightly', undefined]) {
      expect(desktopBuildOverrides({ ...actions, GITHUB_REF: ref }).publish, String(ref)).toBeNull();
    }
    expect(releaseSummary(desktopBuildOverrides({ ...actions, GITHUB_REF: 'refs/pull/42/merge' }), { ...actions, GITHUB_REF: 'refs/pull/42/merge' })[0]).toBe('updates: none (refs/pull/42/merge is not a v* tag)');
    // An explicit feed is the builder's own choice, wherever it builds.
    expect(desktopBuildOverrides({ ...actions, GITHUB_REF: 'refs/pull/42/merge', TOOLDECK_UPDATE_URL: 'https://updates.example/t' }).publish).toEqual([{ provider: 'generic', url: 'https://updates.example/t' }]);
  });

  it('merges the two macOS builds\' latest-mac.yml into one that offers each architecture its zip', () => {
    // As electron-builder 26 writes them on the Intel and the Apple silicon runner.
    const x64 = [
      'version: 1.2.0',
      'files:',
      '  - url: Tooldeck-1.2.0-mac.zip',
      '    sha512: aaa',
      '    size: 100',
      '  - url: Tooldeck-1.2.0.dmg',
      '    sha512: bbb',
      '    size: 110',
      'path: Tooldeck-1.2.0-mac.zip',
      'sha512: aaa',
      "releaseDate: '2026-03-01T10:00:00.000Z'",
      '',
    ].join('\n');
    const arm64 = x64.replaceAll('1.2.0-mac.zip', '1.2.0-arm64-mac.zip').replaceAll('1.2.0.dmg', '1.2.0-arm64.dmg').replaceAll('aaa', 'ccc').replaceAll('bbb', 'ddd').replace('10:00', '10:05');
    const text = mergeUpdateInfo([x64, arm64]);
    // Read under YAML 1.1, as electron-updater reads it (js-yaml), where an unquoted date would become a Date.
    const merged = parse(text, { version: '1.1' }) as { files: Array<{ url: string }> };
    expect(merged).toEqual({
      version: '1.2.0',
      files: [
        { url: 'Tooldeck-1.2.0-mac.zip', sha512: 'aaa', size: 100 },
        { url: 'Tooldeck-1.2.0.dmg', sha512: 'bbb', size: 110 },
        { url: 'Tooldeck-1.2.0-arm64-mac.zip', sha512: 'ccc', size: 100 },
        { url: 'Tooldeck-1.2.0-arm64.dmg', sha512: 'ddd', size: 110 },
      ],
      path: 'Tooldeck-1.2.0-mac.zip',
      sha512: 'aaa',
      releaseDate: '2026-03-01T10:05:00.000Z',
    });
    // electron-updater's MacUpdater: an Apple silicon Mac takes the files whose URL says arm64, an Intel Mac the others.
    expect(merged.files.filter((file) => file.url.includes('arm64') && file.url.endsWith('.zip'))).toHaveLength(1);
    expect(merged.files.filter((file) => !file.url.includes('arm64') && file.url.endsWith('.zip'))).toHaveLength(1);
    expect(() => mergeUpdateInfo([x64, arm64.replace('version: 1.2.0', 'version: 1.2.1')])).toThrow(/not for one version/);
    expect(() => mergeUpdateInfo([x64, x64.replace('sha512: aaa\n    size', 'sha512: zzz\n    size')])).toThrow(/Two different files are named Tooldeck-1.2.0-mac.zip/);
  });

  it('runs the desktop workflow on current runner images: Linux, Windows, and macOS on Apple silicon and on Intel', () => {
    const matrix = workflow.jobs.package!.strategy!.matrix.include;
    const labels = Object.values(workflow.jobs).flatMap((job) => (job['runs-on'] === '${{ matrix.os }}' ? matrix.map((entry) => entry.os) : [job['runs-on']]));
    for (const label of labels) expect(RETIRED_RUNNERS, `runner ${label}`).not.toContain(label);
    const mac = Object.fromEntries(matrix.filter((entry) => entry.platform === '--mac').map((entry) => [entry.arch, entry.os]));
    // macos-14 and later (and macos-latest) are Apple silicon images; x64 needs an Intel image (-intel, or the -large ones).
    expect(mac.arm64).toMatch(/^macos-(1[4-9]|latest)(-xlarge)?$/);
    expect(mac.x64).toMatch(/^macos-\d+-(intel|large)$|^macos-latest-large$/);
  });

  it('publishes a release once, from one job after every platform passed, and never from a pull request', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    const build = workflow.jobs.package!.steps.find((step) => step.run?.includes('npm run package --'))!;
    // The builds only build: no --publish=always/onTag, no token to publish with.
    expect(build.run).toMatch(/--publish=never\s*$/);
    expect(build.env ?? {}).not.toHaveProperty('GH_TOKEN');
    expect(build.env ?? {}).not.toHaveProperty('GITHUB_TOKEN');
    const writers = Object.entries(workflow.jobs).filter(([, job]) => job.permissions?.contents === 'write');
    expect(writers.map(([name]) => name)).toEqual(['release']);
    const release = workflow.jobs.release!;
    expect(release.if).toBe("startsWith(github.ref, 'refs/tags/v')");
    expect([release.needs].flat()).toEqual(['package']);
    const runs = release.steps.map((step) => step.run ?? '').join('\n');
    expect(runs).toContain('node scripts/mergeUpdateInfo.mjs release/latest-mac.yml');
    expect(runs).toContain('gh release create "$TAG" release/*');
    // No other job talks to releases.
    for (const [name, job] of Object.entries(workflow.jobs)) if (name !== 'release') expect(job.steps.map((step) => step.run ?? '').join('\n')).not.toMatch(/gh release|--publish=(always|onTag)/);
  });

  it('has a desktop workflow that packages, reads the fuses and launches the app on Linux, macOS and Windows', () => {
    const job = workflow.jobs.package!;
    const systems = job.strategy!.matrix.include.map((entry: { os: string }) => entry.os.split('-')[0]);
    expect(new Set(systems)).toEqual(new Set(['ubuntu', 'macos', 'windows']));
    const runs = job.steps.map((step: { run?: string }) => step.run ?? '').join('\n');
    expect(runs).toContain('npx install-electron');
    expect(runs).toContain('npm run package --');
    expect(runs).toContain('npx @electron/fuses read --app');
    expect(runs).toContain('playwright test -c e2e/desktop/playwright.config.ts');
  });
});
