import { AppError } from '../../../shared/errors';

/**
 * One grant of an agent's tool list (seed 003 `tools:`): a source and `allow: all` or tool names.
 * `source` is a registry source id (`mcp:github`, `http:trading-api`); `service` is the seed's
 * spelling for an HTTP service and means `http:<service>`.
 */
export type ToolGrant = { allow: 'all' | string[] } & ({ source: string; service?: never } | { service: string; source?: never });

/** `...` splices the workspace defaults into an agent's list (seed 003 pod-level defaults). */
export type ToolGrantItem = ToolGrant | '...';

export interface AgentTools {
  name: string;
  /** Omitted: the workspace defaults apply. Declared: replaces them, unless it contains `...`. */
  tools?: ToolGrantItem[];
}

/** Per source id: every tool, or the named ones. */
export type ResolvedGrants = Map<string, 'all' | Set<string>>;

/**
 * Seed 003: no tools unless declared (deny by default); the agent's list replaces the defaults
 * except where `...` splices them in; after that, grants are merged per source — `all` wins,
 * otherwise names are unioned.
 */
export function resolveToolGrants(agent: AgentTools, defaults: readonly ToolGrant[] = []): ResolvedGrants {
  const items = agent.tools === undefined ? defaults : agent.tools.flatMap((item) => (item === '...' ? defaults : [item]));
  const grants: ResolvedGrants = new Map();
  for (const grant of items) {
    const source = grant.source ?? (grant.service !== undefined ? `http:${grant.service}` : undefined);
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
