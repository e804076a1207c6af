import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentCaller } from '../../shared/caller';
import type { ToolSource } from '../../shared/invocation';
import type { ToolPermission } from '../../shared/policy';
import type { ClawPod } from '../../shared/resources/clawPod';
import { gatewayServer } from '../gateway/GatewayMcpServer';
import { createToolEntry } from '../registry/createToolEntry';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { EffectivePolicy } from '../registry/policy/EffectivePolicy';
import { FakeExecutor } from '../registry/testing/FakeExecutor';
import { ToolCatalog } from '../registry/ToolCatalog';
import { AgentGrants, type WorkspaceLanguageAgent } from './AgentGrants';
import { AgentTraffic } from './AgentTraffic';

/**
 * One property over random Clawdapus pod files, scoped Orloj ToolPermissions and Language
 * Operator LanguageAgents: for every agent, the tools a door offers (the gateway's MCP
 * `tools/list`) and the tools the pipeline accepts from it (its grants stage) are exactly the
 * resolver's set, which equals an independent reading of the three upstream forms, and every tool
 * in it says where it is granted.
 */
const SOURCES: Record<string, { kind: ToolSource['kind']; tools: string[] }> = {
  files: { kind: 'mcp', tools: ['read_file', 'write_file', 'delete_file'] },
  db: { kind: 'mcp', tools: ['query', 'migrate'] },
  hid: { kind: 'grpc', tools: ['mirror'] },
};
const AGENTS = ['ana', 'bo', 'cy'];
const allNames = Object.entries(SOURCES).flatMap(([source, { kind, tools }]) => tools.map((tool) => `${kind}:${source}.${tool}`));

const grantArb = fc.record({
  service: fc.constantFrom(...Object.keys(SOURCES)),
  allow: fc.oneof(fc.constant('all' as const), fc.subarray(['read_file', 'write_file', 'delete_file', 'query', 'migrate', 'mirror'])),
});
const podArb = fc.record({
  defaults: fc.array(grantArb, { maxLength: 2 }),
  agents: fc.uniqueArray(
    fc.record({ name: fc.constantFrom(...AGENTS), tools: fc.option(fc.array(fc.oneof(grantArb, fc.constant('...' as const)), { maxLength: 3 }), { nil: undefined }) }),
    { selector: (agent) => agent.name, maxLength: 3 },
  ),
});
const permissionArb = fc.record({
  toolRef: fc.constantFrom('mcp:files.*', 'mcp:db.query', 'grpc:hid.*', 'mcp:*', ...allNames),
  targetAgents: fc.option(fc.subarray(AGENTS, { minLength: 1 }), { nil: undefined }),
  verdicts: fc.array(fc.constantFrom('allow' as const, 'confirm' as const, 'deny' as const), { minLength: 1, maxLength: 2 }),
});
const languageAgentArb = fc.record({ name: fc.constantFrom(...AGENTS), tools: fc.subarray(['files', 'db']) });

type Arbitrary<T> = T extends fc.Arbitrary<infer V> ? V : never;
type Pod = Arbitrary<typeof podArb>;
type Permission = Arbitrary<typeof permissionArb>;

/** The three upstream forms read independently of the resolver: the expected grants of `agent`. */
function expectedGrants(agent: string, pods: Pod[], permissions: Permission[], languageAgents: WorkspaceLanguageAgent[]): Set<string> {
  const names = new Set<string>();
  const grantNames = (grant: { service: string; allow: 'all' | string[] }) => {
    const { kind, tools } = SOURCES[grant.service]!;
    return tools.filter((tool) => grant.allow === 'all' || grant.allow.includes(tool)).map((tool) => `${kind}:${grant.service}.${tool}`);
  };
  for (const pod of pods) {
    const declared = pod.agents.find((item) => item.name === agent);
    if (!declared) continue;
    const items = declared.tools === undefined ? pod.defaults : declared.tools.flatMap((item) => (item === '...' ? pod.defaults : [item]));
    for (const item of items) for (const name of grantNames(item)) names.add(name);
  }
  for (const permission of permissions) {
    if (!permission.targetAgents?.includes(agent) || permission.verdicts.every((verdict) => verdict === 'deny')) continue;
    const prefix = permission.toolRef.endsWith('*') ? permission.toolRef.slice(0, -1) : undefined;
    for (const name of allNames) if (prefix !== undefined ? name.startsWith(prefix) : name === permission.toolRef) names.add(name);
  }
  for (const languageAgent of languageAgents) {
    if (languageAgent.name !== agent) continue;
    for (const tool of languageAgent.tools) for (const name of grantNames({ service: tool, allow: 'all' })) names.add(name);
  }
  return names;
}

