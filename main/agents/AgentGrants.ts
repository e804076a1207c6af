import type { GrantOrigin } from '../../shared/agents';
import type { Caller } from '../../shared/caller';
import { permissionCovers } from '../../shared/policy';
import type { PolicyVerdict, ToolEntry } from '../../shared/registry';
import { DEFAULT_TOOLS_POLICY, INHERIT_DEFAULTS, type ClawPod, type ToolsPolicy } from '../../shared/resources/clawPod';
import { grantedTools, type ToolLookup } from '../registry/compile/compileToolsJson';
import { serviceResolverFor } from '../registry/compile/resolveToolGrants';
import type { ToolPermission } from '../registry/policy/ToolPermission';

/** A Language Operator LanguageAgent: its name and the LanguageTools it references; `file` is where it is written (`cluster:<ns>/<name>` for a cluster's). */
export interface WorkspaceLanguageAgent {
  name: string;
  tools: readonly string[];
  file?: string;
  /** A cluster agent's model grants (its `tooldeck.dev/models` annotation). */
  models?: readonly string[];
}

/** A Clawdapus pod file of the workspace. */
export interface GrantingPod {
  file: string;
  pod: ClawPod;
}

export interface AgentGrantsDeps {
  /** The live registry: only what can be called now is granted. */
  catalog: ToolLookup;
  /** The workspace's valid Clawdapus pod files. */
  pods: () => readonly GrantingPod[];
  /** The Language Operator agents (the workspace's, or a cluster's). */
  languageAgents: () => readonly WorkspaceLanguageAgent[];
  /** The Orloj ToolPermissions that may grant (scoped ones with `target_agents`). */
  permissions: () => readonly ToolPermission[];
  /** The verdict for a caller, from the one effective policy. */
  verdict: (entry: ToolEntry, caller: Caller) => PolicyVerdict;
  /** Entries the definition lock holds for review or rejected: never offered. */
  held: (entry: ToolEntry) => string | undefined;
}

/** One granted tool and every place that grants it. */
export interface AgentGrant {
  entry: ToolEntry;
  grantedBy: GrantOrigin[];
}

/**
 * What an agent may call, for every door (the MCP gateway, mediation, RockBot's bus): exactly what
 * the workspace grants it, nothing by default, each tool with *where* it is granted. Three upstream
 * forms grant tools —
 * - Clawdapus: the agent's `x-claw.tools` in a pod file (with the pod's `tools-defaults`), resolved
 *   as `tooldeck compile --agent` resolves them;
 * - Orloj: a ToolPermission with `apply_mode: scoped` whose `target_agents` names the agent grants
 *   the tools its `tool_ref` covers (unless its every rule denies);
 * - Language Operator: a LanguageAgent's `spec.tools` grants each referenced tool server's tools.
 *
 * `isGranted` is the pipeline's grants stage (an ungranted tool is refused before policy, and again
 * when a held call's decision arrives); `offered` is what a door lists: the grants less what the
 * definition lock holds and what policy denies that agent. Resolution walks the registry, so it is
 * kept per agent until `invalidate` (the core calls it on every change of the catalog, the
 * workspace, the policy, the lock or a cluster's agents).
 */
export class AgentGrants {
  private readonly resolved = new Map<string, Map<string, AgentGrant>>();
  /** What each door offers, per agent and door: a door lists and looks up on every call, so it is kept until `invalidate`. */
  private readonly offered = new Map<string, ToolEntry[]>();

  constructor(private readonly deps: AgentGrantsDeps) {}

  /** Forgets every resolution: what grants may have changed. */
  invalidate(): void {
    this.resolved.clear();
    this.offered.clear();
  }

  /** Every tool granted to `agent`, in registry order, each with its grants (held or denied ones included). */
  grants(agent: string): AgentGrant[] {
    return [...this.resolve(agent).values()];
  }

  /** Whether `agent` is granted the registry entry `name` (the pipeline's grants stage). */
  isGranted(agent: string, name: string): boolean {
    return this.resolve(agent).has(name);
  }

  /** What a door offers `agent`: its grants less held definitions and what policy denies it. */
  granted(agent: string, caller: Caller): ToolEntry[] {
    const key = `${caller.via}\u0000${agent}`;
    let entries = this.offered.get(key);
    if (!entries) {
      entries = this.grants(agent)
        .map((grant) => grant.entry)
        .filter((entry) => this.deps.held(entry) === undefined && this.deps.verdict(entry, caller).verdict !== 'deny');
      this.offered.set(key, entries);
    }
    return entries;
  }

  /** Why a granted tool is not offered: held by the lock, or denied by policy; undefined when it is offered. */
  withheld(entry: ToolEntry, caller: Caller): string | undefined {
    const held = this.deps.held(entry);
    if (held !== undefined) return `held by tooldeck.lock: ${held}`;
    const verdict = this.deps.verdict(entry, caller);
    return verdict.verdict === 'deny' ? `policy denies it: ${verdict.reasons.join('; ')}` : undefined;
  }

