import { AppError } from '../../../shared/errors';
import { sourceId } from '../../../shared/invocation';
import type { ToolSource } from '../../../shared/invocation';
import type { ToolEntry } from '../../../shared/registry';
import { DEFAULT_TOOLS_POLICY, type ToolsPolicy } from '../../../shared/resources/clawPod';
import type { ToolListFilter } from '../../../shared/registry';
import { resolveToolGrants, serviceResolverFor, type AgentTools, type ToolGrant } from './resolveToolGrants';

export { DEFAULT_TOOLS_POLICY, type ToolsPolicy };

/** What compiling reads of the registry: the live ToolCatalog, or a snapshot that adds cached discoveries. */
export interface ToolLookup {
  list(filter: Pick<ToolListFilter, 'source'>): ToolEntry[];
  sources(): ToolSource[];
}

export interface ToolsJsonTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnly?: boolean; idempotent?: boolean };
  execution: Record<string, unknown>;
}

export interface ToolsJson {
  version: 1;
  tools: ToolsJsonTool[];
  policy: ToolsPolicy;
}

export interface CompileToolsOptions {
  policy?: Partial<ToolsPolicy>;
  /**
   * Resolved tokens by service name. Without one, `execution.auth` names the environment variable
   * instead of carrying the token: this project never writes a secret into a file on its own.
   */
  tokens?: Record<string, string>;
  /** Base URLs of MCP and A2A sources by source id, for their execution metadata. */
  endpoints?: Record<string, string>;
  /** Why an entry must stay out of every manifest (the lockfile holds its definition for review). */
  held?: HeldCheck;
}

/** The reason an entry is held back from agents, or undefined when it may be granted. */
export type HeldCheck = (entry: ToolEntry) => string | undefined;

/**
 * The per-agent tools.json manifest of Clawdapus: the tools the agent's grants allow (deny by
 * default, workspace defaults inherited and extended), named `<service>.<tool>`, with their schemas,
 * annotations and hidden execution metadata, and the mediation budget.
 */
export function compileToolsJson(agent: AgentTools, catalog: ToolLookup, defaults: readonly ToolGrant[] = [], options: CompileToolsOptions = {}): ToolsJson {
  const { grants, problems } = grantedTools(agent, catalog, defaults, options.held);
  const tools = grants.flatMap((grant) => grant.granted.map((entry) => manifestTool(entry, options)));
  if (problems.length > 0) throw new AppError('NotFound', `Cannot compile tools.json for ${agent.name}: ${problems.join('; ')}.`);

  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < tools.length; i++) {
    if (tools[i]!.name === tools[i - 1]!.name) {
      throw new AppError('AlreadyExists', `Cannot compile tools.json for ${agent.name}: two granted sources both provide ${tools[i]!.name}.`);
    }
  }
  return { version: 1, tools, policy: { ...DEFAULT_TOOLS_POLICY, ...options.policy } };
}

/** One resolved grant: the source's tools in the registry and those the grant lets the agent call. */
export interface GrantedSource {
  source: string;
  allow: 'all' | string[];
  available: ToolEntry[];
  granted: ToolEntry[];
  /** Granted by name or `all`, but held back: their definitions wait for review in the lockfile. */
  held: Array<{ entry: ToolEntry; reason: string }>;
}

/**
 * The agent's grants resolved against the registry, and what cannot be honoured as declared (a
 * source without tools, a tool name the source does not have).
 */
export function grantedTools(agent: AgentTools, catalog: ToolLookup, defaults: readonly ToolGrant[] = [], held?: HeldCheck): { grants: GrantedSource[]; problems: string[] } {
  const grants: GrantedSource[] = [];
  const problems: string[] = [];
  for (const [source, allowed] of resolveToolGrants(agent, defaults, serviceResolverFor(catalog.sources()))) {
    const available = catalog.list({ source });
    if (available.length === 0) problems.push(`${source} has no tools in the registry`);
    else if (allowed !== 'all') {
      const known = new Set(available.map((entry) => entry.toolName));
      for (const name of allowed) if (!known.has(name)) problems.push(`${source} has no tool ${name}`);
    }
    const wanted = allowed === 'all' ? available : available.filter((entry) => allowed.has(entry.toolName));
    const heldBack = wanted.flatMap((entry) => {
      const reason = held?.(entry);
      return reason ? [{ entry, reason }] : [];
    });
    const granted = heldBack.length ? wanted.filter((entry) => !heldBack.some((item) => item.entry === entry)) : wanted;
    grants.push({ source, allow: allowed === 'all' ? 'all' : [...allowed], available, granted, held: heldBack });
  }
  return { grants, problems };
}

function manifestTool(entry: ToolEntry, options: CompileToolsOptions): ToolsJsonTool {
  const annotations: ToolsJsonTool['annotations'] = {};
  if (entry.annotations?.readOnlyHint !== undefined) annotations.readOnly = entry.annotations.readOnlyHint;
  if (entry.annotations?.idempotentHint !== undefined) annotations.idempotent = entry.annotations.idempotentHint;
  return {
    name: `${entry.source.name}.${entry.toolName}`,
    ...(entry.description !== undefined ? { description: entry.description } : {}),
    inputSchema: entry.inputSchema,
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    execution: execution(entry, options),
  };
}

function execution(entry: ToolEntry, options: CompileToolsOptions): Record<string, unknown> {
  const service = entry.source.name;
  if (entry.source.kind !== 'http') {
    const baseUrl = options.endpoints?.[sourceId(entry.source)];
    return {
      transport: entry.source.kind,
      service,
      ...(baseUrl ? { base_url: baseUrl } : {}),
      [entry.source.kind === 'a2a' ? 'skill' : 'tool']: entry.toolName,
      // A tools.v1 tool is called with the version the console pins (its own unless pinned).
      ...(entry.grpc?.callVersion ? { version: entry.grpc.callVersion } : {}),
    };
  }
  const http = entry.http;
  if (!http) throw new AppError('InvalidInput', `${entry.name} is an HTTP tool without HTTP execution metadata.`);
  const token = options.tokens?.[service];
  const auth =
    http.auth && http.auth.type !== 'none'
      ? token
        ? { type: http.auth.type, token }
        : { type: http.auth.type, ...(http.auth.env ? { env: http.auth.env } : {}) }
      : undefined;
  return {
    transport: 'http',
    service,
    base_url: http.baseUrl,
    method: http.method,
    path: http.path,
    ...(http.bodyKey ? { body_key: http.bodyKey } : {}),
    ...(auth ? { auth } : {}),
  };
}
