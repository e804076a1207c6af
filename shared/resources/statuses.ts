import { z } from 'zod';
import { McpServerSpec, McpServerStatus } from './mcpServer';
import { ResourceSource } from './meta';
import { OrlojToolSpec } from './orlojTool';
import { ToolPermissionSpec } from './toolPermission';

export const ObjectPhase = z.enum(['Pending', 'Ready', 'Error']);
export type ObjectPhase = z.infer<typeof ObjectPhase>;

/** Orloj's common status (phase, lastError, observedGeneration), plus a note for people. */
export const ObjectStatus = z.object({
  phase: ObjectPhase,
  lastError: z.string().optional(),
  message: z.string().optional(),
  observedGeneration: z.number().int(),
});
export type ObjectStatus = z.infer<typeof ObjectStatus>;

export const McpServerResourceView = z.object({
  name: z.string(),
  namespace: z.string(),
  /** Counts spec changes seen since the workspace was opened; status.observedGeneration catches up with it. */
  generation: z.number().int(),
  source: ResourceSource,
  /** The applied spec; absent while the object has never been valid. */
  spec: McpServerSpec.optional(),
  status: McpServerStatus,
});
export type McpServerResourceView = z.infer<typeof McpServerResourceView>;

export const ToolResourceView = z.object({
  name: z.string(),
  namespace: z.string(),
  /** Made from an McpServer's tools/list (kept in memory, never written to a file). */
  generated: z.boolean(),
  /** The workspace document that defines (or, for a generated tool, configures) it. */
  source: ResourceSource.optional(),
  /** The registry entry it configures, e.g. `mcp:everything.echo`. */
  registryName: z.string().optional(),
  /** The applied spec; absent while the object has never been valid. */
  spec: OrlojToolSpec.optional(),
  status: ObjectStatus,
});
export type ToolResourceView = z.infer<typeof ToolResourceView>;

export const ToolPermissionResourceView = z.object({
  name: z.string(),
  namespace: z.string(),
  source: ResourceSource,
  /** The applied spec; absent while the object has never been valid. */
  spec: ToolPermissionSpec.optional(),
  /** What the invocation pipeline matches: a registry name, `*`, or a prefix ending in `*`. */
  registryToolRef: z.string().optional(),
  /** Whether the pipeline applies it to calls (scoped permissions name agents and do not apply to direct calls). */
  enforced: z.boolean(),
  status: ObjectStatus,
});
export type ToolPermissionResourceView = z.infer<typeof ToolPermissionResourceView>;

export const ResourceStatuses = z.object({
  mcpServers: z.array(McpServerResourceView),
  tools: z.array(ToolResourceView),
  toolPermissions: z.array(ToolPermissionResourceView),
});
export type ResourceStatuses = z.infer<typeof ResourceStatuses>;
