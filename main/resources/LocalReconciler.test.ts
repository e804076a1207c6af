import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpCatalogSync } from '../mcp/McpToolSource';
import { McpService } from '../mcp/McpService';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { ToolCatalog } from '../registry/ToolCatalog';
import { admitTool } from './admitTool';
import { createLocalResources, type LocalResources } from './createLocalResources';
import { WORKSPACE_MANAGED } from './mcpServerConfig';
import { confirmFolderLaunches } from './testing/confirmFolderLaunches';
import { operatorCaller } from '../../shared/caller';

const everythingScript = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

const everythingYaml = (include: string[], extra = '') => `# the reference server
apiVersion: orloj.dev/v1
kind: McpServer
metadata:
  name: everything
spec:
  transport: stdio
  command: ${JSON.stringify(process.execPath)}
  args: [${JSON.stringify(everythingScript)}, stdio]
  tool_filter:
    include: [${include.join(', ')}]
  reconnect: {max_attempts: 3, backoff: 100ms}
  default_tool_runtime:
    timeout: 20s
${extra}`;

const toolsYaml = `apiVersion: orloj.dev/v1
kind: Tool
metadata:
  name: long-running-operation
spec:
  type: mcp
  mcp_server_ref: everything
  mcp_tool_name: trigger-long-running-operation
  risk_level: medium
  operation_classes: [write]
  runtime: {timeout: 2m}
`;

const permissionsYaml = `apiVersion: orloj.dev/v1
kind: ToolPermission
metadata:
  name: everything-changes-need-approval
spec:
  tool_ref: everything--*
  operation_rules:
    - {operation_class: write, verdict: approval_required}
    - {operation_class: delete, verdict: deny}
`;

