import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { DefinitionHash, ToolDefinition } from '../../shared/lock';

/** The fields a registry entry, an MCP tool or a LanguageTool's discovered schema share. */
export interface DefinitionSource {
  name?: string;
  toolName?: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

const ANNOTATION_HINTS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * The definition as every source is normalized into the registry (createToolEntry): the title
 * falls back to the annotations' title, a missing input schema is an empty object schema, and only
 * the annotation hints the console acts on are kept. A LanguageTool's schema and the same tool
 * through a local connection therefore hash the same.
 */
export function toolDefinition(tool: DefinitionSource): ToolDefinition {
  const name = tool.toolName ?? tool.name ?? '';
  const title = tool.title ?? (typeof tool.annotations?.title === 'string' ? tool.annotations.title : undefined);
  const annotations: Record<string, unknown> = {};
  for (const key of ANNOTATION_HINTS) if (tool.annotations?.[key] !== undefined) annotations[key] = tool.annotations[key];
  return {
    name,
    ...(title !== undefined ? { title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema ?? { type: 'object' },
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(Object.keys(annotations).length ? { annotations } : {}),
  };
}

/**
 * RFC 8785 canonical JSON of any JSON value. RFC 8785 has no form for strings that are not
 * well-formed UTF-16 (lone surrogates, which a hostile peer can send as `\ud800` escapes); those
 * values come back with such strings in JSON.stringify's escaped form and `wellFormed: false`, so a
 * hash can put them in a separate domain: they neither fail nor collide with a well-formed value.
 */
export function rfc8785Json(value: unknown): { json: string; wellFormed: boolean } {
  try {
    return { json: canonicalize(value)!, wellFormed: true };
  } catch {
    return { json: canonicalize(escapeIllFormed(value))!, wellFormed: false };
  }
}

/** RFC 8785 canonical JSON of a definition (see rfc8785Json). */
export function canonicalDefinitionJson(definition: ToolDefinition): { json: string; wellFormed: boolean } {
  return rfc8785Json(definition);
}

function escapeIllFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.isWellFormed() ? value : JSON.stringify(value).slice(1, -1);
  if (Array.isArray(value)) return value.map(escapeIllFormed);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [escapeIllFormed(key) as string, escapeIllFormed(inner)]));
  return value;
}

function sha256(domain: string, text: string): DefinitionHash {
  return `sha256:${createHash('sha256').update(domain).update(text).digest('hex')}`;
}

export interface DefinitionHashes {
  definition: ToolDefinition;
  /** The canonical JSON that was hashed (what the revision store keeps). */
  json: string;
  /** Of the whole definition, name included. */
  hash: DefinitionHash;
  /** Of the definition without its name: equal for a tool renamed with the same body. */
  body: DefinitionHash;
}

export function hashDefinition(tool: DefinitionSource): DefinitionHashes {
  const definition = toolDefinition(tool);
  const { json, wellFormed } = canonicalDefinitionJson(definition);
  const { name: _name, ...rest } = definition;
  const body = canonicalDefinitionJson(rest as ToolDefinition);
  const domain = wellFormed ? '' : 'ill-formed-utf16\0';
  return { definition, json, hash: sha256(domain, json), body: sha256(body.wellFormed ? 'body\0' : 'body\0ill-formed-utf16\0', body.json) };
}

/** One hash for a whole set of tools: equal sets of (name, hash) give equal set hashes, in any order. */
export function setHash(tools: ReadonlyArray<{ name: string; hash: string }>): DefinitionHash {
  const pairs = [...tools].map((tool) => [tool.name, tool.hash]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  // Names may be ill-formed UTF-16 too; JSON.stringify escapes those, so the encoding stays one-to-one.
  return sha256('set\0', JSON.stringify(pairs));
}

const cache = new WeakMap<object, DefinitionHashes>();

/** Hashes of a registry entry, computed once per entry object (entries are replaced, never mutated). */
export function entryHashes(entry: DefinitionSource & object): DefinitionHashes {
  let hashes = cache.get(entry);
  if (!hashes) {
    hashes = hashDefinition(entry);
    cache.set(entry, hashes);
  }
  return hashes;
}
