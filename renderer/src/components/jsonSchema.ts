import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { linearPattern } from './linearPattern';

export type JsonSchema = Record<string, unknown>;

/** One failing place in a value: a JSON Pointer (`''` is the root) and what is wrong there. */
export interface SchemaProblem {
  path: string;
  message: string;
  /** The JSON Schema keyword that failed (`required`, `minimum`, …). */
  keyword: string;
}

/** Keywords that only annotate: a schema made of these alone says nothing about the value. */
const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'title', 'description', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * Whether a schema describes nothing (`{}`, or annotations only): any value is accepted. The MCP
 * spec asks an input schema for `type: "object"`, but servers that send `{}` exist, and a gRPC
 * google.protobuf.Value field is one too.
 */
export function describesNothing(schema: JsonSchema): boolean {
  return describingKeys(schema).length === 0;
}

/** The schema's keywords that constrain the value (all but the annotations). */
export function describingKeys(schema: JsonSchema): string[] {
  return Object.keys(schema).filter((key) => !ANNOTATIONS.has(key));
}

/**
 * Servers often stamp draft-07 `$schema` on schemas whose keywords 2020-12 reads the same way; the
 * backend validates everything as 2020-12 (MCP's dialect) and so does the renderer, so the
 * declaration is dropped, not the schema.
 */
