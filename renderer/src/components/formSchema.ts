import type { JsonSchema } from './jsonSchema';

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Properties that usually tell variants apart, tried first when naming a variant by its const. */
const DISCRIMINATORS = ['type', 'kind', 'mode', 'method', 'action', 'op', 'operation'];

/**
 * What to call one variant of a oneOf/anyOf: its own title; else the const that tells it apart
 * (`{const: "text"}`, or a property such as `type: {const: "image"}`); else its type for a scalar
 * variant; else the properties it requires. Undefined leaves the form's own "Option N".
 */
export function variantLabel(variant: JsonSchema): string | undefined {
  if (typeof variant.title === 'string' && variant.title) return undefined;
  if ('const' in variant) return JSON.stringify(variant.const).replace(/^"|"$/g, '');
  if (Array.isArray(variant.enum) && variant.enum.length === 1) return String(variant.enum[0]);
  const properties = isObject(variant.properties) ? variant.properties : undefined;
  if (properties) {
    const named = [...DISCRIMINATORS, ...Object.keys(properties)].find((key) => isObject(properties[key]) && 'const' in (properties[key] as JsonSchema));
    if (named) return `${named}: ${String((properties[named] as JsonSchema).const)}`;
  }
  if (typeof variant.type === 'string' && variant.type !== 'object') return variant.type;
  if (Array.isArray(variant.required) && variant.required.length) return `with ${variant.required.join(', ')}`;
  if (properties && Object.keys(properties).length) return Object.keys(properties).slice(0, 3).join(', ');
  return undefined;
}

/**
 * The schema as the generated form should show it: each oneOf/anyOf variant titled by what tells
 * it apart (not "Option 1/2"), and every `const` field read-only with its value filled in, since
 * there is nothing to choose. The input is not changed; validation still runs on the original.
 */
export function formSchema(schema: JsonSchema): JsonSchema {
  return visit(schema) as JsonSchema;
}

/** Keywords whose value maps names to schemas (the map itself is not a schema). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is data, not a schema. */
const DATA = new Set(['const', 'default', 'enum', 'examples', 'required']);

function visit(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(visit);
  if (!isObject(node)) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (DATA.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, visit(schema)]));
    else if ((key === 'oneOf' || key === 'anyOf') && Array.isArray(value)) {
      out[key] = value.map((variant) => {
        const visited = visit(variant);
        if (!isObject(visited)) return visited;
        const label = variantLabel(visited);
        return label ? { ...visited, title: label } : visited;
      });
    } else out[key] = visit(value);
  }
  if ('const' in out) {
    out.readOnly = true;
    if (!('default' in out)) out.default = out.const;
  }
  return out;
}
