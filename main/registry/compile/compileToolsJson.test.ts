import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ToolSource } from '../../../shared/invocation';
import { createToolEntry } from '../createToolEntry';
import { FakeExecutor } from '../testing/FakeExecutor';
import { httpToolEntries } from '../../http/httpToolEntries';
import { loadClawDescriptor } from '../../http/loadClawDescriptor';
import { ToolCatalog } from '../ToolCatalog';
import { compileToolsJson, DEFAULT_TOOLS_POLICY } from './compileToolsJson';
import { resolveToolGrants, type ToolGrant } from './resolveToolGrants';

const seedDescriptor = fileURLToPath(new URL('../../http/testing/trading-api.claw-describe.json', import.meta.url));
const catalog = new ToolCatalog();
const memory: ToolSource = { kind: 'mcp', name: 'mem0-memory' };

beforeAll(async () => {
  const { descriptor } = await loadClawDescriptor(seedDescriptor);
  catalog.replaceSource({ kind: 'http', name: 'trading-api' }, httpToolEntries(descriptor, { service: 'trading-api', baseUrl: 'http://trading-api:4000' }), new FakeExecutor());
  catalog.replaceSource(
    memory,
    [
      createToolEntry({ source: memory, tool: { name: 'remember', description: 'Store information in long-term memory', inputSchema: { type: 'object', required: ['content'] } } }),
      createToolEntry({ source: memory, tool: { name: 'recall', annotations: { readOnlyHint: true, idempotentHint: true } } }),
    ],
    new FakeExecutor(),
  );
});

const names = (manifest: { tools: Array<{ name: string }> }) => manifest.tools.map((tool) => tool.name);

describe('compileToolsJson (Clawdapus tools.json)', () => {
  it('compiles the documented Clawdapus example field by field', () => {
    const manifest = compileToolsJson({ name: 'analyst', tools: [{ service: 'trading-api', allow: ['get_market_context'] }] }, catalog, [], {
      tokens: { 'trading-api': 'resolved-token-value' },
    });
    expect(manifest.version).toBe(1);
    expect(manifest.tools).toHaveLength(1);
    const [tool] = manifest.tools;
    expect(tool!.name).toBe('trading-api.get_market_context');
    expect(tool!.description).toBe('Retrieve agent-scoped market context: positions, balance, buying power');
    expect(tool!.inputSchema).toEqual({
      type: 'object',
      properties: { claw_id: { type: 'string', description: 'Agent identifier' } },
      required: ['claw_id'],
    });
    expect(tool!.annotations).toEqual({ readOnly: true });
    expect(tool!.execution).toEqual({
      transport: 'http',
      service: 'trading-api',
      base_url: 'http://trading-api:4000',
      method: 'GET',
      path: '/api/v1/market_context/{claw_id}',
      auth: { type: 'bearer', token: 'resolved-token-value' },
    });
    expect(manifest.policy).toEqual({ max_rounds: 8, timeout_per_tool_ms: 30_000, total_timeout_ms: 120_000, max_tool_result_bytes: 16_384 });
  });

  it('names the token variable instead of writing a token it was not given', () => {
    const manifest = compileToolsJson({ name: 'executor', tools: [{ service: 'trading-api', allow: ['execute_trade'] }] }, catalog);
    expect(manifest.tools[0]!.execution).toEqual({
      transport: 'http',
      service: 'trading-api',
      base_url: 'http://trading-api:4000',
      method: 'POST',
      path: '/api/v1/trades',
      auth: { type: 'bearer', env: 'TRADING_API_TOKEN' },
    });
    expect(manifest.tools[0]!.annotations).toEqual({ readOnly: false });
  });

  it('exposes no tools unless the agent declares them (deny by default)', () => {
    expect(compileToolsJson({ name: 'quiet' }, catalog).tools).toEqual([]);
    expect(compileToolsJson({ name: 'quiet', tools: [] }, catalog, [{ service: 'trading-api', allow: 'all' }]).tools).toEqual([]);
  });

  it('inherits the workspace defaults when the agent says nothing, and extends them with ...', () => {
    const defaults: ToolGrant[] = [{ service: 'trading-api', allow: ['get_market_context'] }];
    expect(names(compileToolsJson({ name: 'analyst' }, catalog, defaults))).toEqual(['trading-api.get_market_context']);
    expect(names(compileToolsJson({ name: 'analyst', tools: ['...', { service: 'trading-api', allow: ['execute_trade'] }] }, catalog, defaults))).toEqual([
      'trading-api.execute_trade',
      'trading-api.get_market_context',
    ]);
    expect(names(compileToolsJson({ name: 'analyst', tools: [{ source: 'mcp:mem0-memory', allow: ['recall'] }] }, catalog, defaults))).toEqual([
      'mem0-memory.recall',
    ]);
  });

  it('lets allow: all win over a name list for the same source', () => {
    const manifest = compileToolsJson(
      { name: 'executor', tools: [{ service: 'trading-api', allow: ['get_market_context'] }, { source: 'http:trading-api', allow: 'all' }] },
      catalog,
    );
    expect(names(manifest)).toEqual(['trading-api.execute_trade', 'trading-api.get_market_context']);
  });

  it('describes MCP tools with their server and endpoint, and keeps schemas and annotations', () => {
    const manifest = compileToolsJson({ name: 'assistant', tools: [{ source: 'mcp:mem0-memory', allow: 'all' }] }, catalog, [], {
      endpoints: { 'mcp:mem0-memory': 'http://mem0-memory.language-operator-myapp.svc.cluster.local:8080' },
      policy: { max_rounds: 4 },
    });
    expect(manifest.tools).toEqual([
      {
        name: 'mem0-memory.recall',
        inputSchema: { type: 'object' },
        annotations: { readOnly: true, idempotent: true },
        execution: { transport: 'mcp', service: 'mem0-memory', base_url: 'http://mem0-memory.language-operator-myapp.svc.cluster.local:8080', tool: 'recall' },
      },
      {
        name: 'mem0-memory.remember',
        description: 'Store information in long-term memory',
        inputSchema: { type: 'object', required: ['content'] },
        execution: { transport: 'mcp', service: 'mem0-memory', base_url: 'http://mem0-memory.language-operator-myapp.svc.cluster.local:8080', tool: 'remember' },
      },
    ]);
    expect(manifest.policy).toEqual({ ...DEFAULT_TOOLS_POLICY, max_rounds: 4 });
  });

  it('refuses grants for tools or sources the registry does not have', () => {
    expect(() => compileToolsJson({ name: 'analyst', tools: [{ service: 'trading-api', allow: ['get_market_contxt'] }, { service: 'crm', allow: 'all' }] }, catalog)).toThrow(
      'Cannot compile tools.json for analyst: http:trading-api has no tool get_market_contxt; http:crm has no tools in the registry.',
    );
  });
});

describe('resolveToolGrants', () => {
  it('merges grants per source: all wins, names are unioned', () => {
    const grants = resolveToolGrants(
      { name: 'a', tools: [{ source: 'mcp:x', allow: ['one'] }, '...', { source: 'mcp:x', allow: ['two'] }, { service: 'y', allow: ['p'] }] },
      [{ source: 'mcp:x', allow: ['one', 'three'] }, { service: 'y', allow: 'all' }],
    );
    expect(grants).toEqual(new Map<string, unknown>([['mcp:x', new Set(['one', 'three', 'two'])], ['http:y', 'all']]));
  });
});
