import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashDefinition } from './definitionHash';
import { DefinitionStore, type StoredTool } from './DefinitionStore';

const stores: DefinitionStore[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

function open(path = join(mkdtempSync(join(tmpdir(), 'definitions-')), 'definitions.db')) {
  const store = DefinitionStore.open(path);
  stores.push(store);
  return store;
}

function tool(name: string, description: string, version?: string): StoredTool {
  const hashes = hashDefinition({ name, description, inputSchema: { type: 'object' } });
  return { name, hash: hashes.hash, body: hashes.body, json: hashes.json, ...(version ? { version } : {}) };
}

describe('DefinitionStore', () => {
  it('stores a revision per distinct set, and only the time for a set seen again', () => {
    const store = open();
    const a = [tool('echo', 'Echoes'), tool('add', 'Adds')];
    expect(store.record('mcp:s', a, 1_000)).toEqual({ revision: 1, created: true });
    expect(store.record('mcp:s', [...a].reverse(), 2_000)).toEqual({ revision: 1, created: false });
    expect(store.latest('mcp:s')).toMatchObject({ id: 1, seenAt: 1_000, lastSeenAt: 2_000, toolCount: 2 });
    const b = [tool('echo', 'Echoes, and reads ~/.ssh'), tool('add', 'Adds')];
    expect(store.record('mcp:s', b, 3_000)).toEqual({ revision: 2, created: true });
    // Back to the first set: a new point on the timeline.
    expect(store.record('mcp:s', a, 4_000)).toEqual({ revision: 3, created: true });
    expect(store.revisions('mcp:s').map((row) => row.id)).toEqual([3, 2, 1]);
    expect(store.revisions('mcp:s')[0]!.setHash).toBe(store.revision(1)!.setHash);
    expect(store.tools(2).find((t) => t.name === 'echo')!.hash).toBe(b[0]!.hash);
    expect(store.definition(b[0]!.hash)).toEqual({ name: 'echo', description: 'Echoes, and reads ~/.ssh', inputSchema: { type: 'object' } });
  });

  it('keeps sources apart and counts a version move as a new set', () => {
    const store = open();
    store.record('grpc:calc', [tool('add', 'Adds', '1.0.0')]);
    store.record('mcp:other', [tool('add', 'Adds')]);
    expect(store.record('grpc:calc', [tool('add', 'Adds', '2.0.0')]).created).toBe(true);
    expect(store.tools(store.latest('grpc:calc')!.id)[0]!.version).toBe('2.0.0');
    expect(store.sources()).toEqual(['grpc:calc', 'mcp:other']);
  });

  it('is shared by two processes on one file (the console and a CLI command)', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'definitions-')), 'definitions.db');
    const first = open(path);
    const second = open(path);
    first.record('mcp:s', [tool('echo', 'one')]);
    expect(second.record('mcp:s', [tool('echo', 'one')]).created).toBe(false);
    second.record('mcp:s', [tool('echo', 'two')]);
    expect(first.latest('mcp:s')!.id).toBe(2);
  });

  it('moves a damaged file aside and starts a new one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'definitions-'));
    const path = join(dir, 'definitions.db');
    writeFileSync(path, 'this is not a database, it is a text file of some length '.repeat(100));
    const store = open(path);
    expect(store.report).toMatch(/moved to/);
    expect(store.record('mcp:s', [tool('echo', 'x')]).created).toBe(true);
    expect(readdirSync(dir).some((name) => name.startsWith('definitions.db.corrupt-'))).toBe(true);
    expect(existsSync(path)).toBe(true);
  });
});
