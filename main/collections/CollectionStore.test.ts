import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectionSecretKey } from '../../shared/collections';
import { MemorySecretStore } from '../platform/SecretStore';
import { CollectionStore } from './CollectionStore';

const example = readFileSync(join(import.meta.dirname, '../../examples/collections/everything.yaml'), 'utf8');

function newStore() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-collections-'));
  const secrets = new MemorySecretStore();
  return { store: new CollectionStore(dataDir, secrets), secrets, dir: join(dataDir, 'workspace', 'collections') };
}

describe('CollectionStore', () => {
  it('keeps the comments of a file when a request is edited and another added', async () => {
    const { store, dir } = newStore();
    await store.import(example);
    expect(readFileSync(join(dir, 'everything.yaml'), 'utf8')).toBe(example);

    const { collection } = await store.read('everything');
    collection.requests[1]!.arguments = { a: 20, b: 22 };
    collection.requests.splice(1, 0, { name: 'inserted', target: 'mcp:everything', tool: 'echo', arguments: { message: 'new' }, assertions: [], capture: {} });
    const saved = await store.save(collection);

    const text = readFileSync(join(dir, 'everything.yaml'), 'utf8');
    expect(saved.text).toBe(text);
    for (const comment of ['# Smoke tests for the MCP reference server', '# `text` is shorthand for the text content blocks, joined.', '# The result must carry structured content of this shape.', '# Later requests can use {{temperature}}']) {
      expect(text).toContain(comment);
    }
    expect(text).toContain('      - latencyBelowMs: 5000\n\n  - name: inserted\n');
    expect(text).toMatch(/- name: inserted\n\s+target: mcp:everything\n\s+tool: echo\n\s+arguments:\n\s+message: new/);
    expect(text).toContain('required: [temperature, conditions, humidity]');
    const reread = (await store.read('everything')).collection;
    expect(reread.requests.map((r) => r.name).slice(0, 3)).toEqual(['echo a variable', 'inserted', 'sum two numbers']);
    expect(reread.requests[2]!.arguments).toEqual({ a: 20, b: 22 });
  });

  it('names the line of each problem in an invalid file', async () => {
    const { store } = newStore();
    const text = ['name: broken', 'requests:', '  - name: one', '    target: mcp:x', '    tool: echo', '    assertions:', '      - path: text', '        equals: a', '        matches: b', '      - stauts: ok'].join('\n');
    await expect(store.import(text)).rejects.toMatchObject({
      code: 'InvalidInput',
      message: expect.stringMatching(/line 7: requests\[0\]\.assertions\[0\]: a path assertion has exactly one of equals, contains, matches, type, exists \(found equals, matches\)[\s\S]*line 10: requests\[0\]\.assertions\[1\]: Unrecognized key: "stauts"/),
    });
  });

  it('moves a literal secret into the secret store and writes a reference', async () => {
    const { store, secrets, dir } = newStore();
    const saved = await store.saveRequest('api', { name: 'call', target: 'mcp:api', tool: 'get', arguments: { apiKey: 'sk-live-123456', nested: { password: 'hunter22' }, max_tokens: 5 } });
    expect(saved.collection.requests[0]!.arguments).toEqual({ apiKey: '{{secret:API_API_KEY}}', nested: { password: '{{secret:API_PASSWORD}}' }, max_tokens: 5 });
    expect(await secrets.get(collectionSecretKey('API_API_KEY'))).toBe('sk-live-123456');
    const text = readFileSync(join(dir, 'api.yaml'), 'utf8');
    expect(text).not.toContain('sk-live');
    expect(text).not.toContain('hunter22');
  });

  it('turns a value history masked into a reference to a secret still to be set', async () => {
    const { store } = newStore();
    const saved = await store.saveRequest('api', { name: 'from history', target: 'mcp:api', tool: 'get', arguments: { token: '***' } });
    expect(saved.collection.requests[0]!.arguments).toEqual({ token: '{{secret:API_TOKEN}}' });
    expect(saved.unsetSecrets).toEqual(['API_TOKEN']);
  });

  it('adds requests to a new collection, replaces one by name, lists, renames and removes', async () => {
    const { store, dir } = newStore();
    await store.saveRequest('smoke', { name: 'a', target: 'mcp:s', tool: 'echo', arguments: { message: '1' } }, { description: 'made from the invoke panel' });
    await store.saveRequest('smoke', { name: 'b', target: 'mcp:s', tool: 'echo' });
    await store.saveRequest('smoke', { name: 'a', target: 'mcp:s', tool: 'echo', arguments: { message: '2' } });
    expect((await store.read('smoke')).collection.requests.map((r) => [r.name, r.arguments])).toEqual([
      ['a', { message: '2' }],
      ['b', {}],
    ]);
    expect(await store.list()).toEqual([{ name: 'smoke', description: 'made from the invoke panel', requestCount: 2 }]);

    const { collection } = await store.read('smoke');
    await store.save({ ...collection, name: 'renamed' }, { previousName: 'smoke' });
    expect(existsSync(join(dir, 'smoke.yaml'))).toBe(false);
    expect((await store.list()).map((c) => c.name)).toEqual(['renamed']);
    await store.remove('renamed');
    expect(await store.list()).toEqual([]);
    await expect(store.read('renamed')).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('imports JSON and exports both formats; refuses to overwrite without replace', async () => {
    const { store } = newStore();
    await store.import(example);
    const json = await store.export('everything', 'json');
    expect(JSON.parse(json).requests).toHaveLength(6);
    expect(await store.export('everything', 'yaml')).toBe(example);
    await expect(store.import(json)).rejects.toMatchObject({ code: 'AlreadyExists' });
    const copy = await store.import(json, { name: 'copy' });
    expect(copy.text).toContain('name: copy');
    expect(copy.collection.requests).toEqual((await store.read('everything')).collection.requests);
  });

  it('reads the collections folder with a limit: a FIFO is refused at once, an oversized file is listed with the limit, an oversized save is refused', { skip: process.platform === 'win32' }, async () => {
    const { store, dir } = newStore();
    await store.import(example);
    // Before, listing opened the FIFO and waited for a writer forever; a 20 MB file was parsed whole.
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    writeFileSync(join(dir, 'huge.yaml'), `name: huge\nrequests: []\ndescription: "${'x'.repeat(5 * 1024 * 1024)}"\n`);
    const listed = await store.list();
    expect(listed.map((item) => item.name)).toEqual(['everything', 'fifo', 'huge']);
    expect(listed[1]!.problem).toBe(`${join(dir, 'fifo.yaml')} is not a regular file, so it is not read as a collection file.`);
    expect(listed[2]!.problem).toBe(`${join(dir, 'huge.yaml')} is larger than the 4 MiB a collection file may have (it is 5 MiB); split it into several collections.`);
    await expect(store.read('fifo')).rejects.toMatchObject({ code: 'InvalidInput', message: expect.stringMatching(/is not a regular file/) });
    await expect(store.read('huge')).rejects.toMatchObject({ code: 'InvalidInput', step: 'tooLarge' });
    const { collection } = await store.read('everything');
    await expect(store.save({ ...collection, description: 'y'.repeat(5 * 1024 * 1024) })).rejects.toThrow(
      'The collection "everything" is larger than the 4 MiB a collection file may have (it is 5 MiB); split it into several collections.',
    );
  });
});
