import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultStaticDir } from './serve';

describe('where tooldeck serve finds the built console', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('finds out/renderer from the entry (out/main) and from a lazily loaded chunk (out/main/chunks)', () => {
    const out = mkdtempSync(join(tmpdir(), 'tooldeck-out-'));
    roots.push(out);
    mkdirSync(join(out, 'renderer'));
    writeFileSync(join(out, 'renderer', 'index.html'), '<!doctype html>');
    mkdirSync(join(out, 'main', 'chunks'), { recursive: true });
    expect(defaultStaticDir(join(out, 'main'))).toBe(join(out, 'renderer'));
    expect(defaultStaticDir(join(out, 'main', 'chunks'))).toBe(join(out, 'renderer'));
  });
});