  /**
   * The MCP sources whose resources and prompts `agent` may read through the gateway: a pod grant
   * with `resources: true` / `prompts: true` (Tooldeck's extension of Clawdapus's grant). Nothing
   * by default, and a LanguageAgent or ToolPermission grants tools only.
   */
  sourceFeatures(agent: string): Map<string, { resources: boolean; prompts: boolean }> {
    const features = new Map<string, { resources: boolean; prompts: boolean }>();
    const resolveService = serviceResolverFor(this.deps.catalog.sources());
    for (const { pod } of this.deps.pods()) {
      for (const declared of pod.agents) {
        if (declared.name !== agent) continue;
        const items = declared.tools === undefined ? pod.defaults : declared.tools.flatMap((item) => (item === INHERIT_DEFAULTS ? pod.defaults : [item]));
        for (const item of items) {
          if (!item.resources && !item.prompts) continue;
          let source: string;
          try {
            source = item.source ?? resolveService(item.service ?? '');
          } catch {
            continue; // An ambiguous service name grants nothing until the pod file says which source it means.
          }
          if (!source.startsWith('mcp:')) continue;
          const current = features.get(source) ?? { resources: false, prompts: false };
          features.set(source, { resources: current.resources || item.resources === true, prompts: current.prompts || item.prompts === true });
        }
      }
    }
    return features;
  }

  /** Every agent name a grant names (pod files, scoped ToolPermissions, LanguageAgents), sorted. */
  agentNames(): string[] {
    const names = new Set<string>();
    for (const { pod } of this.deps.pods()) for (const agent of pod.agents) names.add(agent.name);
    for (const permission of this.deps.permissions()) for (const agent of permission.targetAgents ?? []) names.add(agent);
    for (const agent of this.deps.languageAgents()) names.add(agent.name);
    return [...names].sort();
  }

  /**
   * The agent's Clawdapus `tools-policy` (cllama's defaults, then the pod's, then the agent's own),
   * from the first pod that declares the agent: its mediation budget and duplicate setting.
   */
  toolsPolicy(agent: string): ToolsPolicy {
    for (const { pod } of this.deps.pods()) {
      const declared = pod.agents.find((item) => item.name === agent);
      if (declared) return { ...DEFAULT_TOOLS_POLICY, ...pod.policy, ...declared.policy };
    }
    return DEFAULT_TOOLS_POLICY;
  }

  private resolve(agent: string): Map<string, AgentGrant> {
    const known = this.resolved.get(agent);
    if (known) return known;
    const origins = new Map<string, GrantOrigin[]>();
    const grant = (name: string, origin: GrantOrigin) => {
      const list = origins.get(name);
      if (list) list.push(origin);
      else origins.set(name, [origin]);
    };
    const { catalog } = this.deps;
    for (const { file, pod } of this.deps.pods()) {
      for (const declared of pod.agents) {
        if (declared.name !== agent) continue;
        let resolved: ReturnType<typeof grantedTools>;
        try {
          resolved = grantedTools(declared, catalog, pod.defaults);
        } catch {
          // An ambiguous service name grants nothing until the pod file says which source it means.
          continue;
        }
        const inherited = declared.tools === undefined ? ' (the pod’s tools-defaults)' : '';
        for (const item of resolved.grants) {
          const rule = `services.${agent}.x-claw.tools: ${item.source} allow ${item.allow === 'all' ? 'all' : `[${item.allow.join(', ')}]`}${inherited}`;
          for (const entry of item.granted) grant(entry.name, { kind: 'ClawPod', file, rule });
        }
      }
    }
    const all = catalog.sources().flatMap((source) => catalog.list({ source: `${source.kind}:${source.name}` }));
    for (const permission of this.deps.permissions()) {
      if (!permission.targetAgents?.includes(agent)) continue;
      if (permission.operationRules.every((rule) => rule.verdict === 'deny')) continue;
      const rule = `ToolPermission ${permission.name}: tool_ref ${permission.toolRef}, target_agents [${permission.targetAgents.join(', ')}]`;
      for (const entry of all) if (permissionCovers(permission, entry.name)) grant(entry.name, { kind: 'ToolPermission', ...(permission.file ? { file: permission.file } : {}), rule });
    }
    for (const languageAgent of this.deps.languageAgents()) {
      if (languageAgent.name !== agent) continue;
      for (const tool of languageAgent.tools) {
        const rule = `LanguageAgent ${languageAgent.name}: spec.tools ${tool}`;
        for (const entry of catalog.list({ source: `mcp:${tool}` })) grant(entry.name, { kind: 'LanguageAgent', ...(languageAgent.file ? { file: languageAgent.file } : {}), rule });
      }
    }
    const result = new Map<string, AgentGrant>();
    for (const entry of all) {
      const grantedBy = origins.get(entry.name);
      if (grantedBy) result.set(entry.name, { entry, grantedBy });
    }
    this.resolved.set(agent, result);
    return result;
  }
}
