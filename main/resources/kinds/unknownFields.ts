import type { JsonSchema } from '../../../shared/resources/jsonSchema';
import { isPlainObject } from './fieldReaders';
import type { IssuePath, ResourceIssues } from './ResourceIssues';

/**
 * Warns about fields a kind does not have: they are dropped when stored (Orloj decodes into typed
 * structs, the apiserver prunes what a structural schema does not declare), so a misspelled
 * `risk-level` would otherwise vanish without a word. Only schemas that list `properties` and do
 * not allow extras are checked.
 */
export function warnUnknownFields(value: unknown, schema: JsonSchema, path: IssuePath, issues: ResourceIssues, skip: ReadonlySet<string> = new Set()) {
  if (schema['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, index) => warnUnknownFields(item, schema.items!, [...path, index], issues));
    return;
  }
  if (!isPlainObject(value) || !schema.properties) return;
  for (const [key, item] of Object.entries(value)) {
    if (skip.has(key)) continue;
    const property = schema.properties[key];
    if (property) {
      warnUnknownFields(item, property, [...path, key], issues);
      continue;
    }
    if (schema.additionalProperties === true) continue;
    if (typeof schema.additionalProperties === 'object') {
      warnUnknownFields(item, schema.additionalProperties, [...path, key], issues);
      continue;
    }
    const known = Object.keys(schema.properties);
    const near = known.find((name) => normalizeKey(name) === normalizeKey(key));
    issues.warn([...path, key], `is not a field here and is ignored${near ? `; did you mean ${near}?` : ` (known: ${known.join(', ')})`}`, 'unknownField');
  }
}

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}
