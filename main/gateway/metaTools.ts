import MiniSearch from 'minisearch';
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolEntry } from '../../shared/registry';
import { gatewayToolNames } from './gatewayToolNames';

/**
 * RockBot's meta-tools for large catalogs: instead of every tool, an agent sees four — search its
 * services, list them, read one's tools, invoke one — so a catalog of hundreds of tools costs its
 * model four definitions. Shapes follow RockBot's (search results `{results:[{id, type, summary,
 * relevance_score, top_tools|top_skills}]}`, top score 1.0, two decimals; service details
 * `{serverName, tools:[{name, description, parametersSchema}], error}`). Everything they reach is
 * the agent's grants: a meta-tool never shows or runs a tool the agent could not call directly.
 */
export const META_TOOLS: Tool[] = [
  {
    name: 'search_known_services',
    description: 'Search the services (tool servers and agents) available to you by what they do; returns the best matches with their top tools or skills.',
    inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'What you need done, in a few words' } }, required: ['query'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'list_services',
    description: 'List every service available to you, with how many tools each has and their names.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'get_service_details',
    description: "A service's tools with their descriptions and parameter schemas (all of them, or one by tool_name).",
    inputSchema: { type: 'object', properties: { server_name: { type: 'string' }, tool_name: { type: 'string' } }, required: ['server_name'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'invoke_tool',
    description: 'Call one tool of a service with its arguments (see get_service_details for the schema).',
    inputSchema: {
      type: 'object',
      properties: { server_name: { type: 'string' }, tool_name: { type: 'string' }, arguments: { type: 'object', description: 'The tool’s arguments' } },
      required: ['server_name', 'tool_name'],
    },
  },
];

export const META_TOOL_NAMES = new Set(META_TOOLS.map((tool) => tool.name));

/** A service as the meta-tools show it: one source of the registry, by the name the agent uses. */
interface Service {
  id: string;
  type: 'mcp' | 'a2a' | 'grpc' | 'http' | 'bus';
  tools: ToolEntry[];
}

function servicesOf(entries: readonly ToolEntry[]): Service[] {
  const services = new Map<string, Service>();
  for (const entry of entries) {
    const id = entry.source.name;
    const service = services.get(id) ?? { id, type: entry.source.kind, tools: [] };
    service.tools.push(entry);
    services.set(id, service);
  }
  return [...services.values()];
}

function summaryOf(service: Service): string {
  const described = service.tools.map((tool) => tool.description?.split('\n')[0]?.trim()).filter(Boolean);
  return `${service.tools.length} ${service.type === 'a2a' ? 'skill' : 'tool'}${service.tools.length === 1 ? '' : 's'}${described.length ? `: ${described.slice(0, 3).join('; ')}` : ''}`.slice(0, 500);
}

/** BM25 over the agent's services (name, tool names, descriptions): the best five, scores relative to the best. */
export function searchServices(entries: readonly ToolEntry[], query: string) {
  const services = servicesOf(entries);
  const index = new MiniSearch<{ id: string; name: string; tools: string; text: string }>({ fields: ['name', 'tools', 'text'], storeFields: ['id'], searchOptions: { boost: { name: 3, tools: 2 }, prefix: true, fuzzy: 0.2 } });
  index.addAll(services.map((service) => ({ id: service.id, name: service.id, tools: service.tools.map((tool) => tool.toolName.replace(/[-_.]/g, ' ')).join(' '), text: service.tools.map((tool) => `${tool.title ?? ''} ${tool.description ?? ''}`).join(' ') })));
  const hits = index.search(query).slice(0, 5);
  const best = hits[0]?.score ?? 1;
  return {
    results: hits.map((hit) => {
      const service = services.find((item) => item.id === hit.id)!;
      const top = service.tools.slice(0, 5).map((tool) => tool.toolName);
      return { id: service.id, type: service.type, summary: summaryOf(service), relevance_score: Math.round((hit.score / best) * 100) / 100, ...(service.type === 'a2a' ? { top_skills: top } : { top_tools: top }) };
    }),
  };
}

export function listServices(entries: readonly ToolEntry[]) {
  return { servers: servicesOf(entries).map((service) => ({ serverName: service.id, type: service.type, summary: summaryOf(service), toolCount: service.tools.length, toolNames: service.tools.map((tool) => tool.toolName) })) };
}

export function serviceDetails(entries: readonly ToolEntry[], serverName: string, toolName?: string) {
  const service = servicesOf(entries).find((item) => item.id === serverName);
  if (!service) return { serverName, tools: [], error: `No service named ${serverName} is available to you.` };
  const tools = service.tools.filter((tool) => toolName === undefined || tool.toolName === toolName);
  if (toolName !== undefined && tools.length === 0) return { serverName, tools: [], error: `${serverName} has no tool named ${toolName} available to you.` };
  return { serverName, tools: tools.map((tool) => ({ name: tool.toolName, description: tool.description ?? '', parametersSchema: tool.inputSchema })), error: null };
}

/** The granted entry `invoke_tool` names, or undefined when it names none of the agent's. */
export function entryFor(entries: readonly ToolEntry[], serverName: string, toolName: string): ToolEntry | undefined {
  return entries.find((entry) => entry.source.name === serverName && entry.toolName === toolName) ?? gatewayToolNames(entries).get(`${serverName}.${toolName}`);
}
