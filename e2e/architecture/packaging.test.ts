import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };

const builder = parse(readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8'));

describe('packaging', () => {
  it('builds Tooldeck installers for every desktop platform, never publishing', () => {
    expect(builder).toMatchObject({ appId: 'dev.tooldeck.app', productName: 'Tooldeck', asar: true, publish: 'never' });
    expect(builder.linux.target).toEqual(['AppImage', 'deb']);
    expect(builder.mac.target).toEqual(['dmg']);
    expect(builder.win.target).toEqual(['nsis']);
  });

  it('ships only the built app (a files allow-list)', () => {
    expect(builder.files).toContain('out/**/*');
    expect(builder.files.filter((f: string) => !f.startsWith('!'))).toEqual(['out/**/*', 'package.json']);
  });

  it('burns the hardening fuses', () => {
    expect(builder.electronFuses).toMatchObject({
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
});
