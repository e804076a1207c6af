import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicIfAbsent } from './atomicWrite';

describe('writeFileAtomic', () => {
  it('replaces the file, owner-only, in a folder it creates, and leaves no temporary file', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'tooldeck-atomic-')), 'nested');
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, 'first');
    await writeFileAtomic(path, 'second');
    expect(readFileSync(path, 'utf8')).toBe('second');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('writeFileAtomicIfAbsent never replaces a file that is there, even when writers race', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-atomic-'));
    const path = join(dir, 'secrets.key');
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, n) => writeFileAtomicIfAbsent(path, `key ${n}`)));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(readFileSync(path, 'utf8')).toBe(`key ${outcomes.indexOf(true)}`);
    expect(await writeFileAtomicIfAbsent(path, 'later')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(`key ${outcomes.indexOf(true)}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['secrets.key']);
  });
});
