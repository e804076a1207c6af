import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonFile } from './JsonFile';

const Counter = z.object({ items: z.array(z.number()) });

describe('JsonFile', () => {
  it('keeps every concurrent update, writes owner-only, and leaves no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-json-'));
    const file = new JsonFile(join(dir, 'state.json'), Counter, () => ({ items: [] }));
    await Promise.all(Array.from({ length: 50 }, (_, n) => file.update((current) => ({ next: { items: [...current.items, n] }, result: undefined }))));
    expect((await file.read()).items.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(statSync(join(dir, 'state.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('names the file and the problem when it is not JSON or not valid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-json-'));
    const path = join(dir, 'state.json');
    const file = new JsonFile(path, Counter, () => ({ items: [] }));
    writeFileSync(path, '{ nope');
    await expect(file.read()).rejects.toThrow(`${path} is not valid JSON`);
    writeFileSync(path, '{"items": ["x"]}');
    await expect(file.read()).rejects.toThrow(`${path} is not a valid file: items.0:`);
  });
});
