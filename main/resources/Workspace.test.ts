import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { silentLogger } from '../platform/Logger';
import { seedWorkspace } from './seedWorkspace';
import { Workspace, type WorkspaceChange } from './Workspace';

const tool = (name: string, extra = '') => `apiVersion: orloj.dev/v1\nkind: Tool\nmetadata:\n  name: ${name}\nspec:\n  risk_level: low${extra}\n`;
const exampleDir = join(import.meta.dirname, '../../examples/workspace');

let dir: string;
let workspace: Workspace;

async function open(options: { watch?: boolean } = {}) {
  workspace = new Workspace({ dir, logger: silentLogger, watch: options.watch ?? false, debounceMs: 30 });
  await workspace.load();
  return workspace;
}

function nextChange(matching: (change: WorkspaceChange) => boolean): Promise<WorkspaceChange> {
  return new Promise((resolve) => {
    const off = workspace.onChange((change) => {
      if (!matching(change)) return;
      off();
      resolve(change);
    });
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tooldeck-workspace-'));
});
afterEach(() => {
  workspace?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Workspace: reading a folder of YAML files', () => {
  it('reads multi-document files (and subfolders), skipping empty documents but keeping document indexes', async () => {
    mkdirSync(join(dir, 'team'));
    writeFileSync(join(dir, 'tools.yaml'), `${tool('a')}---\n${tool('b')}---\n# nothing here\n---\n${tool('c')}`);
    writeFileSync(join(dir, 'team', 'more.yml'), tool('d'));
    writeFileSync(join(dir, 'notes.txt'), 'not a resource');
    await open();
    expect(workspace.listing().files.map((f) => [f.path, f.documents, f.errors])).toEqual([
      ['team/more.yml', 1, 0],
      ['tools.yaml', 3, 0],
    ]);
    expect(workspace.read('tools.yaml').parsed.map((doc) => [doc.index, doc.name, doc.valid])).toEqual([
      [0, 'a', true],
      [1, 'b', true],
      [3, 'c', true],
    ]);
  });

  it('reports YAML syntax errors with line and column, and the other documents of the file still load', async () => {
    writeFileSync(join(dir, 'broken.yaml'), `${tool('ok')}---\napiVersion: orloj.dev/v1\nkind: Tool\nmetadata:\n  name: [unclosed\n`);
    await open();
    const view = workspace.read('broken.yaml');
    expect(view.parsed[0]!.valid).toBe(true);
    expect(view.diagnostics.map((d) => [d.code, d.document, d.line])).toEqual([['syntax', 1, 12]]);
    expect(view.diagnostics[0]!.message).toMatch(/flow sequence/i);
    expect(workspace.isUnreadable('broken.yaml')).toBe(true);
  });

  it('reports unknown kinds, and duplicate names (same kind and name) on both places, across files', async () => {
    writeFileSync(join(dir, 'a.yaml'), `${tool('weather')}---\napiVersion: orloj.dev/v1\nkind: Agent\nmetadata: {name: x}\n`);
    writeFileSync(join(dir, 'b.yaml'), `${tool('weather')}---\napiVersion: orloj.dev/v1\nkind: ToolPermission\nmetadata: {name: weather}\n`);
    await open();
    const a = workspace.read('a.yaml').diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`);
    expect(a).toEqual([
      'duplicate 4:9 Tool weather is also defined in b.yaml (document 0, line 4); names must be unique per kind',
      'unknownKind 9:7 unknown kind "Agent"; known kinds: McpServer, Tool, ToolPermission (orloj.dev/v1); LanguageTool, LanguageAgent (langop.io/v1alpha1)',
    ]);
    // A ToolPermission may share its name with a Tool: names are unique per kind.
    expect(workspace.read('b.yaml').diagnostics.map((d) => d.message)).toEqual(['Tool weather is also defined in a.yaml (document 0, line 4); names must be unique per kind']);
    expect(workspace.listing().files.map((f) => f.errors)).toEqual([2, 1]);
  });

  it('lists a 5 MB file without loading it, with a clear message; such text is refused for validation and saving', async () => {
    const big = `${tool('big', `\n  description: "${'x'.repeat(5 * 1024 * 1024)}"`)}`;
    writeFileSync(join(dir, 'big.yaml'), big);
    writeFileSync(join(dir, 'small.yaml'), tool('small'));
    const started = performance.now();
    await open();
    const loadMs = performance.now() - started;
    const summary = workspace.listing().files.find((f) => f.path === 'big.yaml')!;
    expect(summary).toMatchObject({ tooLarge: true, documents: 0, errors: 1 });
    const view = workspace.read('big.yaml');
    expect(view.text).toBeUndefined();
    expect(view.diagnostics[0]).toMatchObject({ code: 'tooLarge', message: 'big.yaml is larger than the 1 MiB a resource file may have (it is 5 MiB); it was not loaded: split it into smaller files.' });
    expect(() => workspace.validateText(big, 'big.yaml')).toThrow(/big\.yaml is larger than the 1 MiB a resource file may have/);
    await expect(workspace.save({ path: 'big.yaml', text: big, expectedVersion: summary.version })).rejects.toThrow(/split it into smaller files/);
    console.log(`workspace with a 5 MB file loaded in ${loadMs.toFixed(0)} ms`);
  });

  it('the example workspace is valid: every document of every file', async () => {
    rmSync(dir, { recursive: true });
    expect(await seedWorkspace(dir, exampleDir)).toBe(true);
    expect(await seedWorkspace(dir, exampleDir)).toBe(false);
    await open();
    const files = workspace.listing().files;
    expect(files.map((f) => f.path)).toEqual(['agent.yaml', 'agents.claw-pod.yml', 'evals/assistant.yml', 'everything.yaml', 'permissions.yaml', 'tools.yaml']);
    expect(files.flatMap((f) => workspace.read(f.path).diagnostics)).toEqual([]);
    expect(workspace.documents().map((doc) => `${doc.kind}/${doc.name}`)).toEqual([
      'LanguageTool/everything',
      'LanguageAgent/assistant',
      'ClawPod/example',
      'EvalSuite/assistant',
      'McpServer/everything',
      'ToolPermission/everything-changes-need-approval',
      'ToolPermission/assistant-images-need-approval',
      'Tool/long-running-operation',
    ]);
  });
});

describe('Workspace: saving and editing', () => {
  it('saves a new file (expected version null) and refuses to create one that already exists', async () => {
    await open();
    const view = await workspace.save({ path: 'new/tools.yaml', text: tool('a'), expectedVersion: null });
    expect(view).toMatchObject({ path: 'new/tools.yaml', documents: 1, errors: 0 });
    expect(readFileSync(join(dir, 'new/tools.yaml'), 'utf8')).toBe(tool('a'));
    await expect(workspace.save({ path: 'new/tools.yaml', text: tool('b'), expectedVersion: null })).rejects.toThrow(/already exists since you opened it/);
  });

  it('refuses to overwrite a file changed on disk since it was read; nothing is written; force overwrites', async () => {
    writeFileSync(join(dir, 'tools.yaml'), tool('a'));
    await open();
    const { version } = workspace.read('tools.yaml');
    writeFileSync(join(dir, 'tools.yaml'), tool('changed-outside'));
    const draft = tool('my-draft');
    const error = await workspace.save({ path: 'tools.yaml', text: draft, expectedVersion: version }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'AlreadyExists', step: 'conflict' });
    expect((error as Error).message).toMatch(/^tools\.yaml changed on disk since you opened it .*Nothing was written and your text is kept/);
    expect(readFileSync(join(dir, 'tools.yaml'), 'utf8')).toBe(tool('changed-outside'));
    await workspace.save({ path: 'tools.yaml', text: draft, expectedVersion: version, force: true });
    expect(readFileSync(join(dir, 'tools.yaml'), 'utf8')).toBe(draft);
  });

  it('edits fields in place, keeping comments, key order and the untouched documents byte for byte', async () => {
    const second = `---\n# keep me\n${tool('b')}`;
    writeFileSync(join(dir, 'tools.yaml'), `# header\n${tool('a', '\n  runtime:\n    timeout: 10s # short')}${second}`);
    await open();
    const view = await workspace.edit({ path: 'tools.yaml', expectedVersion: workspace.read('tools.yaml').version!, edits: [{ document: 0, path: ['spec', 'runtime', 'timeout'], value: '1m' }] });
    expect(view.text).toBe(`# header\n${tool('a', '\n  runtime:\n    timeout: 1m # short')}${second}`);
    expect(view.parsed[0]!.valid).toBe(true);
    await expect(workspace.edit({ path: 'tools.yaml', expectedVersion: 'stale', edits: [{ document: 0, path: ['spec', 'risk_level'], value: 'high' }] })).rejects.toMatchObject({ step: 'conflict' });
  });

  it('deletes a file, guarded by its version', async () => {
    writeFileSync(join(dir, 'tools.yaml'), tool('a'));
    await open();
    await expect(workspace.delete({ path: 'tools.yaml', expectedVersion: 'stale' })).rejects.toMatchObject({ step: 'conflict' });
    await workspace.delete({ path: 'tools.yaml', expectedVersion: workspace.read('tools.yaml').version! });
    expect(workspace.listing().files).toEqual([]);
  });

  it('keeps every path inside the workspace: no .., no absolute paths, no links out, only YAML files', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'tooldeck-outside-'));
    symlinkSync(outside, join(dir, 'link'));
    await open();
    for (const path of ['../escape.yaml', '/etc/escape.yaml', 'a/../../escape.yaml', 'link/escape.yaml', 'notes.txt']) {
      await expect(workspace.save({ path, text: tool('x'), expectedVersion: null }), path).rejects.toMatchObject({ code: 'InvalidInput' });
    }
    rmSync(outside, { recursive: true, force: true });
  });

  it('validates text as the file it would become: its rules and duplicates against the other files; previews defaults', async () => {
    writeFileSync(join(dir, 'a.yaml'), tool('weather'));
    await open();
    const result = workspace.validateText(`${tool('weather')}---\n${tool('fine', '\n  runtime: {timeout: abc}')}`, 'b.yaml');
    expect(result.valid).toBe(false);
    expect(result.diagnostics.map((d) => `${d.line}:${d.column} ${d.path}: ${d.message}`)).toEqual([
      '4:9 metadata.name: Tool weather is also defined in a.yaml (document 0, line 4); names must be unique per kind',
      '14:22 spec.runtime.timeout: "abc" is not a duration: expected numbers with units (ns, us, ms, s, m, h), e.g. "30s", "1m30s", "250ms"',
    ]);
    expect(workspace.validateText(tool('weather'), 'a.yaml').valid).toBe(true);
    const preview = workspace.previewDefaults(tool('fine'), 'c.yaml');
    expect(preview.yaml).toContain('runtime:\n    timeout: 30s\n    isolation_mode: none\n');
  });
});

