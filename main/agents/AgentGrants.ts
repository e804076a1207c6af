import type { Caller } from '../../shared/caller';
import { permissionCovers } from '../../shared/policy';
import type { PolicyVerdict, ToolEntry } from '../../shared/registry';
import { DEFAULT_TOOLS_POLICY, type ClawPod, type ToolsPolicy } from '../../shared/resources/clawPod';
import { grantedTools, type HeldCheck, type ToolLookup } from '../registry/compile/compileToolsJson';
import type { ToolPermission } from '../registry/policy/ToolPermission';

/** A Language Operator LanguageAgent of the workspace: its name and the LanguageTools it references. */
export interface WorkspaceLanguageAgent {
  name: string;
  tools: readonly string[];
}

export interface AgentGrantsDeps {
  /** The live registry: only what can be called now is offered. */
  catalog: ToolLookup;
  /** The workspace's valid Clawdapus pod files. */
  pods: () => readonly ClawPod[];
  /** The workspace's Language Operator agents. */
  languageAgents: () => readonly WorkspaceLanguageAgent[];
  /** The workspace's Orloj ToolPermissions, read per call. */
  permissions: () => readonly ToolPermission[];
  /** The verdict for a caller, from the one effective policy. */
  verdict: (entry: ToolEntry, caller: Caller) => PolicyVerdict;
  /** Entries the definition lock holds for review or rejected: never offered. */
  held: HeldCheck;
}

/**
 * What an agent may call through the gateway: exactly what the workspace grants it, nothing by
 * default. Three upstream forms grant tools —
 * - Clawdapus: the agent's `x-claw.tools` in a pod file (with the pod's `tools-defaults`), resolved
 *   as `tooldeck compile --agent` resolves them;
 * - Orloj: a ToolPermission with `apply_mode: scoped` whose `target_agents` names the agent grants
 *   the tools its `tool_ref` covers (unless its every rule denies);
 * - Language Operator: a LanguageAgent's `spec.tools` grants each referenced tool server's tools.
 * Then the definition lock and the policy for that agent take away: a held definition or a `deny`
 * verdict is neither listed nor callable.
 */
export class AgentGrants {
  constructor(private readonly deps: AgentGrantsDeps) {}

  /** The entries `agent` may see and call right now, in registry order. */
  granted(agent: string, caller: Caller): ToolEntry[] {
    const names = new Set<string>();
    const { catalog } = this.deps;
    for (const pod of this.deps.pods()) {
      for (const declared of pod.agents) {
        if (declared.name !== agent) continue;
        try {
          for (const grant of grantedTools(declared, catalog, pod.defaults).grants) for (const entry of grant.granted) names.add(entry.name);
        } catch {
          // An ambiguous service name grants nothing until the pod file says which source it means.
        }
      }
    }
    const all = catalog.sources().flatMap((source) => catalog.list({ source: `${source.kind}:${source.name}` }));
    for (const permission of this.deps.permissions()) {
      if (!permission.targetAgents?.includes(agent)) continue;
      if (permission.operationRules.every((rule) => rule.verdict === 'deny')) continue;
      for (const entry of all) if (permissionCovers(permission, entry.name)) names.add(entry.name);
    }
    for (const languageAgent of this.deps.languageAgents()) {
      if (languageAgent.name !== agent) continue;
      for (const tool of languageAgent.tools) for (const entry of catalog.list({ source: `mcp:${tool}` })) names.add(entry.name);
    }
    return all.filter((entry) => names.has(entry.name) && this.deps.held(entry) === undefined && this.deps.verdict(entry, caller).verdict !== 'deny');
  }

  /**
   * The agent's Clawdapus `tools-policy` (cllama's defaults, then the pod's, then the agent's own),
   * from the first pod that declares the agent: its mediation budget and duplicate setting.
   */
  toolsPolicy(agent: string): ToolsPolicy {
    for (const pod of this.deps.pods()) {
      const declared = pod.agents.find((item) => item.name === agent);
      if (declared) return { ...DEFAULT_TOOLS_POLICY, ...pod.policy, ...declared.policy };
    }
    return DEFAULT_TOOLS_POLICY;
  }
}
