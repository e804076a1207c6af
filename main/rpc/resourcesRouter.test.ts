import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceEvent } from '../../shared/resources/workspace';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createLocalResources, type LocalResources } from '../resources/createLocalResources';
import { createResourcesRouter } from './resourcesRouter';
import { createCallerFactory } from './trpc';
import { operatorCaller } from '../../shared/caller';

const exampleDir = join(import.meta.dirname, '../../examples/workspace');
let core: Core;
let resources: LocalResources;
let dataDir: string;
const rpc = () => createCallerFactory(createResourcesRouter(() => resources))({ core, caller: operatorCaller('ui') });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-resources-rpc-'));
  core = await createCore({ appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, shutdownGraceMs: 200 });
  resources = await createLocalResources({ dataDir, mcp: core.mcp, logger: silentLogger, examplesDir: exampleDir });
});
afterAll(async () => {
  await resources?.close();
  await core?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function nextEvent(iterator: AsyncIterator<WorkspaceEvent>, matching: (event: WorkspaceEvent) => boolean): Promise<WorkspaceEvent> {
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) throw new Error('the subscription ended');
    if (matching(value)) return value;
  }
}

describe('resources router', { timeout: 60_000 }, () => {
  it('starts from the example workspace on first use, and its McpServer connects through ${node} and ${module:…}', async () => {
    const listing = await rpc().files();
    expect(listing.dir).toBe(join(dataDir, 'workspace'));
    expect(listing.files.map((f) => [f.path, f.errors])).toEqual([
      ['agent.yaml', 0],
      ['agents.claw-pod.yml', 0],
      ['evals/assistant.yml', 0],
      ['everything.yaml', 0],
      ['permissions.yaml', 0],
      ['tools.yaml', 0],
    ]);
    const iterator = (await rpc().watch())[Symbol.asyncIterator]();
    const ready = await nextEvent(iterator, (event) => event.statuses.mcpServers[0]?.status.phase === 'Ready');
    await iterator.return?.();
    expect([...ready.statuses.mcpServers[0]!.status.generatedTools].sort()).toEqual([
      'everything--echo',
      'everything--get-sum',
      'everything--get-tiny-image',
      'everything--trigger-long-running-operation',
    ]);
    expect(core.mcp.configs()[0]).toMatchObject({ name: 'everything', command: process.execPath, args: [expect.stringMatching(/server-everything[\\/]dist[\\/]index\.js$/), 'stdio'] });
  });

  it('reads a file with its documents and diagnostics; validates text with positions; previews defaults', async () => {
    const file = await rpc().read({ path: 'tools.yaml' });
    expect(file.text).toBe(readFileSync(join(exampleDir, 'tools.yaml'), 'utf8'));
    expect(file.parsed.map((doc) => [doc.kind, doc.name, doc.valid])).toEqual([['Tool', 'long-running-operation', true]]);
    const checked = await rpc().validate({ path: 'tools.yaml', text: file.text!.replace('timeout: 2m', 'timeout: abc') });
    expect(checked.valid).toBe(false);
    expect(checked.diagnostics).toEqual([expect.objectContaining({ path: 'spec.runtime.timeout', line: 16, column: 14, severity: 'error', code: 'invalid' })]);
    const preview = await rpc().previewDefaults({ text: file.text! });
    expect(preview.objects[0]).toMatchObject({ metadata: { namespace: 'default' }, spec: { runtime: { isolation_mode: 'none', retry: { max_backoff: '30s' } } } });
    await expect(rpc().read({ path: '../outside.yaml' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('saves with the version it read; a file changed on disk meanwhile is a CONFLICT and stays as it is on disk', async () => {
    const file = await rpc().read({ path: 'permissions.yaml' });
    writeFileSync(join(dataDir, 'workspace', 'permissions.yaml'), `${file.text}# edited elsewhere\n`);
    const error = await rpc()
      .save({ path: 'permissions.yaml', text: `${file.text}# my draft\n`, expectedVersion: file.version })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFLICT', cause: { code: 'AlreadyExists', step: 'conflict' } });
    expect(readFileSync(join(dataDir, 'workspace', 'permissions.yaml'), 'utf8')).toMatch(/# edited elsewhere\n$/);
    const saved = await rpc().save({ path: 'permissions.yaml', text: `${file.text}# my draft\n`, expectedVersion: file.version, force: true });
    expect(saved.text).toMatch(/# my draft\n$/);
  });

  it('edits fields, deletes files, reports statuses and serves the editor schemas', async () => {
    const file = await rpc().read({ path: 'agent.yaml' });
    const edited = await rpc().edit({ path: 'agent.yaml', expectedVersion: file.version!, edits: [{ document: 1, path: ['spec', 'instructions'], value: 'Be brief.' }] });
    expect(edited.text).toContain('instructions: Be brief.');
    expect(edited.text!.startsWith('# For a Kubernetes cluster')).toBe(true);
    const statuses = await rpc().statuses();
    expect(statuses.toolPermissions[0]).toMatchObject({ name: 'everything-changes-need-approval', enforced: true, registryToolRef: 'mcp:everything.*' });
    const schemas = await rpc().schemas();
    expect(schemas.kinds.map((k) => k.kind)).toEqual(['McpServer', 'Tool', 'ToolPermission', 'LanguageTool', 'LanguageAgent', 'ClawDescriptor', 'ClawPod', 'EvalSuite']);
    expect(schemas.document.properties?.kind?.enum).toEqual(['McpServer', 'Tool', 'ToolPermission', 'LanguageTool', 'LanguageAgent']);
    await rpc().delete({ path: 'agent.yaml', expectedVersion: edited.version! });
    expect((await rpc().files()).files.map((f) => f.path)).not.toContain('agent.yaml');
  });

  it('from the browser, starts no command a saved file or an opened folder declares until its line is confirmed', async () => {
    const browser = () => createCallerFactory(createResourcesRouter(() => resources))({ core, fromBrowser: true, caller: operatorCaller('ui') });
    const marker = join(mkdtempSync(join(tmpdir(), 'tooldeck-launch-')), 'ran');
    const text = `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: sneaky}\nspec:\n  transport: stdio\n  command: \${node}\n  args: ['-e', "require('fs').writeFileSync('${marker}', 'x')"]\n`;
    const refusal = await browser()
      .save({ path: 'sneaky.yaml', text, expectedVersion: null })
      .then(() => undefined, (error: { cause?: { step?: string; details?: string[] } }) => error.cause);
    expect(refusal?.step).toBe('confirm-launch');
    // The line as the folder wrote it: `${node}` is Tooldeck's own Node.js, the same in every host.
    expect(refusal?.details).toEqual([`'\${node}' -e 'require('\\''fs'\\'').writeFileSync('\\''${marker}'\\'', '\\''x'\\'')'`]);
    expect((await rpc().files()).files.map((f) => f.path)).not.toContain('sneaky.yaml');
    const folder = mkdtempSync(join(tmpdir(), 'tooldeck-launch-folder-'));
    writeFileSync(join(folder, 'sneaky.yaml'), text);
    await expect(browser().openFolder({ dir: folder })).rejects.toMatchObject({ cause: { step: 'confirm-launch' } });
    expect((await rpc().files()).dir).not.toBe(folder);
    // Confirmed, the file is written (and the line joins the folder's allow-list).
    await browser().save({ path: 'sneaky.yaml', text, expectedVersion: null, confirmedLaunchLines: refusal!.details! });
    // A file that changes only an environment value (here NODE_OPTIONS, which can load any code)
    // changes the line: saved servers seal every value, but the line shows what will run.
    const withOptions = (value: string) => text.replace('  command:', `  env: [{name: NODE_OPTIONS, value: "${value}"}]\n  command:`);
    let current = await rpc().save({ path: 'sneaky.yaml', text: withOptions('--no-warnings'), expectedVersion: (await rpc().read({ path: 'sneaky.yaml' })).version! });
    const changedValue = await browser()
      .save({ path: 'sneaky.yaml', text: withOptions('--require /tmp/not-confirmed.js'), expectedVersion: current.version! })
      .then(() => undefined, (error: { cause?: { step?: string; details?: string[] } }) => error.cause);
    expect(changedValue?.step).toBe('confirm-launch');
    expect(changedValue?.details?.[0]).toMatch(/^NODE_OPTIONS='--require \/tmp\/not-confirmed\.js' /);
    expect(readFileSync(join((await rpc().files()).dir, 'sneaky.yaml'), 'utf8')).toContain('--no-warnings');
    current = await browser().save({ path: 'sneaky.yaml', text: withOptions('--no-warnings'), expectedVersion: current.version! });
    await rpc().delete({ path: 'sneaky.yaml', expectedVersion: current.version! });
    rmSync(folder, { recursive: true, force: true });
  });

  it('in the desktop app too (no fromBrowser), opening a folder starts none of its commands until their lines are confirmed, and remembers them for that folder only', async () => {
    const before = (await rpc().files()).dir;
    const marker = join(mkdtempSync(join(tmpdir(), 'tooldeck-desktop-open-')), 'ran');
    const text = `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: cloned}\nspec:\n  transport: stdio\n  command: \${node}\n  args: ['-e', "require('fs').writeFileSync('${marker}', 'x')"]\n`;
    const line = `'\${node}' -e 'require('\\''fs'\\'').writeFileSync('\\''${marker}'\\'', '\\''x'\\'')'`;
    const cloned = mkdtempSync(join(tmpdir(), 'tooldeck-cloned-'));
    writeFileSync(join(cloned, 'server.yaml'), text);
    await expect(rpc().openFolder({ dir: cloned })).rejects.toMatchObject({ cause: { step: 'confirm-launch', details: [line] } });
    expect((await rpc().files()).dir).toBe(before);
    expect(await resources.launchAllowList.isConfirmed(cloned, line)).toBe(false);
    // A line confirmed for one folder is not confirmed for another that declares it too.
    const copy = mkdtempSync(join(tmpdir(), 'tooldeck-cloned-copy-'));
    writeFileSync(join(copy, 'server.yaml'), text);
    await rpc().openFolder({ dir: cloned, confirmedLaunchLines: [line] });
    expect(await resources.launchAllowList.isConfirmed(cloned, line)).toBe(true);
    expect(await resources.launchAllowList.isConfirmed(copy, line)).toBe(false);
    await expect(rpc().openFolder({ dir: copy })).rejects.toMatchObject({ cause: { step: 'confirm-launch' } });
    expect(readFileSync(join(dataDir, 'launch-allowlist.json'), 'utf8')).not.toContain(copy);
    await rpc().openFolder({ dir: before });
    rmSync(cloned, { recursive: true, force: true });
    rmSync(copy, { recursive: true, force: true });
  });

  it('opens another folder and remembers it for the next start', async () => {
    const other = mkdtempSync(join(tmpdir(), 'tooldeck-resources-other-'));
    writeFileSync(join(other, 'tool.yaml'), 'apiVersion: orloj.dev/v1\nkind: Tool\nmetadata: {name: solo}\n');
    const listing = await rpc().openFolder({ dir: other });
    expect(listing.files.map((f) => f.path)).toEqual(['tool.yaml']);
    expect(JSON.parse(readFileSync(join(dataDir, 'resources.json'), 'utf8'))).toEqual({ workspaceDir: other });
    // The example server's resource is gone with the old folder, so its managed server goes too.
    const iterator = (await rpc().watch())[Symbol.asyncIterator]();
    await nextEvent(iterator, () => !core.mcp.configs().some((c) => c.name === 'everything'));
    await iterator.return?.();
    rmSync(other, { recursive: true, force: true });
  });
});