describe('Workspace: watching the folder', () => {
  it('outside edits, new files and deletions show up as changes', async () => {
    writeFileSync(join(dir, 'tools.yaml'), tool('a'));
    await open({ watch: true });
    const created = nextChange((change) => change.changed.includes('outside.yaml'));
    writeFileSync(join(dir, 'outside.yaml'), tool('from-outside'));
    await created;
    expect(workspace.read('outside.yaml').parsed[0]!.name).toBe('from-outside');

    const edited = nextChange((change) => change.changed.includes('tools.yaml'));
    writeFileSync(join(dir, 'tools.yaml'), tool('renamed'));
    await edited;
    expect(workspace.documents().map((doc) => doc.name)).toEqual(['from-outside', 'renamed']);

    const removed = nextChange((change) => change.changed.includes('outside.yaml'));
    rmSync(join(dir, 'outside.yaml'));
    await removed;
    expect(workspace.listing().files.map((f) => f.path)).toEqual(['tools.yaml']);
  });

  it('opens another folder: its files replace the old ones', async () => {
    writeFileSync(join(dir, 'tools.yaml'), tool('a'));
    await open();
    const other = mkdtempSync(join(tmpdir(), 'tooldeck-other-'));
    writeFileSync(join(other, 'x.yaml'), tool('x'));
    const change = nextChange(() => true);
    await workspace.open(other);
    expect((await change).changed).toEqual(['tools.yaml', 'x.yaml']);
    expect(workspace.listing()).toMatchObject({ dir: other, files: [{ path: 'x.yaml' }] });
    await expect(workspace.open(join(other, 'missing'))).rejects.toMatchObject({ code: 'NotFound' });
    rmSync(other, { recursive: true, force: true });
  });
});
