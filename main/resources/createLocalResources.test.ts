import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpService } from '../mcp/McpService';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { createLocalResources, type LocalResources } from './createLocalResources';

const exampleDir = join(import.meta.dirname, '../../examples/workspace');
const opened: Array<{ resources: LocalResources; mcp: McpService }> = [];

async function start(dataDir: string, options: { manageServers?: boolean } = {}) {
  const mcp = new McpService({ dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0' } });
  await mcp.init();
  const resources = await createLocalResources({ dataDir, mcp, logger: silentLogger, examplesDir: exampleDir, watch: false, ...options });
  opened.push({ resources, mcp });
  return { resources, mcp };
}

afterEach(async () => {
  for (const { resources, mcp } of opened.splice(0)) {
    await resources.close();
    await mcp.close();
  }
});

describe('createLocalResources', () => {
  it('with manageServers off (one-shot CLI commands) applies policy and permissions but starts and saves no server', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-local-off-'));
    const { resources, mcp } = await start(dataDir, { manageServers: false });
    expect(mcp.configs()).toEqual([]);
    expect(resources.permissions().map((p) => p.toolRef)).toEqual(['mcp:everything.*', 'mcp:everything.get-tiny-image']);
    expect(resources.toolConfig('everything', { name: 'trigger-long-running-operation' })?.config).toMatchObject({ risk_level: 'medium', operation_classes: ['write'] });
    expect(resources.reconciler.statuses().mcpServers[0]).toMatchObject({ name: 'everything', status: { phase: 'Pending', observedGeneration: 0 } });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('falls back to the default folder when the folder opened last is gone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-local-gone-'));
    const gone = mkdtempSync(join(tmpdir(), 'tooldeck-local-gone-ws-'));
    writeFileSync(join(dataDir, 'resources.json'), JSON.stringify({ workspaceDir: gone }));
    rmSync(gone, { recursive: true });
    const { resources } = await start(dataDir, { manageServers: false });
    expect(resources.workspace.dir).toBe(join(dataDir, 'workspace'));
    expect(existsSync(join(dataDir, 'workspace', 'everything.yaml'))).toBe(true);
    rmSync(dataDir, { recursive: true, force: true });
  });
});
