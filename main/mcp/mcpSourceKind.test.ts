import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { ToolCatalog } from '../registry/ToolCatalog';
import { McpService } from './McpService';
import { McpSourceKind } from './mcpSourceKind';

/** The MCP adapter over McpService, against server-everything over stdio. */
describe('MCP servers as a source kind', () => {
  const service = new McpService({ dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-mcp-kind-')), secretStore: new MemorySecretStore(), logger: silentLogger, clientInfo: { name: 'tooldeck-test', version: '0.0.0' }, connectTimeoutMs: 15_000 });
  const catalog = new ToolCatalog();
  // What the workspace's Tool resources would say: here, which tools a tool_filter leaves out.
  const excluded = new Set<string>();
  const policyListeners = new Set<() => void>();
  const policyChanged = () => policyListeners.forEach((listener) => listener());
  let kind: McpSourceKind;

  beforeAll(async () => {
    await service.init();
    // Saved switched off: nothing connects until a call names it.
    await service.save({ config: { ...everythingStdio(), enabled: false } as never });
    await service.save({ config: { name: 'remote', transport: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false } as never });
    kind = new McpSourceKind({
      service,
      catalog,
      logger: silentLogger,
      configured: (_server, tool) => (excluded.has(tool.name) ? { excluded: true } : undefined),
      onPolicyChange: (listener) => {
        policyListeners.add(listener);
        return () => policyListeners.delete(listener);
      },
    });
  });
  afterAll(() => kind?.close());

  it('prepares a saved server by connecting it: its tools are registry entries once listed', async () => {
    expect(catalog.list({ source: 'mcp:everything' })).toEqual([]);
    await kind.prepare('everything');
    expect(catalog.get('mcp:everything.echo')).toBeDefined();
    await expect(kind.prepare('nowhere')).rejects.toMatchObject({ code: 'NotFound', message: 'No saved server named "nowhere"' });
  });

  it('keeps saved servers (switched-off ones when asked), lasting; only a server over HTTP has an endpoint', async () => {
    expect(await kind.savedSources({})).toEqual([]);
    expect([...(await kind.savedSources({ disabled: true }))].sort()).toEqual(['everything', 'remote']);
    expect(await kind.endpoints()).toEqual({ remote: 'http://127.0.0.1:9/mcp' });
    expect(kind.lasting('everything')).toBe(true);
    expect(kind.lasting('one-off')).toBe(false);
  });

  it('derives the entries again when policy resources change, until it is closed', async () => {
    await kind.prepare('everything');
    excluded.add('echo');
    policyChanged();
    expect(catalog.get('mcp:everything.echo')).toBeUndefined();
    expect(catalog.get('mcp:everything.get-sum')).toBeDefined();
    await kind.close();
    expect(policyListeners.size).toBe(0);
  });
});