describe('the tools every door offers and accepts for an agent are exactly the resolver’s set', () => {
  it('holds for random pod files, scoped ToolPermissions and LanguageAgents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(podArb, { maxLength: 2 }), fc.array(permissionArb, { maxLength: 3 }), fc.array(languageAgentArb, { maxLength: 2 }), async (pods, rawPermissions, languageAgents) => {
        const catalog = new ToolCatalog();
        const executor = new FakeExecutor(() => ({ content: [{ type: 'text', text: 'ran' }] }));
        for (const [name, { kind, tools }] of Object.entries(SOURCES)) {
          const source: ToolSource = { kind, name };
          catalog.replaceSource(source, tools.map((tool) => createToolEntry({ source, tool: { name: tool } })), executor);
        }
        const permissions: ToolPermission[] = rawPermissions.map((permission, index) => ({
          name: `p${index}`,
          file: 'permissions.yaml',
          toolRef: permission.toolRef,
          ...(permission.targetAgents ? { targetAgents: permission.targetAgents } : {}),
          operationRules: permission.verdicts.map((verdict) => ({ operationClass: '*' as const, verdict })),
        }));
        const policy = new EffectivePolicy({ permissions: () => permissions });
        const grants = new AgentGrants({
          catalog,
          pods: () => pods.map((pod, index) => ({ file: `pod-${index}.claw-pod.yml`, pod: { pod: `pod${index}`, ...pod } as unknown as ClawPod })),
          languageAgents: () => languageAgents.map((agent) => ({ ...agent, file: 'agent.yaml' })),
          permissions: () => permissions,
          verdict: (entry, caller) => policy.verdict(entry, caller),
          held: () => undefined,
        });
        const pipeline = new InvocationPipeline({ catalog, policy, grants: (agent, entry) => grants.isGranted(agent, entry.name) });

        for (const agent of AGENTS) {
          const expected = expectedGrants(agent, pods, rawPermissions, languageAgents);
          const resolved = grants.grants(agent);
          expect(new Set(resolved.map((grant) => grant.entry.name))).toEqual(expected);
          for (const grant of resolved) expect(grant.grantedBy.length).toBeGreaterThan(0);

          // The pipeline's grants stage, which every door's calls pass: refused exactly outside the set.
          for (const name of allNames) {
            const outcome = await pipeline.invoke({ caller: agentCaller(agent, 'bus'), name, confirmed: true });
            expect(outcome.error?.message === `Policy denies ${name}: not granted to ${agent}.`, name).toBe(!expected.has(name));
          }

          // The gateway's MCP face lists the set, less what policy denies the agent.
          const offered = new Set(grants.granted(agent, agentCaller(agent, 'gateway')).map((entry) => entry.name));
          const server = gatewayServer({ grants, invoke: () => Promise.reject(new Error('not called')), traffic: new AgentTraffic(), serverInfo: { name: 'tooldeck-gateway', version: '0' } }, { agent, sessionId: 's', gone: new AbortController().signal });
          const client = new Client({ name: 'agent', version: '1' });
          const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
          await server.connect(serverSide);
          await client.connect(clientSide);
          const listed = (await client.listTools()).tools.map((tool) => tool.name);
          await client.close();
          await server.close();
          expect(new Set(listed)).toEqual(new Set([...offered].map((name) => name.slice(name.indexOf(':') + 1))));
          for (const name of offered) expect(expected.has(name)).toBe(true);
          for (const name of expected) {
            const entry = catalog.get(name)!;
            expect(offered.has(name)).toBe(policy.verdict(entry, agentCaller(agent, 'gateway')).verdict !== 'deny');
          }
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
