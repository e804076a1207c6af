import fc from 'fast-check';
import type { z } from 'zod';

/**
 * Near-valid values for a zod schema, for property tests: objects with the schema's own keys,
 * enum members, literals, strings that look like the names, URLs and paths the contract carries
 * — and, one time in `wrongEvery`, a value of the wrong kind at any depth. Such inputs get past the
 * first check of a schema and into its refinements, where a crash would hide.
 */
export function nearValid(schema: z.ZodType, options: { wrongEvery?: number; maxDepth?: number } = {}): fc.Arbitrary<unknown> {
  return build(schema, 0, { wrongEvery: options.wrongEvery ?? 8, maxDepth: options.maxDepth ?? 6 });
}

interface Settings {
  wrongEvery: number;
  maxDepth: number;
}

/** Strings of the shapes the contract carries, and a few that break them. */
const contractStrings = fc.constantFrom(
  '',
  ' ',
  'everything',
  'mcp:everything.echo',
  'a2a:agent.skill',
  'http://127.0.0.1:1/mcp',
  'https://example.test/.well-known/agent-card.json',
  'not a url',
  '127.0.0.1:50051',
  'tools.yaml',
  'dir/tools.yaml',
  '../escape.yaml',
  '/etc/passwd',
  '30s',
  '1h',
  'Tool',
  'McpServer',
  'orloj.dev/v1',
  '{}',
  '[]',
  'null',
  'x'.repeat(300),
  '\u0000\u001b[2J',
  'ünïcödé ✓',
);

const anyJson = fc.jsonValue({ maxDepth: 2 });

/** The zod v4 definition of a schema: what kind it is and its parts. */
type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

function build(schema: z.ZodType, depth: number, settings: Settings): fc.Arbitrary<unknown> {
  if (depth > settings.maxDepth) return anyJson;
  const valid = shaped(schema, depth, settings);
  return fc.oneof({ arbitrary: valid, weight: settings.wrongEvery - 1 }, { arbitrary: fc.oneof(anyJson, fc.constantFrom(undefined, null, NaN, -1, 0, 1e300, '', [], {})), weight: 1 });
}

function shaped(schema: z.ZodType, depth: number, settings: Settings): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const inner = (part: unknown) => build(part as z.ZodType, depth + 1, settings);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const keys = Object.keys(shape);
      const model = Object.fromEntries(keys.map((key) => [key, inner(shape[key])]));
      // Some keys left out, now and then an unknown key added.
      return fc
        .tuple(fc.record(model, { requiredKeys: [] }), fc.option(fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 2 }), { freq: 4 }))
        .map(([known, extra]) => ({ ...(extra ?? {}), ...known }));
    }
    case 'array':
      return fc.array(inner(def.element), { maxLength: 4 });
    case 'tuple':
      return fc.tuple(...(def.items as z.ZodType[]).map(inner));
    case 'record':
      return fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), contractStrings), inner(def.valueType), { maxKeys: 4 });
    case 'map':
      return fc.array(fc.tuple(inner(def.keyType), inner(def.valueType)), { maxLength: 3 }).map((entries) => new Map(entries));
    case 'set':
      return fc.array(inner(def.valueType), { maxLength: 3 }).map((values) => new Set(values));
    case 'optional':
      return fc.option(inner(def.innerType), { nil: undefined });
    case 'nullable':
      return fc.option(inner(def.innerType), { nil: null });
    case 'default':
    case 'prefault':
      return fc.option(inner(def.innerType), { nil: undefined });
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return inner(def.innerType);
    case 'union':
      return fc.oneof(...(def.options as z.ZodType[]).map(inner));
    case 'intersection':
      return fc.tuple(inner(def.left), inner(def.right)).map(([left, right]) => (isPlainObject(left) && isPlainObject(right) ? { ...left, ...right } : left));
    case 'pipe':
      return inner(def.in);
    case 'lazy':
      return inner((def.getter as () => z.ZodType)());
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, string | number>));
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'string':
    case 'template_literal':
      return fc.oneof(contractStrings, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));
    case 'number':
      return fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.double(), fc.constantFrom(0, 1, -1, 0.5, 1e15, Number.MAX_SAFE_INTEGER));
    case 'bigint':
      return fc.bigInt();
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc.date();
    case 'null':
      return fc.constant(null);
    case 'undefined':
    case 'void':
      return fc.constant(undefined);
    case 'nan':
      return fc.constant(NaN);
    default:
      // unknown, any, custom, transform, never…: anything at all.
      return anyJson;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
