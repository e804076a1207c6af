import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
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
    await expect(new JsonFile(path, Counter, () => ({ items: [] }), { kind: 'counter file' }).read()).rejects.toThrow(`${path} is not a valid counter file: items.0:`);
  });

  it('reads a damaged file as empty when it only remembers, and writes with the indent asked for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-json-'));
    const path = join(dir, 'state.json');
    const file = new JsonFile(path, Counter, () => ({ items: [] }), { whenInvalid: 'empty', indent: 1 });
    writeFileSync(path, '{ nope');
    expect(await file.read()).toEqual({ items: [] });
    await file.update((current) => ({ next: { items: [...current.items, 1] }, result: undefined }));
    expect(readFileSync(path, 'utf8')).toBe('{\n "items": [\n  1\n ]\n}\n');
  });

  it('writes a value as it was when write was called, in the order writes were called', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-json-'));
    const file = new JsonFile(join(dir, 'state.json'), Counter, () => ({ items: [] }));
    const value = { items: [1] };
    const first = file.write(value);
    value.items.push(2);
    await first;
    expect(await file.read()).toEqual({ items: [1] });
    await Promise.all([file.write({ items: [3] }), file.write({ items: [4] })]);
    await file.settled();
    expect(await file.read()).toEqual({ items: [4] });
  });
});
