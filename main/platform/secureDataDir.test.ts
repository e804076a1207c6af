import { chmodSync, mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secureDataDir } from './secureDataDir';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('secureDataDir', () => {
  it('makes an older, world-readable data dir owner-only without following links', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-modes-'));
    const outside = join(mkdtempSync(join(tmpdir(), 'tooldeck-outside-')), 'shared.txt');
    writeFileSync(outside, 'x', { mode: 0o644 });
    chmodSync(outside, 0o644);
    mkdirSync(join(dir, 'workspace'), { mode: 0o755 });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'workspace'), 0o755);
    for (const [file, fileMode] of [['tooldeck.db', 0o644], ['tooldeck.db-wal', 0o644], ['workspace/run.sh', 0o755]] as const) {
      writeFileSync(join(dir, file), 'x');
      chmodSync(join(dir, file), fileMode);
    }
    symlinkSync(outside, join(dir, 'workspace', 'link'));

    secureDataDir(dir);

    expect([mode(dir), mode(join(dir, 'workspace'))]).toEqual(['700', '700']);
    expect([mode(join(dir, 'tooldeck.db')), mode(join(dir, 'tooldeck.db-wal')), mode(join(dir, 'workspace/run.sh'))]).toEqual(['600', '600', '700']);
    expect(mode(outside)).toBe('644');
  });
});
