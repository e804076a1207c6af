import { describe, expect, it } from 'vitest';
import { readZip, safeEntryPath } from './zipArchive';
import { writeZip } from './testing/zipWriter';

const LIMITS = { maxEntries: 100, maxTotalBytes: 1024 * 1024 };

describe('readZip (archives from strangers)', () => {
  it('reads stored and deflated entries with their executable bit', () => {
    const entries = readZip(writeZip([{ path: 'manifest.json', data: '{"a":1}' }, { path: 'bin/run', data: 'x'.repeat(5000), mode: 0o755, stored: true }]), LIMITS);
    expect(entries.map((e) => [e.path, e.data.length, e.mode])).toEqual([
      ['manifest.json', 7, 0o644],
      ['bin/run', 5000, 0o755],
    ]);
  });

  it.each(['../evil', 'a/../../evil', '/etc/passwd', 'C:/x', 'a\\..\\b', './x'])('refuses the path %s, which would land outside the folder', (path) => {
    expect(safeEntryPath(path)).toBeUndefined();
    expect(() => readZip(writeZip([{ path, data: 'x' }]), LIMITS)).toThrow(/outside the bundle's folder/);
  });

  it('refuses symbolic links, duplicates, lying sizes, deflate bombs and too many bytes', () => {
    expect(() => readZip(writeZip([{ path: 'link', data: '/etc/passwd', symlink: true }]), LIMITS)).toThrow(/symbolic link/);
    expect(() => readZip(writeZip([{ path: 'a', data: '1' }, { path: 'a', data: '2' }]), LIMITS)).toThrow(/appears twice/);
    // A bomb: 1 MiB of zeros declared as 100 bytes inflates no further than 100 bytes, then fails.
    expect(() => readZip(writeZip([{ path: 'bomb', data: Buffer.alloc(1024 * 1024), declaredSize: 100 }]), LIMITS)).toThrow(/does not inflate to its declared size|not the size it declares/);
    expect(() => readZip(writeZip([{ path: 'big', data: Buffer.alloc(2 * 1024 * 1024) }]), LIMITS)).toThrow(/unpacks to more than 1 MiB/);
    const damaged = writeZip([{ path: 'a', data: 'hello world', stored: true }]);
    damaged[30 + 1] = 'X'.charCodeAt(0); // a byte of the stored data
    expect(() => readZip(damaged, LIMITS)).toThrow(/CRC-32/);
    expect(() => readZip(Buffer.from('not a zip at all, just text'), LIMITS)).toThrow(/no end of central directory/);
  });
});
