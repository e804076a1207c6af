import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { AgentGrantView, AgentSummary, CompiledAgentFile, CompileFormat, WrittenAgentFiles } from '../../../shared/agentTools';
import { AppError, isAppError } from '../../../shared/errors';
import { sourceId, type ToolSource } from '../../../shared/invocation';
import type { ToolEntry } from '../../../shared/registry';
import { DEFAULT_TOOLS_POLICY, INHERIT_DEFAULTS, type ClawAgent, type ClawPod, type ToolsPolicy } from '../../../shared/resources/clawPod';
import { writeFileAtomic } from '../../platform/atomicWrite';
import { agentConfig } from './compileAgentConfigYaml';
import { compileToolsJson, grantedTools, type HeldCheck, type ToolLookup } from './compileToolsJson';
import { resolveToolGrants, serviceResolverFor } from './resolveToolGrants';

/** A valid pod file of the workspace. */
export interface WorkspacePod {
  file: string;
  pod: ClawPod;
}

export interface AgentToolAccessDeps {
  /** The valid pod files of the workspace, read per call so edits show up at once. */
  pods: () => WorkspacePod[];
  /** The registry as compiling sees it: live entries plus what disconnected servers last listed. */
  tools: () => Promise<ToolLookup>;
  /** Network endpoints of MCP servers and A2A agents, by source id (`mcp:search` → URL). */
  endpoints: () => Promise<Record<string, string>>;
  /** The workspace folder: written files go under its `.claw-runtime/` (which the workspace does not scan). */
  workspaceDir: () => string;
  /** Entries whose definitions the lockfile holds for review: kept out of tools.json, and their MCP servers out of config.yaml. */
  held?: HeldCheck;
}

interface AgentInPod {
  pod: WorkspacePod;
  agent: ClawAgent;
  ref: string;
}

/**
 * Agents' tool access (Clawdapus): the agents of the workspace's pod files, what their grants
 * resolve to in the registry, and their compiled tools.json and config.yaml.
 */
export class AgentToolAccess {
  constructor(private readonly deps: AgentToolAccessDeps) {}

  async list(): Promise<AgentSummary[]> {
    const [tools, endpoints] = await Promise.all([this.deps.tools(), this.deps.endpoints()]);
    return this.agents().map((entry) => summarize(entry, tools, endpoints, this.deps.held));
  }

  async compile(ref: string, format: CompileFormat): Promise<CompiledAgentFile> {
    const entry = this.find(ref);
    const [tools, endpoints] = await Promise.all([this.deps.tools(), this.deps.endpoints()]);
    const { text, toolCount, withheld } = compileOne(entry, format, tools, endpoints, this.deps.held);
    return { ref: entry.ref, format, defaultPath: defaultPath(entry.agent.name, format), text, toolCount, withheld };
  }

  /** Writes each format to `.claw-runtime/context/<agent>/` (Clawdapus's layout); one failing format does not stop the others. */
  async write(ref: string, formats: readonly CompileFormat[]): Promise<WrittenAgentFiles> {
    const entry = this.find(ref);
    const [tools, endpoints] = await Promise.all([this.deps.tools(), this.deps.endpoints()]);
    const result: WrittenAgentFiles = { written: [], failed: [] };
    for (const format of formats) {
      let text: string;
      try {
        text = compileOne(entry, format, tools, endpoints, this.deps.held).text;
      } catch (error) {
        if (!isAppError(error)) throw error;
        result.failed.push({ format, message: error.message });
        continue;
      }
      const path = join(this.deps.workspaceDir(), defaultPath(entry.agent.name, format));
      await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
      // tools.json may name token variables but never holds a token; 0600 all the same, as claw up does.
      await writeFileAtomic(path, text, 0o600);
      result.written.push({ format, path });
    }
    return result;
  }

  /** `<agent>` when only one pod has it, or `<pod>/<agent>`. */
  private find(ref: string): AgentInPod {
    const agents = this.agents();
    const exact = agents.find((entry) => entry.ref === ref);
    if (exact) return exact;
    const byName = agents.filter((entry) => entry.agent.name === ref);
    if (byName.length === 1) return byName[0]!;
    if (byName.length > 1) throw new AppError('InvalidInput', `Agent ${ref} is in several pods; name one of ${byName.map((entry) => entry.ref).join(', ')}.`);
    const known = agents.map((entry) => entry.ref);
    throw new AppError('NotFound', `No agent ${ref} in the workspace's pod files${known.length ? `; agents: ${known.join(', ')}` : ' (declare agents in a claw-pod.yml)'}.`);
  }

  private agents(): AgentInPod[] {
    return this.deps.pods().flatMap((pod) => pod.pod.agents.map((agent) => ({ pod, agent, ref: `${pod.pod.pod}/${agent.name}` })));
  }
}

export function defaultPath(agent: string, format: CompileFormat): string {
  return `.claw-runtime/context/${agent}/${format}`;
}

