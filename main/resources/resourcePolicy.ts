import type { McpTool } from '../../shared/mcp';
import type { McpServerObject } from './kinds/normalizeMcpServer';
import type { OrlojToolObject } from './kinds/normalizeOrlojTool';
import type { ToolPermissionObject } from './kinds/normalizeToolPermissionResource';
import type { ToolConfig } from '../registry/createToolEntry';
import { normalizeToolPermission, type ToolPermission } from '../registry/policy/ToolPermission';

/**
 * What the workspace says about one MCP tool: Orloj policy from a Tool resource, and whether an
 * McpServer's `tool_filter.include` leaves it out of the registry. Assignable to McpToolConfigLookup.
 */
export interface ResourceToolSettings {
  config?: ToolConfig;
  tags?: string[];
  /** Not in the McpServer's `tool_filter.include`: no registry entry should be made for it. */
  excluded?: boolean;
}

export type ResourceToolLookup = (server: string, tool: Pick<McpTool, 'name'>) => ResourceToolSettings | undefined;

/** Orloj names the Tool generated for an MCP tool `<server>--<tool>`. */
export function generatedToolName(server: string, tool: string): string {
  return `${server}--${tool}`;
}

/** The Tool resource (type mcp) that configures a server's tool: the first one in workspace order. */
export function toolResourceFor(tools: readonly OrlojToolObject[], server: string, tool: string): OrlojToolObject | undefined {
  return tools.find((candidate) => candidate.spec.type === 'mcp' && candidate.spec.mcp_server_ref === server && candidate.spec.mcp_tool_name === tool);
}

export function isIncluded(server: McpServerObject | undefined, tool: string): boolean {
  const include = server?.spec.tool_filter?.include ?? [];
  return include.length === 0 || include.includes(tool);
}

/**
 * A Tool resource's settings replace the server's `default_tool_runtime` wholesale (Orloj's
 * defaults fill the rest); without one, generated tools inherit the server's runtime and keep the
 * operation classes the server's annotations give.
 */
export function toolSettings(server: McpServerObject | undefined, tool: OrlojToolObject | undefined, toolName: string): ResourceToolSettings | undefined {
  const excluded = server ? !isIncluded(server, toolName) : undefined;
  let config: ToolConfig | undefined;
  let tags: string[] | undefined;
  if (tool) {
    const { risk_level, operation_classes, runtime, capabilities } = tool.spec;
    config = { risk_level, operation_classes, runtime };
    if (capabilities?.length) tags = capabilities;
  } else if (server?.spec.default_tool_runtime) {
    config = { runtime: server.spec.default_tool_runtime };
  }
  if (!config && !excluded) return undefined;
  return { ...(config ? { config } : {}), ...(tags ? { tags } : {}), ...(excluded ? { excluded } : {}) };
}

/**
 * The registry name pattern a ToolPermission's `tool_ref` stands for: a generated Tool name
 * (`server--tool`, or `server--*`), a Tool resource of type mcp (its tool) or grpc (every tool of
 * the source it declares), or already a registry name or
 * pattern (`mcp:github.*`, `*`). Undefined when it names nothing the registry holds.
 */
export function registryToolRef(toolRef: string, tools: readonly OrlojToolObject[]): string | undefined {
  if (toolRef === '*' || toolRef.includes(':')) return toolRef;
  const resource = tools.find((tool) => tool.metadata.name === toolRef);
  if (resource?.spec.type === 'grpc') return `grpc:${resource.metadata.name}.*`;
  if (resource) return resource.spec.type === 'mcp' ? `mcp:${resource.spec.mcp_server_ref}.${resource.spec.mcp_tool_name}` : undefined;
  const generated = /^(.+?)--(.+)$/.exec(toolRef);
  return generated ? `mcp:${generated[1]}.${generated[2]}` : undefined;
}

export interface PermissionPlan {
  registryToolRef?: string;
  /** What the pipeline applies; absent when the permission does not apply to calls. */
  permission?: ToolPermission;
  message?: string;
}

/** How a ToolPermission resource reaches the pipeline, through the registry's own normalization. */
export function permissionPlan(resource: ToolPermissionObject, tools: readonly OrlojToolObject[]): PermissionPlan {
  const { spec, metadata } = resource;
  const ref = registryToolRef(spec.tool_ref, tools);
  if (!ref) return { message: `tool_ref ${spec.tool_ref} names no MCP tool or registry name; nothing is governed` };
  if (!spec.operation_rules?.length) {
    return { registryToolRef: ref, message: 'no operation_rules: its required_permissions are checked against agent roles, which the local target does not have' };
  }
  const permission = normalizeToolPermission({ name: metadata.name, tool_ref: ref, operation_rules: spec.operation_rules });
  if (spec.apply_mode === 'scoped') {
    // Every call names its caller, so a scoped permission governs the calls its agents make (and not the operator's).
    const targetAgents = spec.target_agents ?? [];
    return { registryToolRef: ref, permission: { ...permission, targetAgents }, message: `applies only to calls made by agents ${targetAgents.join(', ')}; the operator's own calls are not governed by it` };
  }
  return { registryToolRef: ref, permission };
}
