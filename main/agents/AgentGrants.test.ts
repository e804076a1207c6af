import { describe, expect, it } from 'vitest';
import { agentCaller } from '../../shared/caller';
import type { ToolSource } from '../../shared/invocation';
import type { ClawPod } from '../../shared/resources/clawPod';
import { createToolEntry } from '../registry/createToolEntry';
import { EffectivePolicy } from '../registry/policy/EffectivePolicy';
import type { ToolPermission } from '../registry/policy/ToolPermission';
import { ToolCatalog } from '../registry/ToolCatalog';
import { AgentGrants, type WorkspaceLanguageAgent } from './AgentGrants';

const files: ToolSource = { kind: 'mcp', name: 'files' };
const hid: ToolSource = { kind: 'grpc', name: 'hid' };
const noop = { execute: async () => ({ content: [] }) };

function setup(options: { pods?: ClawPod[]; permissions?: ToolPermission[]; languageAgents?: WorkspaceLanguageAgent[]; held?: string[] } = {}) {
  const catalog = new ToolCatalog();
  catalog.replaceSource(files, ['read_file', 'write_file', 'delete_file'].map((name) => createToolEntry({ source: files, tool: { name } })), noop);
  catalog.replaceSource(hid, [createToolEntry({ source: hid, tool: { name: 'mirror' } })], noop);
  const policy = new EffectivePolicy({ permissions: () => options.permissions ?? [] });
  return new AgentGrants({
    catalog,
    pods: () => (options.pods ?? []).map((pod, index) => ({ file: `pod-${index}.yml`, pod })),
    languageAgents: () => options.languageAgents ?? [],
    permissions: () => options.permissions ?? [],
    verdict: (entry, caller) => policy.verdict(entry, caller),
    held: (entry) => (options.held?.includes(entry.name) ? 'held for review' : undefined),
  });
}

const granted = (grants: AgentGrants, agent: string) => grants.granted(agent, agentCaller(agent, 'gateway')).map((entry) => entry.name).sort();

const pod = (agents: ClawPod['agents'], defaults: ClawPod['defaults'] = []): ClawPod => ({ pod: 'p', agents, defaults }) as unknown as ClawPod;

describe('AgentGrants: what an agent may call through any door', () => {
  it('grants nothing by default', () => {
    expect(granted(setup(), 'anyone')).toEqual([]);
    expect(granted(setup({ pods: [pod([{ name: 'other', tools: [{ service: 'files', allow: 'all' }] } as never])] }), 'anyone')).toEqual([]);
  });

  it('a Clawdapus pod grants what the agent’s x-claw.tools allow', () => {
    const grants = setup({ pods: [pod([{ name: 'writer', tools: [{ service: 'files', allow: ['read_file', 'write_file'] }] } as never])] });
    expect(granted(grants, 'writer')).toEqual(['mcp:files.read_file', 'mcp:files.write_file']);
  });

  it('an Orloj ToolPermission scoped to the agent grants what its tool_ref covers, unless every rule denies', () => {
    const grants = setup({
      permissions: [
        { name: 'hid-for-bot', toolRef: 'grpc:hid.*', targetAgents: ['bot'], operationRules: [{ operationClass: '*', verdict: 'allow' }] },
        { name: 'no-deletes', toolRef: 'mcp:files.delete_file', targetAgents: ['bot'], operationRules: [{ operationClass: '*', verdict: 'deny' }] },
      ],
    });
    expect(granted(grants, 'bot')).toEqual(['grpc:hid.mirror']);
    expect(granted(grants, 'other')).toEqual([]);
  });

  it('a Language Operator LanguageAgent grants every tool of the servers it references', () => {
    expect(granted(setup({ languageAgents: [{ name: 'assistant', tools: ['files'] }] }), 'assistant')).toEqual(['mcp:files.delete_file', 'mcp:files.read_file', 'mcp:files.write_file']);
  });

  it('takes away what the definition lock holds and what the policy denies for that agent', () => {
    const grants = setup({
      languageAgents: [{ name: 'assistant', tools: ['files'] }],
      held: ['mcp:files.write_file'],
      permissions: [{ name: 'assistant-no-delete', toolRef: 'mcp:files.delete_file', targetAgents: ['assistant'], operationRules: [{ operationClass: '*', verdict: 'deny' }] }],
    });
    expect(granted(grants, 'assistant')).toEqual(['mcp:files.read_file']);
  });

  it('keeps where each tool is granted: the file, the kind and the rule, every one of them', () => {
    const grants = setup({
      pods: [pod([{ name: 'assistant', tools: [{ service: 'files', allow: ['read_file'] }] } as never])],
      permissions: [{ name: 'hid-for-assistant', file: 'permissions.yaml', toolRef: 'grpc:hid.*', targetAgents: ['assistant'], operationRules: [{ operationClass: '*', verdict: 'allow' }] }],
      languageAgents: [{ name: 'assistant', tools: ['files'], file: 'agent.yaml' }],
    });
    const byName = new Map(grants.grants('assistant').map((grant) => [grant.entry.name, grant.grantedBy]));
    expect(byName.get('mcp:files.read_file')).toEqual([
      { kind: 'ClawPod', file: 'pod-0.yml', rule: 'services.assistant.x-claw.tools: mcp:files allow [read_file]' },
      { kind: 'LanguageAgent', file: 'agent.yaml', rule: 'LanguageAgent assistant: spec.tools files' },
    ]);
    expect(byName.get('mcp:files.write_file')).toEqual([{ kind: 'LanguageAgent', file: 'agent.yaml', rule: 'LanguageAgent assistant: spec.tools files' }]);
    expect(byName.get('grpc:hid.mirror')).toEqual([{ kind: 'ToolPermission', file: 'permissions.yaml', rule: 'ToolPermission hid-for-assistant: tool_ref grpc:hid.*, target_agents [assistant]' }]);
    expect(grants.isGranted('assistant', 'mcp:files.delete_file')).toBe(true);
    expect(grants.isGranted('someone-else', 'mcp:files.read_file')).toBe(false);
    expect(grants.agentNames()).toEqual(['assistant']);
  });
});

describe('AgentGrants: resources and prompts of an MCP server', () => {
  it('are granted only where a pod grant says so (deny by default), never by a LanguageAgent or a ToolPermission', () => {
    const grants = setup({
      pods: [
        pod([
          { name: 'reader', tools: [{ service: 'files', allow: ['read_file'], resources: true }] },
          { name: 'writer', tools: [{ service: 'files', allow: 'all' }] },
          { name: 'both', tools: ['...'] },
        ] as never, [{ service: 'files', allow: ['read_file'], resources: true, prompts: true }] as never),
      ],
      languageAgents: [{ name: 'writer', tools: ['files'] }],
    });
    expect([...grants.sourceFeatures('reader')]).toEqual([['mcp:files', { resources: true, prompts: false }]]);
    expect([...grants.sourceFeatures('writer')]).toEqual([]);
    expect([...grants.sourceFeatures('both')]).toEqual([['mcp:files', { resources: true, prompts: true }]]);
    expect([...grants.sourceFeatures('nobody')]).toEqual([]);
  });
});
