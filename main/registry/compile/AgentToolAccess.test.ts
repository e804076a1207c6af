import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ToolSource } from '../../../shared/invocation';
import type { ClawPod } from '../../../shared/resources/clawPod';
import { parseResourceText } from '../../resources/parseResourceText';
import { createToolEntry } from '../createToolEntry';
import { FakeExecutor } from '../testing/FakeExecutor';
import { httpToolEntries } from '../../http/httpToolEntries';
import { loadClawDescriptor } from '../../http/loadClawDescriptor';
import { ToolCatalog } from '../ToolCatalog';
import { AgentToolAccess, lookupWithFallback, type WorkspacePod } from './AgentToolAccess';

const exampleDescriptor = fileURLToPath(new URL('../../http/testing/trading-api.claw-describe.json', import.meta.url));
const memory: ToolSource = { kind: 'mcp', name: 'mem0-memory' };
const catalog = new ToolCatalog();

/** Clawdapus's pod-level defaults example, plus an agent on the defaults and one with an MCP server. */
const POD = `x-claw:
  pod: trading-desk
  tools-defaults:
    - service: trading-api
      allow:
        - get_market_context
  tools-policy:
    max_rounds: 6
services:
  analyst:
    x-claw:
      cllama: passthrough
      tools:
        - ...
        - service: trading-api
          allow:
            - execute_trade
  watcher:
    x-claw:
      cllama: passthrough
  assistant:
    x-claw:
      cllama: passthrough
      tools:
        - service: mem0-memory
          allow: [recall]
      tools-policy:
        max_rounds: 2
`;

function podsOf(text: string, file = 'desk.claw-pod.yml'): WorkspacePod[] {
  return parseResourceText(text, { fileName: file }).map((doc) => ({ file, pod: doc.stored as ClawPod }));
}

const workspaceDir = mkdtempSync(join(tmpdir(), 'tooldeck-agent-tools-'));
let pods = podsOf(POD);
const access = new AgentToolAccess({
  pods: () => pods,
  tools: async () => catalog,
  endpoints: async () => ({ 'mcp:mem0-memory': 'http://mem0-memory.language-operator-myapp.svc.cluster.local:8080' }),
  workspaceDir: () => workspaceDir,
});

beforeAll(async () => {
  const { descriptor } = await loadClawDescriptor(exampleDescriptor);
  catalog.replaceSource({ kind: 'http', name: 'trading-api' }, httpToolEntries(descriptor, { service: 'trading-api', baseUrl: 'http://trading-api:4000' }), new FakeExecutor());
  catalog.replaceSource(memory, [createToolEntry({ source: memory, tool: { name: 'recall' } }), createToolEntry({ source: memory, tool: { name: 'remember' } })], new FakeExecutor());
});