/** POSIX single quotes, as stdioLaunchLine writes an argument with spaces or quotes. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

describe('LocalReconciler against server-everything over stdio', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-local-data-'));
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-local-ws-'));
  const mcp = new McpService({ dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' }, connectTimeoutMs: 15_000, shutdownGraceMs: 500 });
  const catalog = new ToolCatalog();
  let resources: LocalResources;
  let sync: McpCatalogSync;
  let pipeline: InvocationPipeline;
  let policyChanges = 0;

  /** Resolves once `probe` holds, checked after every status change (the test timeout bounds the wait). */
  function until<T>(probe: () => T | undefined | false): Promise<T> {
    return new Promise((resolve) => {
      let done = false;
      const check = () => {
        const value = probe();
        if (done || !value) return;
        done = true;
        off();
        resolve(value);
      };
      const off = resources.reconciler.onChange(check);
      check();
    });
  }

  const server = (name: string) => resources.reconciler.statuses().mcpServers.find((s) => s.name === name);
  const pid = () => mcp.connection('everything')?.snapshot().pid;

  beforeAll(async () => {
    await mcp.init();
    // Left over by an earlier run whose resource is gone: removed at start.
    await mcp.save({ config: { name: 'stale', transport: 'stdio', command: process.execPath, description: WORKSPACE_MANAGED, enabled: false } as never });
    writeFileSync(join(workspaceDir, 'everything.yaml'), everythingYaml(['echo', 'get-sum', 'trigger-long-running-operation']));
    writeFileSync(join(workspaceDir, 'tools.yaml'), toolsYaml);
    writeFileSync(join(workspaceDir, 'permissions.yaml'), permissionsYaml);
    await confirmFolderLaunches(dataDir, workspaceDir);
    resources = await createLocalResources({ dataDir, mcp, logger: silentLogger, workspaceDir, resyncIntervalMs: 600_000 });
    sync = new McpCatalogSync(mcp, catalog, silentLogger, resources.toolConfig);
    resources.onPolicyChange(() => {
      policyChanges++;
      sync.resyncAll();
    });
    pipeline = new InvocationPipeline({ catalog, permissions: resources.permissions });
    await until(() => server('everything')?.status.phase === 'Ready');
  });

  afterAll(async () => {
    sync?.close();
    await resources?.close();
    await mcp.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspaceDir, { recursive: true, force: true });
  });

  it('makes the McpServer a live connection saved as workspace-managed, and removes managed servers whose resource is gone', async () => {
    await resources.reconciler.whenIdle();
    expect(mcp.configs().map((c) => c.name)).toEqual(['everything']);
    expect(mcp.configs()[0]).toMatchObject({ transport: 'stdio', command: process.execPath, args: [everythingScript, 'stdio'], description: 'managed by workspace', enabled: false });
    expect(mcp.connection('everything')?.state.status).toBe('ready');
    const { status, generation } = server('everything')!;
    expect(generation).toBe(1);
    expect(status).toMatchObject({ phase: 'Ready', observedGeneration: 1, attempts: 0 });
    expect(status.lastError).toBeUndefined();
    expect(status.discoveredTools).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation']));
    expect(Date.parse(status.lastSyncedAt!)).not.toBeNaN();
  });

  it('generates Tools named <server>--<tool> for what tool_filter.include lets through, shown with status and never written to the files', () => {
    const { generatedTools } = server('everything')!.status;
    expect([...generatedTools].sort()).toEqual(['everything--echo', 'everything--get-sum', 'everything--trigger-long-running-operation']);
    const tools = resources.reconciler.statuses().tools;
    const echo = tools.find((tool) => tool.name === 'everything--echo')!;
    expect(echo).toMatchObject({ generated: true, registryName: 'mcp:everything.echo', status: { phase: 'Ready' } });
    expect(echo.spec).toMatchObject({ type: 'mcp', mcp_server_ref: 'everything', mcp_tool_name: 'echo', risk_level: 'low', runtime: { timeout: '20s' } });
    expect(echo.spec?.description).toMatch(/echo/i);
    // The tool a Tool resource configures is listed once, under the resource's name.
    expect(tools.map((tool) => tool.name).sort()).toEqual(['everything--echo', 'everything--get-sum', 'long-running-operation']);
    expect(tools.find((tool) => tool.name === 'long-running-operation')).toMatchObject({ generated: false, status: { phase: 'Ready', message: 'configures mcp:everything.trigger-long-running-operation' } });
    expect(readFileSync(join(workspaceDir, 'everything.yaml'), 'utf8')).toBe(everythingYaml(['echo', 'get-sum', 'trigger-long-running-operation']));
  });

  it('gives registry entries the policy of Tool resources and the server default runtime; excludes what the filter leaves out', () => {
    const long = catalog.get('mcp:everything.trigger-long-running-operation')!;
    expect(long.policy).toEqual({ riskLevel: 'medium', operationClasses: ['write'], setBy: { riskLevel: true, operationClasses: true } });
    expect(long.runtime.timeoutMs).toBe(120_000);
    expect(catalog.get('mcp:everything.echo')!.runtime.timeoutMs).toBe(20_000);
    expect(resources.toolConfig('everything', { name: 'get-tiny-image' })).toMatchObject({ excluded: true });
    expect(resources.toolConfig('everything', { name: 'echo' })).toEqual({ config: { runtime: { timeout: '20s' } } });
    expect(resources.toolConfig('not-in-the-workspace', { name: 'echo' })).toBeUndefined();
  });

  it('turns ToolPermission resources into the pipeline permissions, and their verdicts apply to calls', async () => {
    expect(resources.permissions()).toEqual([
      {
        file: 'permissions.yaml',
        name: 'everything-changes-need-approval',
        toolRef: 'mcp:everything.*',
        operationRules: [
          { operationClass: 'write', verdict: 'confirm' },
          { operationClass: 'delete', verdict: 'deny' },
        ],
      },
    ]);
    expect(resources.reconciler.statuses().toolPermissions[0]).toMatchObject({ enforced: true, registryToolRef: 'mcp:everything.*', status: { phase: 'Ready' } });
    const held = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:everything.trigger-long-running-operation', arguments: { duration: 1, steps: 1 } });
    expect(held.verdict).toEqual({
      verdict: 'confirm',
      reasons: ['everything-changes-need-approval (permissions.yaml): write → approval_required'],
      rules: [{ name: 'everything-changes-need-approval', verdict: 'confirm', operationClass: 'write', file: 'permissions.yaml' }],
    });
    expect(held.record.status).toBe('denied');
    const echoed = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:everything.echo', arguments: { message: 'hi' } });
    expect(echoed.result?.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
  });

  it('re-applies an edited McpServer: new generation, new generated Tools, policy change, same process', async () => {
    const before = { pid: pid(), policyChanges };
    const file = resources.workspace.read('everything.yaml');
    await resources.workspace.edit({ path: 'everything.yaml', expectedVersion: file.version!, edits: [{ document: 0, path: ['spec', 'tool_filter', 'include'], value: ['echo', 'get-tiny-image'] }] });
    const status = await until(() => {
      const current = server('everything');
      return current?.status.observedGeneration === 2 && current.status.generatedTools.includes('everything--get-tiny-image') && current;
    });
    expect([...status.status.generatedTools].sort()).toEqual(['everything--echo', 'everything--get-tiny-image']);
    expect(resources.workspace.read('everything.yaml').text).toMatch(/^# the reference server\n/);
    expect(policyChanges).toBeGreaterThan(before.policyChanges);
    expect(resources.toolConfig('everything', { name: 'get-sum' })).toMatchObject({ excluded: true });
    expect(pid()).toBe(before.pid);
  });

  it('admits an excluded tool through resources.admitTool: the file gains it, the tool enters the registry, and calls go through the pipeline', async () => {
    expect(catalog.get('mcp:everything.get-sum')).toBeUndefined();
    expect(await admitTool(resources, { server: 'everything', tool: 'get-sum' })).toMatchObject({ file: 'everything.yaml', registryName: 'mcp:everything.get-sum' });
    expect(resources.workspace.read('everything.yaml').text).toMatch(/^# the reference server\n/);
    await until(() => server('everything')?.status.generatedTools.includes('everything--get-sum'));
    await vi.waitFor(() => expect(catalog.get('mcp:everything.get-sum')).toBeDefined(), { timeout: 10_000 });
    const summed = await pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:everything.get-sum', arguments: { a: 2, b: 3 } });
    expect(summed.verdict?.verdict).toBe('allow');
    expect(summed.record.status).toBe('ok');
    expect(JSON.stringify(summed.result?.content)).toContain('5');
  });

  it('keeps the last valid version applied while the file holds an invalid one, and says why', async () => {
    const before = pid();
    const file = resources.workspace.read('everything.yaml');
    await resources.workspace.save({ path: 'everything.yaml', text: file.text!.replace('backoff: 100ms', 'backoff: soon'), expectedVersion: file.version });
    const status = await until(() => server('everything')?.status.lastError?.includes('spec.reconnect.backoff') && server('everything')!.status);
    expect(status.lastError).toMatch(/^everything\.yaml:\d+:\d+: spec\.reconnect\.backoff: "soon" is not a duration.*\(the last valid version stays applied\)$/);
    expect(status.phase).toBe('Ready');
    expect(pid()).toBe(before);
    const fixed = resources.workspace.read('everything.yaml');
    await resources.workspace.save({ path: 'everything.yaml', text: fixed.text!.replace('backoff: soon', 'backoff: 100ms'), expectedVersion: fixed.version });
    await until(() => server('everything')?.status.lastError === undefined);
  });

  it('reconnects a server whose process died, per its reconnect policy', async () => {
    const before = pid()!;
    process.kill(before, 'SIGKILL');
    await until(() => server('everything')?.status.phase === 'Connecting' || pid() !== before);
    const status = await until(() => server('everything')?.status.phase === 'Ready' && pid() !== before && server('everything')!.status);
    expect(status.attempts).toBe(0);
    expect(mcp.connection('everything')?.state.status).toBe('ready');
  });

  it('puts a server in Error after max_attempts failed attempts, with the error and when it tries again', async () => {
    writeFileSync(
      join(workspaceDir, 'broken.yaml'),
      `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: broken}\nspec:\n  transport: stdio\n  command: ${JSON.stringify(process.execPath)}\n  args: [-e, "process.exit(3)"]\n  reconnect: {max_attempts: 2, backoff: 50ms}\n`,
    );
    // The test stands for the user here: the line is confirmed, as the console's confirm action would.
    await confirmFolderLaunches(resources.launchAllowList, workspaceDir);
    await resources.workspace.rescan();
    const status = await until(() => server('broken')?.status.phase === 'Error' && server('broken')!.status);
    expect(status.attempts).toBe(2);
    expect(status.lastError).toBeTruthy();
    expect(Date.parse(status.nextAttemptAt!) - Date.now()).toBeGreaterThan(60_000);
    expect(mcp.configs().find((c) => c.name === 'broken')).toMatchObject({ description: WORKSPACE_MANAGED });
  });

  it('does not take over a saved server of the same name that the workspace does not manage', async () => {
    await mcp.save({ config: { name: 'mine', transport: 'stdio', command: process.execPath, enabled: false } as never });
    writeFileSync(join(workspaceDir, 'mine.yaml'), `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: mine}\nspec: {transport: stdio, command: node}\n`);
    await resources.workspace.rescan();
    const status = await until(() => server('mine')?.status.phase === 'Error' && server('mine')!.status);
    expect(status.lastError).toBe('A server named "mine" is already saved and not managed by the workspace; rename the McpServer or remove that server.');
    expect(mcp.configs().find((c) => c.name === 'mine')?.description).toBeUndefined();
  });

  it('starts no stdio McpServer the folder gains after it was opened (a git pull, seen by the watcher) until its exact line is confirmed; then it starts', async () => {
    // Hand-written hostile folder content: one line that would leave a marker if it ever ran, and
    // the real server-everything under another name (its own line, not yet confirmed).
    const marker = join(mkdtempSync(join(tmpdir(), 'tooldeck-gained-')), 'ran');
    writeFileSync(
      join(workspaceDir, 'gained.yaml'),
      [
        `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: dropper}\nspec:\n  transport: stdio\n  command: \${node}\n  args: [-e, ${JSON.stringify(`require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`)}]\n`,
        `apiVersion: orloj.dev/v1\nkind: McpServer\nmetadata: {name: gained}\nspec:\n  transport: stdio\n  command: \${node}\n  args: ['\${module:@modelcontextprotocol/server-everything/dist/index.js}', stdio]\n  env: [{name: FROM, value: pull}]\n`,
      ].join('---\n'),
    );
    const dropperLine = `'\${node}' -e ${shellQuoted(`require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`)}`;
    const gainedLine = `FROM=pull '\${node}' '\${module:@modelcontextprotocol/server-everything/dist/index.js}' stdio`;
    // No rescan: the folder watcher picks the file up, as it would after a pull.
    const dropper = await until(() => server('dropper')?.status.phase === 'Error' && server('dropper')!.status);
    const gained = await until(() => server('gained')?.status.phase === 'Error' && server('gained')!.status);
    expect(dropper).toMatchObject({ lastError: `launch not confirmed: ${dropperLine}`, unconfirmedLaunch: dropperLine });
    expect(gained).toMatchObject({ lastError: `launch not confirmed: ${gainedLine}`, unconfirmedLaunch: gainedLine });
    expect(mcp.configs().map((c) => c.name)).not.toContain('gained');
    expect(mcp.configs().map((c) => c.name)).not.toContain('dropper');
    expect(mcp.connection('gained')).toBeUndefined();
    expect(existsSync(marker)).toBe(false);
    // A line the folder does not declare cannot be confirmed through the console.
    await expect(resources.confirmLaunches([`${gainedLine} --extra`])).rejects.toMatchObject({ code: 'InvalidInput' });
    await resources.confirmLaunches([gainedLine]);
    await until(() => server('gained')?.status.phase === 'Ready');
    expect(server('gained')!.status.unconfirmedLaunch).toBeUndefined();
    expect(server('gained')!.status.discoveredTools).toContain('echo');
    expect(server('dropper')!.status.phase).toBe('Error');
    expect(existsSync(marker)).toBe(false);
    rmSync(join(workspaceDir, 'gained.yaml'));
    await until(() => !mcp.configs().some((c) => c.name === 'gained') && !server('gained') && !server('dropper'));
  });

  it('starts no workspace-managed server the open folder does not declare with a confirmed line, whoever asks (a Connect click, a collection run)', async () => {
    // Left by an earlier run, as if saved for another folder: the open folder declares no "elsewhere".
    await mcp.save({ config: { name: 'elsewhere', transport: 'stdio', command: process.execPath, args: [everythingScript, 'stdio'], description: WORKSPACE_MANAGED, enabled: false } as never });
    await expect(mcp.connect('elsewhere')).rejects.toMatchObject({ code: 'PolicyDenied', step: 'confirm-launch', message: expect.stringContaining('is not a stdio McpServer of the open folder') });
    await expect(mcp.whenConnected('elsewhere')).rejects.toMatchObject({ code: 'PolicyDenied' });
    expect(mcp.connection('elsewhere')).toBeUndefined();
    // The folder's own confirmed server still connects on request.
    await mcp.whenConnected('everything');
    expect(mcp.connection('everything')?.state.status).toBe('ready');
    await mcp.remove('elsewhere');
  });

  it('removes the saved server, its connection and its generated Tools when the resource goes', async () => {
    rmSync(join(workspaceDir, 'broken.yaml'));
    rmSync(join(workspaceDir, 'everything.yaml'));
    await resources.workspace.rescan();
    await until(() => !mcp.configs().some((c) => c.name === 'everything' || c.name === 'broken'));
    expect(mcp.connection('everything')).toBeUndefined();
    expect(catalog.list({ source: 'mcp:everything' })).toEqual([]);
    const statuses = resources.reconciler.statuses();
    expect(statuses.mcpServers.map((s) => s.name)).toEqual(['mine']);
    expect(statuses.tools.map((t) => [t.name, t.status.phase, t.status.lastError])).toEqual([['long-running-operation', 'Error', 'No McpServer resource or saved server named "everything"']]);
  });
});
