import { AppError } from '../../../shared/errors';
import { sourceId, type ToolSource } from '../../../shared/invocation';
import type { ToolGrant, ToolGrantItem } from '../../../shared/resources/clawPod';

export type { ToolGrant, ToolGrantItem };

/** Maps a grant's `service` name to a registry source id. */
export type ServiceResolver = (service: string) => string;

/** Clawdapus's services are HTTP services: without a registry to look in, `service: x` means `http:x`. */
export const httpService: ServiceResolver = (service) => `http:${service}`;

/**
 * Looks a service up among the registry's sources by name, whatever their kind (an MCP server
 * wrapped as a pod service is a service too). Two kinds of source with the name: the grant must
 * say which with `source:`. None: Clawdapus's reading, an HTTP service.
 */
export function serviceResolverFor(sources: readonly ToolSource[]): ServiceResolver {
  return (service) => {
    const matches = [...new Set(sources.filter((source) => source.name === service).map(sourceId))];
    if (matches.length > 1) {
      throw new AppError('InvalidInput', `service: ${service} is ambiguous (${matches.join(', ')}); write source: ${matches[0]} instead.`);
    }
    return matches[0] ?? httpService(service);
  };
}

export interface AgentTools {
  name: string;
  /** Omitted: the workspace defaults apply. Declared: replaces them, unless it contains `...`. */
  tools?: ToolGrantItem[];
}

/** Per source id: every tool, or the named ones. */
export type ResolvedGrants = Map<string, 'all' | Set<string>>;

/**
 * Clawdapus: no tools unless declared (deny by default); the agent's list replaces the defaults
 * except where `...` splices them in; after that, grants are merged per source — `all` wins,
 * otherwise names are unioned.
 */
export function resolveToolGrants(agent: AgentTools, defaults: readonly ToolGrant[] = [], resolveService: ServiceResolver = httpService): ResolvedGrants {
  const items = agent.tools === undefined ? defaults : agent.tools.flatMap((item) => (item === '...' ? defaults : [item]));
  const grants: ResolvedGrants = new Map();
  for (const grant of items) {
    const source = grant.source ?? (grant.service !== undefined ? resolveService(grant.service) : undefined);
    if (!source) throw new AppError('InvalidInput', `Agent ${agent.name}: every tools entry needs a source (or service).`);
    const current = grants.get(source);
    if (grant.allow === 'all' || current === 'all') {
      grants.set(source, 'all');
      continue;
    }
    if (!Array.isArray(grant.allow)) throw new AppError('InvalidInput', `Agent ${agent.name}: allow for ${source} must be "all" or a list of tool names.`);
    grants.set(source, new Set([...(current ?? []), ...grant.allow]));
  }
  return grants;
}
