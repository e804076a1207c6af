import fc from 'fast-check';
import { stringify } from 'yaml';

/**
 * Near-valid documents for property tests of the file parsers: a real document (an example the
 * project ships) with a few random edits — a field removed, a value replaced by one of another
 * kind or by a contract-shaped string, a container wrapped in a list, an unknown field added —
 * written back as YAML or JSON, sometimes cut short or with bytes spliced in.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = Array<string | number>;

/** Values a field could be given by mistake or on purpose. */
export const fieldValues: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, 1e21, '', ' ', 'x'.repeat(500), '30s', '0s', '-1s', 'mcp:everything.echo', 'http://127.0.0.1:1/mcp', 'not a url', '$.content[0]', '{{missing}}', '{{secret:NAME}}', 'Tool', 'orloj.dev/v1', '\u001b[2J', 'ünïcödé'),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

function paths(value: Json, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((item, index) => paths(item, [...prefix, index], out));
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) paths(item, [...prefix, key], out);
  return out;
}

function edit(root: Json, path: Path, change: (value: Json) => Json | undefined): Json {
  if (path.length === 0) return change(root) ?? null;
  if (!root || typeof root !== 'object') return root;
  const [head, ...rest] = path;
  const child = (Array.isArray(root) ? root[head as number] : root[head as string]) as Json;
  const next = rest.length === 0 ? change(child) : edit(child, rest, change);
  if (Array.isArray(root)) {
    const copy = [...root];
    if (next === undefined) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const copy = { ...root };
  if (next === undefined) delete copy[head as string];
  else copy[head as string] = next;
  return copy;
}

type Mutation = { at: number; kind: 'delete' | 'replace' | 'wrap' | 'add' | 'empty'; value: Json; key: string };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('delete', 'replace', 'replace', 'wrap', 'add', 'empty'),
  value: fieldValues,
  key: fc.oneof(fc.constantFrom('spec', 'metadata', 'name', 'kind', 'apiVersion', 'requests', 'assertions', 'runtime', 'tools'), fc.string({ maxLength: 10 })),
});

function apply(root: Json, m: Mutation): Json {
  const all = paths(root);
  const path = all[m.at % all.length]!;
  return edit(root, path, (value) => {
    switch (m.kind) {
      case 'delete':
        return undefined;
      case 'replace':
        return m.value;
      case 'wrap':
        return [value];
      case 'empty':
        return Array.isArray(value) ? [] : value && typeof value === 'object' ? {} : '';
      case 'add':
        return value && typeof value === 'object' && !Array.isArray(value) ? { ...value, [m.key]: m.value } : value;
    }
  });
}

/** One seed with one to four random edits. */
export function mutated(seeds: readonly Json[]): fc.Arbitrary<Json> {
  return fc.tuple(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([seed, edits]) => edits.reduce(apply, seed));
}

/** Documents as a file: YAML (one or several documents) or JSON, now and then cut short or with bytes spliced in. */
export function asFileText(documents: fc.Arbitrary<Json>): fc.Arbitrary<string> {
  const text = fc.oneof(
    fc.array(documents, { minLength: 1, maxLength: 3 }).map((docs) => docs.map((doc) => stringify(doc)).join('---\n')),
    documents.map((doc) => JSON.stringify(doc, null, 2)),
  );
  return fc.tuple(text, fc.nat(), fc.constantFrom<'keep' | 'cut' | 'splice'>('keep', 'keep', 'keep', 'cut', 'splice'), fc.string({ maxLength: 8, unit: 'binary' })).map(([whole, at, damage, bytes]) => {
    const position = whole.length === 0 ? 0 : at % whole.length;
    if (damage === 'cut') return whole.slice(0, position);
    if (damage === 'splice') return whole.slice(0, position) + bytes + whole.slice(position);
    return whole;
  });
}

/** YAML syntax in random order: indentation, anchors, aliases, tags, flow and block scalars. */
export const yamlSoup: fc.Arbitrary<string> = fc
  .array(
    fc.constantFrom('key: ', '- ', '\n', '  ', '    ', '---\n', '...\n', '&a ', '*a ', '!!str ', '!!map ', '!custom ', '{', '}', '[', ']', ', ', '"', "'", '|\n', '>-\n', '# note\n', '? ', ': ', 'apiVersion: orloj.dev/v1\n', 'kind: Tool\n', 'kind: McpServer\n', 'metadata:\n  name: x\n', 'spec:\n', 'name: c\n', 'requests:\n', '%YAML 1.2\n', '<<: *a\n', '\t', '\u0000', '\ufeff'),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));
