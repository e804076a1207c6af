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
import { compileToolsJson, grantedTools, type ToolLookup } from './compileToolsJson';
import { serviceResolverFor } from './resolveToolGrants';

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
    return this.agents().map((entry) => summarize(entry, tools, endpoints));
  }

  async compile(ref: string, format: CompileFormat): Promise<CompiledAgentFile> {
    const entry = this.find(ref);
    const [tools, endpoints] = await Promise.all([this.deps.tools(), this.deps.endpoints()]);
    const { text, toolCount } = compileOne(entry, format, tools, endpoints);
    return { ref: entry.ref, format, defaultPath: defaultPath(entry.agent.name, format), text, toolCount };
  }

  /** Writes each format to `.claw-runtime/context/<agent>/` (Clawdapus's layout); one failing format does not stop the others. */
  async write(ref: string, formats: readonly CompileFormat[]): Promise<WrittenAgentFiles> {
    const entry = this.find(ref);
    const [tools, endpoints] = await Promise.all([this.deps.tools(), this.deps.endpoints()]);
    const result: WrittenAgentFiles = { written: [], failed: [] };
    for (const format of formats) {
      let text: string;
      try {
        text = compileOne(entry, format, tools, endpoints).text;
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

function compileOne(entry: AgentInPod, format: CompileFormat, tools: ToolLookup, endpoints: Record<string, string>): { text: string; toolCount: number } {
  const { agent, pod } = entry;
  if (format === 'tools.json') {
    const manifest = compileToolsJson(agent, tools, pod.pod.defaults, { policy: policyOf(entry), endpoints });
    return { text: `${JSON.stringify(manifest, null, 2)}\n`, toolCount: manifest.tools.length };
  }
  const mcpEndpoints = Object.fromEntries(Object.entries(endpoints).flatMap(([id, url]) => (id.startsWith('mcp:') ? [[id.slice(4), url]] : [])));
  const config = agentConfig(agent, mcpEndpoints, pod.pod.defaults, serviceResolverFor(tools.sources()));
  // For config.yaml the count is of MCP servers, each an entry of its `tools:` map.
  return { text: stringify(config), toolCount: Object.keys(config.tools).length };
}

function summarize(entry: AgentInPod, tools: ToolLookup, endpoints: Record<string, string>): AgentSummary {
  const { agent, pod } = entry;
  let resolved: ReturnType<typeof grantedTools> = { grants: [], problems: [] };
  try {
    resolved = grantedTools(agent, tools, pod.pod.defaults);
  } catch (error) {
    // An ambiguous service name: nothing resolves until the grant says which source it means.
    resolved.problems.push((error as Error).message);
  }
  const grants: AgentGrantView[] = resolved.grants.map((grant) => ({ source: grant.source, allow: grant.allow, available: grant.available.length, granted: grant.granted.length }));
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
    withheld: resolved.grants.flatMap((grant) => grant.withheld),
  };
}

/** A registry view for compiling: the live catalog, with cached discoveries standing in for sources it lacks. */
export function lookupWithFallback(live: ToolLookup, cached: ReadonlyArray<{ source: ToolSource; entries: ToolEntry[] }>): ToolLookup {
  const liveSources = new Set(live.sources().map(sourceId));
  const extra = cached.filter((item) => !liveSources.has(sourceId(item.source)) && item.entries.length > 0);
  return {
    ...(live.withheld ? { withheld: live.withheld.bind(live) } : {}),
    sources: () => [...live.sources(), ...extra.map((item) => item.source)],
    list: (filter) => {
      const fromCache = extra.find((item) => sourceId(item.source) === filter.source);
      return fromCache ? fromCache.entries : live.list(filter);
    },
  };
}