function policyOf({ pod, agent }: AgentInPod): ToolsPolicy {
  return { ...DEFAULT_TOOLS_POLICY, ...pod.pod.policy, ...agent.policy };
}

function compileOne(
  entry: AgentInPod,
  format: CompileFormat,
  tools: ToolLookup,
  endpoints: Record<string, string>,
  held: HeldCheck | undefined,
): { text: string; toolCount: number; withheld: CompiledAgentFile['withheld'] } {
  const { agent, pod } = entry;
  if (format === 'tools.json') {
    const manifest = compileToolsJson(agent, tools, pod.pod.defaults, { policy: policyOf(entry), endpoints, held });
    let withheld: CompiledAgentFile['withheld'] = [];
    try {
      withheld = grantedTools(agent, tools, pod.pod.defaults, held).grants.flatMap((grant) => grant.held.map((item) => ({ name: item.entry.name, reason: item.reason })));
    } catch {
      // Ambiguous grants already failed compileToolsJson above.
    }
    return { text: `${JSON.stringify(manifest, null, 2)}\n`, toolCount: manifest.tools.length, withheld };
  }
  // config.yaml hands the agent a server's endpoint, and with it every tool of the server: a server
  // with any tool held for review is left out until its definitions are approved.
  const withheld: CompiledAgentFile['withheld'] = [];
  const mcpEndpoints = Object.fromEntries(
    Object.entries(endpoints).flatMap(([id, url]) => {
      if (!id.startsWith('mcp:')) return [];
      const heldTools = held ? tools.list({ source: id }).filter((tool) => held(tool) !== undefined) : [];
      if (heldTools.length) {
        withheld.push({ name: id, reason: `${heldTools.length} of its tools (${heldTools.map((tool) => tool.toolName).join(', ')}) are held for review in tooldeck.lock` });
        return [];
      }
      return [[id.slice(4), url]];
    }),
  );
  const granted = [...resolveGrantedServers(agent, pod.pod.defaults, tools)];
  const config = agentConfig(agent, mcpEndpoints, pod.pod.defaults, serviceResolverFor(tools.sources()), new Set(withheld.map((item) => item.name.slice(4))));
  // For config.yaml the count is of MCP servers, each an entry of its `tools:` map.
  return { text: stringify(config), toolCount: Object.keys(config.tools).length, withheld: withheld.filter((item) => granted.includes(item.name)) };
}

/** The MCP sources the agent's grants name. */
function resolveGrantedServers(agent: ClawAgent, defaults: ClawPod['defaults'], tools: ToolLookup): Set<string> {
  try {
    return new Set([...resolveToolGrants(agent, defaults, serviceResolverFor(tools.sources())).keys()].filter((source) => source.startsWith('mcp:')));
  } catch {
    return new Set();
  }
}

function summarize(entry: AgentInPod, tools: ToolLookup, endpoints: Record<string, string>, held: HeldCheck | undefined): AgentSummary {
  const { agent, pod } = entry;
  let resolved: ReturnType<typeof grantedTools> = { grants: [], problems: [] };
  try {
    resolved = grantedTools(agent, tools, pod.pod.defaults, held);
  } catch (error) {
    // An ambiguous service name: nothing resolves until the grant says which source it means.
    resolved.problems.push((error as Error).message);
  }
  const grants: AgentGrantView[] = resolved.grants.map((grant) => ({
    source: grant.source,
    allow: grant.allow,
    available: grant.available.length,
    granted: grant.granted.length,
    held: grant.held.map((item) => ({ tool: item.entry.toolName, reason: item.reason })),
  }));
  return {
    ref: entry.ref,
    name: agent.name,
    pod: pod.pod.pod,
    file: pod.file,
    ...(agent.cllama ? { cllama: agent.cllama } : {}),
    declares: agent.tools === undefined ? 'defaults' : agent.tools.includes(INHERIT_DEFAULTS) ? 'ownAndDefaults' : 'own',
    grants,
    toolCount: grants.reduce((sum, grant) => sum + grant.granted, 0),
    policy: policyOf(entry),
    problems: resolved.problems,
    withoutEndpoint: grants.map((grant) => grant.source).filter((source) => source.startsWith('mcp:') && !endpoints[source]),
  };
}

/** A registry view for compiling: the live catalog, with cached discoveries standing in for sources it lacks. */
export function lookupWithFallback(live: ToolLookup, cached: ReadonlyArray<{ source: ToolSource; entries: ToolEntry[] }>): ToolLookup {
  const liveSources = new Set(live.sources().map(sourceId));
  const extra = cached.filter((item) => !liveSources.has(sourceId(item.source)) && item.entries.length > 0);
  return {
    sources: () => [...live.sources(), ...extra.map((item) => item.source)],
    list: (filter) => {
      const fromCache = extra.find((item) => sourceId(item.source) === filter.source);
      return fromCache ? fromCache.entries : live.list(filter);
    },
  };
}
