import type { GrpcToolView } from '../../shared/grpc';
import type { ToolEntry } from '../../shared/registry';
import { createToolEntry, type ToolConfig } from '../registry/createToolEntry';
import { SchemaValidator } from '../registry/SchemaValidator';
import { toolEntryName } from '../registry/ToolCatalog';

/** A ToolDefinition as ListTools returns it (tools.v1). */
export interface ToolDefinitionLike {
  name: string;
  description: string;
  schema: string;
  version: string;
  compatibleVersions: readonly string[];
}

export interface ToolServerEntryOptions {
  source: string;
  /** Versions pinned per tool name; calls carry them instead of the tool's own version. */
  pins?: Readonly<Record<string, string>>;
  /** Risk, classes and runtime from the workspace (an Orloj Tool of type grpc) for every tool of the source. */
  config?: ToolConfig;
  validator?: SchemaValidator;
}

/**
 * Registry entries for a tools.v1 server's tools, and a view of every tool listed. A tool whose
 * schema string is not a JSON Schema of an arguments object is kept out of the registry with the
 * reason, and the others are registered: one bad definition never takes the server down.
 */
export function toolServerEntries(definitions: readonly ToolDefinitionLike[], options: ToolServerEntryOptions): { entries: ToolEntry[]; views: GrpcToolView[] } {
  const validator = options.validator ?? new SchemaValidator();
  const source = { kind: 'grpc' as const, name: options.source };
  const seen = new Set<string>();
  const entries: ToolEntry[] = [];
  const views = definitions.map((definition): GrpcToolView => {
    const pinned = options.pins?.[definition.name];
    const view: GrpcToolView = {
      name: definition.name,
      description: definition.description,
      version: definition.version,
      compatibleVersions: [...definition.compatibleVersions],
      callVersion: pinned ?? definition.version,
      ...(pinned !== undefined ? { pinnedVersion: pinned } : {}),
    };
    const schema = readSchema(definition, validator);
    const unusable = !definition.name.trim() ? 'the tool has no name' : seen.has(definition.name) ? `the server lists "${definition.name}" more than once` : schema.problem;
    seen.add(definition.name);
    if (unusable) return { ...view, unusable };
    const entry = createToolEntry({
      source,
      tool: { name: definition.name, ...(definition.description ? { description: definition.description } : {}), inputSchema: schema.value! },
      config: options.config,
      grpc: { version: definition.version, compatibleVersions: view.compatibleVersions, callVersion: view.callVersion },
    });
    entries.push(entry);
    return { ...view, registryName: toolEntryName(source, definition.name) };
  });
  return { entries, views };
}

function readSchema(definition: ToolDefinitionLike, validator: SchemaValidator): { value?: Record<string, unknown>; problem?: string } {
  // No schema at all: the tool takes an arguments object the server does not describe.
  if (!definition.schema.trim()) return { value: { type: 'object' } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(definition.schema);
  } catch (error) {
    return { problem: `its schema is not valid JSON: ${(error as Error).message}` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { problem: 'its schema is not a JSON Schema object' };
  const schema = parsed as Record<string, unknown>;
  if (schema.type !== undefined && schema.type !== 'object') return { problem: `its schema describes ${JSON.stringify(schema.type)}, not an object of arguments` };
  const compileProblem = validator.problem(schema);
  if (compileProblem) return { problem: `its schema is not a valid JSON Schema: ${compileProblem.replace(/^The tool's inputSchema cannot be used: /, '')}` };
  return { value: schema };
}
