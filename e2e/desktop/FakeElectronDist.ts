import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The marker @electron/fuses looks for in an Electron binary; the fuse wire follows it. */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';

/**
 * Electron's fuse wire as released (V1, eight fuses, each '1' on or '0' off): RunAsNode on,
 * cookie encryption off, NODE_OPTIONS on, inspector flags on, asar integrity off, only-from-asar
 * off, browser V8 snapshot off, file:// privileges on.
 */
const RELEASED_FUSES = '10110001';

/**
 * A stand-in for the Linux Electron distribution electron-builder copies into an app (the real one
 * is downloaded from GitHub, which these machines cannot reach). Its "binary" holds nothing but a
 * fuse wire in Electron's layout, so electron-builder's own packaging runs for real — file
 * selection, the production node_modules, the asar, extraResources and the fuse flip — and the
 * result can be inspected. Nothing here can run; the desktop workflow packages the real binary.
 */
export function createFakeElectronDist(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-fake-electron-'));
  mkdirSync(join(dir, 'resources'));
  const binary = join(dir, 'electron');
  writeFileSync(binary, Buffer.concat([Buffer.from('#!/bin/sh\necho "a stand-in for Electron: it cannot run"; exit 1\n'), Buffer.from(FUSE_SENTINEL), Buffer.from([1, RELEASED_FUSES.length]), Buffer.from(RELEASED_FUSES)]));
  chmodSync(binary, 0o755);
  writeFileSync(join(dir, 'version'), version);
  writeFileSync(join(dir, 'LICENSE'), 'Electron stand-in for packaging tests\n');
  writeFileSync(join(dir, 'LICENSES.chromium.html'), '<p>Electron stand-in for packaging tests</p>\n');
  return dir;
}
