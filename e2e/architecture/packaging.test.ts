import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { desktopBuildOverrides, releaseSummary } from '../../scripts/packageDesktop.mjs';

const builder = parse(readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8'));

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

  it('has a desktop workflow that packages, reads the fuses and launches the app on Linux, macOS and Windows', () => {
    const workflow = parse(readFileSync(new URL('../../.github/workflows/desktop.yml', import.meta.url), 'utf8'));
    const job = workflow.jobs.package;
    const systems = job.strategy.matrix.include.map((entry: { os: string }) => entry.os.split('-')[0]);
    expect(new Set(systems)).toEqual(new Set(['ubuntu', 'macos', 'windows']));
    const runs = job.steps.map((step: { run?: string }) => step.run ?? '').join('\n');
    expect(runs).toContain('npx install-electron');
    expect(runs).toContain('npm run package --');
    expect(runs).toContain('npx @electron/fuses read --app');
    expect(runs).toContain('playwright test -c e2e/desktop/playwright.config.ts');
  });
});
