import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockText, newLockDocument, parseLock, readLock, setLockedTool, writeLock } from './lockFile';

const H1 = `sha256:${'1'.repeat(64)}`;
const H2 = `sha256:${'2'.repeat(64)}`;
const H3 = `sha256:${'3'.repeat(64)}`;

const HAND_EDITED = `# Our approved tools. Ask #platform before changing.
version: 1
newSources: hold
sources:
  # the reference server, bundled
  mcp:everything:
    tools:
      echo: # checked by Ana, 2026-11-02
        hash: ${H1}
        body: ${H2}
  grpc:calc:
    tools:
      add:
        hash: ${H2}
        version: "1.2.0"
`;

describe('the lockfile', () => {
  it('reads a file written by hand, comments and all', () => {
    const { model, error } = parseLock(HAND_EDITED);
    expect(error).toBeUndefined();
    expect(model.newSources).toBe('hold');
    expect(model.sources['mcp:everything']!.tools.echo).toEqual({ hash: H1, body: H2 });
    expect(model.sources['grpc:calc']!.tools.add).toEqual({ hash: H2, version: '1.2.0' });
  });

  it('keeps every comment, and the order a reader expects, when a tool is set', () => {
    const { doc } = parseLock(HAND_EDITED);
    setLockedTool(doc!, 'mcp:everything', 'add', { hash: H3, body: H3 });
    setLockedTool(doc!, 'mcp:everything', 'echo', { hash: H2, body: H2, rejected: [H1] });
    setLockedTool(doc!, 'a2a:planner', 'plan', { hash: H1 });
    const text = lockText(doc!);
    expect(text).toContain('# Our approved tools. Ask #platform before changing.');
    expect(text).toContain('# the reference server, bundled');
    expect(text).toContain('# checked by Ana, 2026-11-02');
    // Sources and tools sorted, so two people approving different tools merge cleanly.
    expect(text.indexOf('a2a:planner')).toBeLessThan(text.indexOf('grpc:calc'));
    expect(text.indexOf('      add:')).toBeLessThan(text.indexOf('      echo:'));
    const reread = parseLock(text);
    expect(reread.error).toBeUndefined();
    expect(reread.model.sources['mcp:everything']!.tools.echo).toEqual({ hash: H2, body: H2, rejected: [H1] });
  });

  it('names what is wrong in a broken file: the line, or the field path', () => {
    expect(parseLock('version: 1\nsources: [\n').error).toMatch(/not valid YAML/);
    expect(parseLock(`version: 1\nsources:\n  mcp:x:\n    tools:\n      echo:\n        hash: sha256:abc\n`).error).toMatch(/^sources\.mcp:x\.tools\.echo\.hash: expected sha256/);
    expect(parseLock('version: 2\n').error).toMatch(/^version:/);
    expect(parseLock(`version: 1\nsources:\n  everything:\n    tools: {}\n`).error).toMatch(/source keys look like mcp:<server>/);
    expect(parseLock(`version: 1\nsources:\n  mcp:x:\n    tools:\n      echo: {}\n`).error).toMatch(/approved hash or a rejected one/);
    expect(parseLock(`version: 1\nsources:\n  mcp:x:\n    tools:\n      echo:\n        hash: ${H1}\n        approvedBy: me\n`).error).toMatch(/approvedBy/);
    expect(parseLock(`version: 1\nsources:\n  mcp:x: {}\n  mcp:x: {}\n`).error).toMatch(/not valid YAML/);
  });

  it('writes a new file with an explanatory header, keeping the mode of an existing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockfile-'));
    const path = join(dir, 'tooldeck.lock');
    const doc = newLockDocument();
    setLockedTool(doc, 'mcp:everything', 'echo', { hash: H1, body: H2 });
    await writeLock(path, doc);
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('# tooldeck.lock: the approved definition of every tool')).toBe(true);
    expect((await readLock(path)).model.sources['mcp:everything']!.tools.echo!.hash).toBe(H1);
    writeFileSync(path, HAND_EDITED);
    chmodSync(path, 0o644);
    const loaded = await readLock(path);
    setLockedTool(loaded.doc!, 'mcp:everything', 'echo', { hash: H3, body: H3 });
    await writeLock(path, loaded.doc!);
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(readFileSync(path, 'utf8')).toContain('# checked by Ana');
  });

  it('reports a missing file as absent, not as an error', async () => {
    const loaded = await readLock(join(tmpdir(), 'no-such-dir-for-lock', 'tooldeck.lock'));
    expect(loaded).toMatchObject({ exists: false });
    expect(loaded.error).toBeUndefined();
  });
});