describe('AgentToolAccess (Clawdapus agents of the workspace)', () => {
  it('lists every agent with what its grants resolve to in the registry', async () => {
    const agents = await access.list();
    expect(agents.map((agent) => [agent.ref, agent.declares, agent.toolCount, agent.problems])).toEqual([
      ['trading-desk/analyst', 'ownAndDefaults', 2, []],
      ['trading-desk/watcher', 'defaults', 1, []],
      ['trading-desk/assistant', 'own', 1, []],
    ]);
    expect(agents[2]!.grants).toEqual([{ source: 'mcp:mem0-memory', allow: ['recall'], available: 2, granted: 1, held: [] }]);
    expect(agents[0]!.policy).toEqual({ max_rounds: 6, timeout_per_tool_ms: 30_000, total_timeout_ms: 120_000, max_tool_result_bytes: 16_384 });
    expect(agents[2]!.policy.max_rounds).toBe(2);
  });

  it('compiles tools.json: service names resolve to MCP servers too, and the agent budget wins over the pod one', async () => {
    const compiled = await access.compile('assistant', 'tools.json');
    const manifest = JSON.parse(compiled.text);
    expect(compiled.defaultPath).toBe('.claw-runtime/context/assistant/tools.json');
    expect(manifest.tools.map((tool: { name: string }) => tool.name)).toEqual(['mem0-memory.recall']);
    expect(manifest.tools[0].execution).toEqual({ transport: 'mcp', service: 'mem0-memory', base_url: 'http://mem0-memory.language-operator-myapp.svc.cluster.local:8080', tool: 'recall' });
    expect(manifest.policy.max_rounds).toBe(2);
    const analyst = JSON.parse((await access.compile('trading-desk/analyst', 'tools.json')).text);
    expect(analyst.tools.map((tool: { name: string }) => tool.name)).toEqual(['trading-api.execute_trade', 'trading-api.get_market_context']);
  });

  it('compiles config.yaml in the Language Operator shape with only the MCP servers granted', async () => {
    const compiled = await access.compile('assistant', 'config.yaml');
    expect(parse(compiled.text)).toEqual({ tools: { 'mem0-memory': { endpoint: 'http://mem0-memory.language-operator-myapp.svc.cluster.local:8080', protocol: 'mcp' } } });
    expect(compiled.toolCount).toBe(1);
    expect(parse((await access.compile('analyst', 'config.yaml')).text)).toEqual({ tools: {} });
  });

  it('writes both files under .claw-runtime/context/<agent>/, owner-only', async () => {
    const result = await access.write('analyst', ['tools.json', 'config.yaml']);
    expect(result.failed).toEqual([]);
    expect(result.written.map((file) => file.path)).toEqual([
      join(workspaceDir, '.claw-runtime/context/analyst/tools.json'),
      join(workspaceDir, '.claw-runtime/context/analyst/config.yaml'),
    ]);
    expect(JSON.parse(readFileSync(result.written[0]!.path, 'utf8')).version).toBe(1);
    expect(statSync(result.written[0]!.path).mode & 0o777).toBe(0o600);
  });

  it('names unknown agents, ambiguous names and tools the registry does not have', async () => {
    await expect(access.compile('nobody', 'tools.json')).rejects.toThrow(
      'No agent nobody in the workspace\'s pod files; agents: trading-desk/analyst, trading-desk/watcher, trading-desk/assistant.',
    );
    pods = [...podsOf(POD), ...podsOf('services:\n  analyst:\n    x-claw:\n      cllama: passthrough\n', 'lab.claw-pod.yml')];
    await expect(access.compile('analyst', 'tools.json')).rejects.toThrow('Agent analyst is in several pods; name one of trading-desk/analyst, lab/analyst.');
    pods = podsOf('services:\n  typo:\n    x-claw:\n      cllama: passthrough\n      tools:\n        - service: trading-api\n          allow: [get_market_contxt]\n');
    const [typo] = await access.list();
    expect(typo!.problems).toEqual(['http:trading-api has no tool get_market_contxt']);
    await expect(access.compile('typo', 'tools.json')).rejects.toThrow('http:trading-api has no tool get_market_contxt');
    const written = await access.write('typo', ['config.yaml', 'tools.json']);
    expect(written.written.map((file) => file.format)).toEqual(['config.yaml']);
    expect(written.failed).toEqual([{ format: 'tools.json', message: expect.stringContaining('has no tool get_market_contxt') }]);
    pods = podsOf(POD);
  });

  it('lets a cached discovery stand in for a source the live registry lacks, never over a live one', () => {
    const github: ToolSource = { kind: 'mcp', name: 'github' };
    const view = lookupWithFallback(catalog, [
      { source: github, entries: [createToolEntry({ source: github, tool: { name: 'create_issue' } })] },
      { source: memory, entries: [createToolEntry({ source: memory, tool: { name: 'stale' } })] },
    ]);
    expect(view.list({ source: 'mcp:github' }).map((entry) => entry.toolName)).toEqual(['create_issue']);
    expect(view.list({ source: 'mcp:mem0-memory' }).map((entry) => entry.toolName)).toEqual(['recall', 'remember']);
    expect(view.sources().map((source) => `${source.kind}:${source.name}`)).toContain('mcp:github');
  });

  it('leaves tools held for review out of tools.json, and their MCP server out of config.yaml, naming each', async () => {
    const held = new AgentToolAccess({
      pods: () => podsOf(POD),
      tools: async () => catalog,
      endpoints: async () => ({ 'mcp:mem0-memory': 'http://mem0-memory:8080' }),
      workspaceDir: () => workspaceDir,
      held: (entry) => (entry.name === 'mcp:mem0-memory.remember' ? 'held for review: it is new since tooldeck.lock approved mcp:mem0-memory' : entry.name === 'http:trading-api.execute_trade' ? 'rejected' : undefined),
    });
    const [analyst, , assistant] = await held.list();
    expect(analyst!.grants.find((grant) => grant.source === 'http:trading-api')).toMatchObject({ granted: 1, held: [{ tool: 'execute_trade', reason: 'rejected' }] });
    const tools = await held.compile('analyst', 'tools.json');
    expect(JSON.parse(tools.text).tools.map((tool: { name: string }) => tool.name)).toEqual(['trading-api.get_market_context']);
    expect(tools.withheld).toEqual([{ name: 'http:trading-api.execute_trade', reason: 'rejected' }]);
    // recall is approved and granted, but config.yaml would hand the agent the whole server, remember included.
    expect(assistant!.grants[0]).toMatchObject({ granted: 1, held: [] });
    const config = await held.compile('assistant', 'config.yaml');
    expect(parse(config.text)).toEqual({ tools: {} });
    expect(config.withheld).toEqual([{ name: 'mcp:mem0-memory', reason: '1 of its tools (remember) are held for review in tooldeck.lock' }]);
  });
});
