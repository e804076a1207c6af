import { stringify } from 'yaml';
import { AppError } from '../../../shared/errors';
import { httpService, resolveToolGrants, type AgentTools, type ServiceResolver, type ToolGrant } from './resolveToolGrants';

/**
 * The agent's `/etc/agent/config.yaml` in the Language Operator shape:
 * `tools: {<name>: {endpoint, protocol: mcp}}`, one entry per MCP server the agent is granted.
 * `endpoints` maps MCP server names to their URLs. Grants to other kinds of source are not MCP
 * servers and do not appear.
 */
export function compileAgentConfigYaml(agent: AgentTools, endpoints: Record<string, string>, defaults: readonly ToolGrant[] = [], resolveService: ServiceResolver = httpService): string {
  return stringify(agentConfig(agent, endpoints, defaults, resolveService));
}

/** The config as an object: `tools` maps each granted MCP server to its endpoint. */
export function agentConfig(
  agent: AgentTools,
  endpoints: Record<string, string>,
  defaults: readonly ToolGrant[] = [],
  resolveService: ServiceResolver = httpService,
  /** Servers deliberately left out (held for review): not an error, unlike a server without an endpoint. */
  withheld: ReadonlySet<string> = new Set(),
): { tools: Record<string, { endpoint: string; protocol: 'mcp' }> } {
  const tools: Record<string, { endpoint: string; protocol: 'mcp' }> = {};
  const missing: string[] = [];
  const servers = [...resolveToolGrants(agent, defaults, resolveService).keys()].filter((source) => source.startsWith('mcp:')).map((source) => source.slice(4));
  for (const server of servers.sort()) {
    if (withheld.has(server)) continue;
    const endpoint = endpoints[server];
    if (endpoint) tools[server] = { endpoint, protocol: 'mcp' };
    else missing.push(server);
  }
  if (missing.length > 0) {
    throw new AppError('NotFound', `Cannot write config.yaml for ${agent.name}: no endpoint known for ${missing.join(', ')}.`);
  }
  return { tools };
}
