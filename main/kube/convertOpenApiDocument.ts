import type { ClusterKind } from '../../shared/kubeApi';

export type JsonSchema = Record<string, unknown>;

/** One group-version document of /openapi/v3, as far as the schemas go. */
export interface OpenApiDocument {
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface GroupVersion {
  group: string;
  version: string;
}

export interface ConvertedDocument {
  kinds: ClusterKind[];
  /** Every component schema of the document, as JSON Schema whose refs point at `#/definitions/`. */
  definitions: Record<string, JsonSchema>;
}

const COMPONENT_REF = '#/components/schemas/';
const META_PACKAGE = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const SCHEMA_MAPS = new Set(['properties', 'patternProperties']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
const SINGLE_SCHEMAS = new Set(['items', 'additionalProperties', 'not']);

/** `api/v1` is the core group; `apis/<group>/<version>` the others. Other index paths (`apis/apps`, `version`) hold no kinds. */
export function groupVersionOf(indexPath: string): GroupVersion | undefined {
  if (indexPath === 'api/v1') return { group: '', version: 'v1' };
  const match = /^apis\/([^/]+)\/([^/]+)$/.exec(indexPath);
  return match ? { group: match[1]!, version: match[2]! } : undefined;
}

export function apiVersionOf({ group, version }: GroupVersion): string {
  return group ? `${group}/${version}` : version;
}

export function definitionRef(name: string): string {
  return `#/definitions/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * The kinds a manifest of this group-version can hold, and every component schema as JSON Schema.
 * The documents list shared kinds (DeleteOptions, WatchEvent) under every group and list kinds
 * beside each kind; only this group-version's own object kinds are kept.
 */
export function convertOpenApiDocument(groupVersion: GroupVersion, document: OpenApiDocument): ConvertedDocument {
  const definitions: Record<string, JsonSchema> = {};
  const kinds: ClusterKind[] = [];
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    definitions[name] = convertSchema(schema);
    if (name.startsWith(META_PACKAGE)) continue;
    const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as Array<Partial<GroupVersion> & { kind?: string }>;
    for (const gvk of gvks) {
      if ((gvk.group ?? '') !== groupVersion.group || gvk.version !== groupVersion.version || !gvk.kind || gvk.kind.endsWith('List')) continue;
      kinds.push({ apiVersion: apiVersionOf(groupVersion), kind: gvk.kind, definition: name });
    }
  }
  return { kinds, definitions };
}

/**
 * OpenAPI 3.0 schema → JSON Schema (draft-07) for the YAML editor: component refs become
 * definition refs, `nullable` becomes a null type, the `x-kubernetes-*` extensions go (their
 * meaning is kept where it matters to validation), and objects with declared properties refuse
 * unknown fields, as the apiserver's strict field validation (kubectl's default) does.
 */
function convertSchema(node: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-kubernetes-') || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF)) out.$ref = definitionRef(value.slice(COMPONENT_REF.length));
    else if (SCHEMA_MAPS.has(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, isObject(child) ? convertSchema(child) : child]));
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map((child: unknown) => (isObject(child) ? convertSchema(child) : child));
    else if (SINGLE_SCHEMAS.has(key) && isObject(value)) out[key] = convertSchema(value);
    // Everything else is a keyword's value (default, enum, required…): copied as it is, whatever keys it holds.
    else out[key] = value;
  }
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (node['x-kubernetes-int-or-string'] === true && !out.anyOf && !out.oneOf) out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  const declaresFields = isObject(out.properties) && Object.keys(out.properties).length > 0;
  const composed = out.allOf || out.anyOf || out.oneOf;
  if (declaresFields && out.additionalProperties === undefined && !composed && node['x-kubernetes-preserve-unknown-fields'] !== true) out.additionalProperties = false;
  return out;
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
