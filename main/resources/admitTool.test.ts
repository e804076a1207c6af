import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpService } from '../mcp/McpService';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createResourcesRouter } from '../rpc/resourcesRouter';
import { createCallerFactory, type RpcContext } from '../rpc/trpc';
import { createLocalResources, type LocalResources } from './createLocalResources';
import { operatorCaller } from '../../shared/caller';

const everythingYaml = `# The reference server.
apiVersion: orloj.dev/v1
kind: McpServer
metadata:
  name: everything # the saved server's name
spec:
  transport: stdio
  command: node
  # Only these tools become registry entries.
  tool_filter:
    include:
      - echo # the first one
      # sums are fine too
      - get-sum
  reconnect:
    max_attempts: 3 # then Error
`;

const notesYaml = `apiVersion: orloj.dev/v1
kind: Tool
metadata: {name: notes-search}
spec: {type: mcp, mcp_server_ref: notes, mcp_tool_name: search}
---
# notes, with a flow list
apiVersion: orloj.dev/v1
kind: McpServer
metadata: {name: notes}
spec: {transport: http, endpoint: "http://127.0.0.1:9/mcp", tool_filter: {include: [search]}}
`;

const openYaml = `apiVersion: orloj.dev/v1
kind: McpServer
metadata:
  name: open # no filter: every tool is in the registry
spec:
  transport: stdio
  command: node
`;

describe('resources.admitTool on a real workspace folder', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-admit-data-'));
  const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-admit-ws-'));
  const mcp = new McpService({ dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' } });
  let resources: LocalResources;
  // The resources router needs no core; only fromBrowser is read from the context.
  const rpc = (context: Partial<RpcContext> = {}) => createCallerFactory(createResourcesRouter(() => resources))({ core: undefined as never, caller: operatorCaller('ui'), ...context });
  const onDisk = (file: string) => readFileSync(join(workspaceDir, file), 'utf8');
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { code?: string; cause?: { code?: string; message?: string; retryable?: boolean; step?: string } }) => ({
        trpc: error.code,
        code: error.cause?.code,
        message: error.cause?.message,
        retryable: error.cause?.retryable,
        step: error.cause?.step,
      }),
    );

  beforeAll(async () => {
    writeFileSync(join(workspaceDir, 'everything.yaml'), everythingYaml);
    writeFileSync(join(workspaceDir, 'notes.yaml'), notesYaml);
    writeFileSync(join(workspaceDir, 'open.yaml'), openYaml);
    await mcp.init();
    // No server is started: the mutation only edits the file; the reconciler test shows it taking effect.
    resources = await createLocalResources({ dataDir, mcp, logger: silentLogger, workspaceDir, watch: false, manageServers: false });
  });

  afterAll(async () => {
    await resources?.close();
    await mcp.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspaceDir, { recursive: true, force: true });
  });

  it('appends the tool to tool_filter.include in the file, keeping every comment, and the workspace sees the new list', async () => {
    expect(resources.toolConfig('everything', { name: 'get-tiny-image' })).toMatchObject({ excluded: true });
    const result = await rpc().admitTool({ server: 'everything', tool: 'get-tiny-image' });
    expect(result).toEqual({ file: 'everything.yaml', version: expect.any(String), registryName: 'mcp:everything.get-tiny-image' });
    expect(onDisk('everything.yaml')).toBe(everythingYaml.replace('      - get-sum\n', '      - get-sum\n      - get-tiny-image\n'));
    expect(resources.workspace.read('everything.yaml').version).toBe(result.version);
    const stored = resources.workspace.documents().find((doc) => doc.identity?.name === 'everything')?.stored as { spec: { tool_filter: { include: string[] } } };
    expect(stored.spec.tool_filter.include).toEqual(['echo', 'get-sum', 'get-tiny-image']);
    // The workspace changed, so the reconciler's view of the filter did too.
    expect(resources.toolConfig('everything', { name: 'get-tiny-image' })?.excluded).toBeUndefined();
  });

  it('refuses a tool the list already has, and leaves the file as it is', async () => {
    const before = onDisk('everything.yaml');
    for (const tool of ['get-tiny-image', 'echo']) {
      expect(await refusal(rpc().admitTool({ server: 'everything', tool }))).toEqual({
        trpc: 'CONFLICT',
        code: 'AlreadyExists',
        message: `${tool} is already in tool_filter.include of the McpServer everything in everything.yaml.`,
        retryable: false,
        step: undefined,
      });
    }
    expect(onDisk('everything.yaml')).toBe(before);
  });

  it('edits only the McpServer document of a multi-document file, in its flow style', async () => {
    await rpc().admitTool({ server: 'notes', tool: 'create' });
    const [tool, server] = onDisk('notes.yaml').split('---\n');
    expect(`${tool}`).toBe(notesYaml.split('---\n')[0]);
    expect(server).toContain('# notes, with a flow list');
    expect(server).toContain('tool_filter: {include: [search, create]}}');
  });

  it('refuses a server without tool_filter.include (nothing is excluded), and a server the workspace does not declare', async () => {
    expect(await refusal(rpc().admitTool({ server: 'open', tool: 'anything' }))).toMatchObject({
      trpc: 'BAD_REQUEST',
      code: 'InvalidInput',
      message: expect.stringMatching(/^The McpServer open in open\.yaml has no tool_filter\.include list, so it leaves none of its tools out of the registry/),
    });
    expect(onDisk('open.yaml')).toBe(openYaml);
    expect(await refusal(rpc().admitTool({ server: 'saved-one', tool: 'echo' }))).toMatchObject({
      trpc: 'BAD_REQUEST',
      code: 'InvalidInput',
      message: 'saved-one is not an McpServer of the workspace, so no tool_filter keeps its tools out of the registry; tools of saved servers are all in it already.',
    });
  });

  it('never overwrites an outside edit the workspace has not read yet: a conflict, and the edit on disk stays', async () => {
    const outside = `${onDisk('everything.yaml')}# edited elsewhere\n`;
    writeFileSync(join(workspaceDir, 'everything.yaml'), outside);
    expect(await refusal(rpc().admitTool({ server: 'everything', tool: 'print-env' }))).toMatchObject({ trpc: 'CONFLICT', code: 'AlreadyExists', step: 'conflict' });
    expect(onDisk('everything.yaml')).toBe(outside);
    // Once the workspace has read it (the watcher does this in the app), admitting works on the new text.
    await resources.workspace.rescan();
    await rpc().admitTool({ server: 'everything', tool: 'print-env' });
    expect(onDisk('everything.yaml')).toMatch(/ {6}- get-tiny-image\n {6}- print-env\n[\s\S]*# edited elsewhere\n$/);
  });
});