export function withoutDialect(schema: JsonSchema): JsonSchema {
  if (!('$schema' in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/*
 * The renderer's CSP forbids eval, so the code-generating validators (Ajv) cannot run here; this
 * one interprets the schema. The validator marks the schema objects it reads, so it gets a copy.
 */
const validators = new WeakMap<object, Validator | Error>();

function validatorFor(schema: JsonSchema): Validator | Error {
  let validator = validators.get(schema);
  if (validator) return validator;
  try {
    validator = new Validator(structuredClone(withoutDialect(schema)) as Schema, '2020-12', false);
  } catch (error) {
    validator = error instanceof Error ? error : new Error(String(error));
  }
  validators.set(schema, validator);
  return validator;
}

/**
 * Runs `validate` with the global RegExp constructor standing for RE2 (shared/linearPattern), so the
 * `pattern` and `patternProperties` of a server's schema run in linear time: @cfworker/json-schema
 * builds each with `new RegExp(pattern, 'u')` while validating, offers no hook for another engine,
 * and on `^(a|a)+$` the backtracking engine would freeze the window as the operator types. Validation
 * is synchronous, so nothing else runs while the constructor is replaced; it is put back even when
 * validation throws (a pattern RE2 cannot run throws, and the schema is reported unusable).
 */
function withLinearPatterns<T>(validate: () => T): T {
  const nativeRegExp = globalThis.RegExp;
  globalThis.RegExp = function LinearRegExp(pattern: string) {
    return linearPattern(pattern);
  } as unknown as RegExpConstructor;
  try {
    return validate();
  } finally {
    globalThis.RegExp = nativeRegExp;
  }
}

/** Every problem of `value` against `schema` (JSON Schema 2020-12); empty when it conforms. */
export function schemaProblems(schema: JsonSchema, value: unknown): SchemaProblem[] {
  const validator = validatorFor(schema);
  if (validator instanceof Error) return [{ path: '', message: `the schema cannot be used: ${validator.message}`, keyword: '$schema' }];
  let result;
  try {
    result = withLinearPatterns(() => validator.validate(value));
  } catch (error) {
    return [{ path: '', message: `the schema cannot be used: ${(error as Error).message}`, keyword: '$schema' }];
  }
  return result.valid ? [] : problemsFrom(result.errors, schema);
}

/** Validity only, with `$ref`s resolved against `rootSchema` (how the form asks about sub-schemas). */
export function conforms(schema: JsonSchema, value: unknown, rootSchema: JsonSchema = schema): boolean {
  return schemaProblems(schema === rootSchema ? schema : withDefinitionsOf(schema, rootSchema), value).length === 0;
}

const withRoot = new WeakMap<object, WeakMap<object, JsonSchema>>();

/** `schema` carrying the root's `$defs`/`definitions`, so its local `$ref`s resolve; memoized per pair. */
function withDefinitionsOf(schema: JsonSchema, rootSchema: JsonSchema): JsonSchema {
  let byRoot = withRoot.get(schema);
  if (!byRoot) withRoot.set(schema, (byRoot = new WeakMap()));
  let combined = byRoot.get(rootSchema);
  if (!combined) {
    combined = { ...schema };
    for (const key of ['$defs', 'definitions'] as const) {
      const fromRoot = rootSchema[key];
      if (fromRoot && typeof fromRoot === 'object') combined[key] = { ...(fromRoot as object), ...((schema[key] as object | undefined) ?? {}) };
    }
    byRoot.set(rootSchema, combined);
  }
  return combined;
}

/** Summaries of failures reported again, more precisely, at a deeper place. */
const SUMMARY_KEYWORDS = new Set(['properties', 'patternProperties', 'additionalProperties', 'items', 'prefixItems', 'additionalItems', '$ref', '$recursiveRef', 'allOf', 'dependentSchemas', 'dependencies', 'if', 'then', 'else', 'propertyNames']);

function problemsFrom(errors: OutputUnit[], schema: JsonSchema): SchemaProblem[] {
  // A failed oneOf/anyOf is one problem: "matches none of the options", not every option's complaints.
  const alternatives = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').map((e) => `${e.keywordLocation}/`);
  const problems = errors
    .filter((e) => !SUMMARY_KEYWORDS.has(e.keyword) && !alternatives.some((prefix) => e.keywordLocation.startsWith(prefix)))
    .map((e) => describe(e, schema));
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function pointerOf(location: string): string {
  return location
    .replace(/^#/, '')
    .split('/')
    .map((segment) => decodeURIComponent(segment))
    .join('/');
}

function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The value of the keyword at `keywordLocation`, following local `$ref`s as the validator did. */
function keywordValue(schema: JsonSchema, keywordLocation: string): unknown {
  const segments = pointerOf(keywordLocation).split('/').slice(1);
  let node: unknown = schema;
  for (const raw of segments) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
    if (segment === '$ref' && typeof node === 'string') node = resolveLocalRef(schema, node);
  }
  return node;
}

function resolveLocalRef(schema: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  return keywordValue(schema, ref);
}

const quotedName = /"((?:[^"\\]|\\.)*)"/;

function describe(error: OutputUnit, schema: JsonSchema): SchemaProblem {
  const path = pointerOf(error.instanceLocation);
  const value = keywordValue(schema, error.keywordLocation);
  const { keyword } = error;
  const at = (message: string, where = path): SchemaProblem => ({ path: where, message, keyword });
  switch (keyword) {
    case 'required':
    case 'dependentRequired': {
      const name = quotedName.exec(error.error)?.[1];
      return name !== undefined ? at('is required', `${path}/${escapeSegment(name)}`) : at(error.error);
    }
    case 'false':
    case 'unevaluatedProperties':
      return at('is not allowed here');
    case 'type':
      return at(`must be ${Array.isArray(value) ? value.join(' or ') : String(value)}`);
    case 'minimum':
      return at(`must be >= ${String(value)}`);
    case 'maximum':
      return at(`must be <= ${String(value)}`);
    case 'exclusiveMinimum':
      return at(`must be > ${String(value)}`);
    case 'exclusiveMaximum':
      return at(`must be < ${String(value)}`);
    case 'multipleOf':
      return at(`must be a multiple of ${String(value)}`);
    case 'minLength':
      return at(`must have at least ${String(value)} characters`);
    case 'maxLength':
      return at(`must have at most ${String(value)} characters`);
    case 'pattern':
      return at(`must match ${String(value)}`);
    case 'format':
      return at(`must be a valid ${String(value)}`);
    case 'enum':
      return at(`must be one of ${Array.isArray(value) ? value.map((v) => JSON.stringify(v)).join(', ') : 'the allowed values'}`);
    case 'const':
      return at(`must be ${JSON.stringify(value)}`);
    case 'minItems':
      return at(`must have at least ${String(value)} items`);
    case 'maxItems':
      return at(`must have at most ${String(value)} items`);
    case 'uniqueItems':
      return at('must not contain duplicates');
    case 'minProperties':
      return at(`must have at least ${String(value)} properties`);
    case 'maxProperties':
      return at(`must have at most ${String(value)} properties`);
    case 'oneOf':
      return at('must match exactly one of the options');
    case 'anyOf':
      return at('must match at least one of the options');
    case 'not':
      return at('must not match the excluded schema');
    case 'contains':
    case 'minContains':
    case 'maxContains':
      return at('does not contain the required items');
    default:
      return at(error.error.replace(/\.$/, ''));
  }
}

/** A JSON Pointer as people read it: `/items/0/name` → `items[0].name`, the root → `(root)`. */
export function readablePath(pointer: string): string {
  if (!pointer) return '(root)';
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, segment) => (/^\d+$/.test(segment) ? `${out}[${segment}]` : out ? `${out}.${segment}` : segment), '');
}

/**
 * JSON text typed by the operator, read as the kind asked for: the value, or one sentence saying
 * why not (`what` names the thing in it, e.g. "Arguments").
 */
export function readJsonText(text: string, kind: 'object' | 'array' | 'any', what: string): { value: unknown } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
  if (kind === 'object' && (typeof value !== 'object' || value === null || Array.isArray(value))) return { problem: `${what} must be a JSON object ({ … }).` };
  if (kind === 'array' && !Array.isArray(value)) return { problem: `${what} must be a JSON array ([ … ]).` };
  return { value };
}
