import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDefinitionJson, hashDefinition, setHash, toolDefinition } from './definitionHash';

const schema = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
const tool = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 20 }),
    title: fc.string({ maxLength: 20 }),
    description: fc.string({ maxLength: 200 }),
    inputSchema: schema,
    outputSchema: schema,
    annotations: fc.record({ readOnlyHint: fc.boolean(), destructiveHint: fc.boolean() }, { requiredKeys: [] }),
  },
  { requiredKeys: ['name'] },
);

/** The same JSON value with every object's keys in reverse order. */
function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).reverse().map((key) => [key, reorder((value as Record<string, unknown>)[key])]));
}

describe('hashDefinition', () => {
  it('is RFC 8785 canonical JSON: sorted keys, no whitespace, ES number forms', () => {
    const { json } = canonicalDefinitionJson({ name: 'b', inputSchema: { type: 'object', maximum: 1e21, minimum: 1.0, a: 'é' } });
    expect(json).toBe('{"inputSchema":{"a":"é","maximum":1e+21,"minimum":1,"type":"object"},"name":"b"}');
  });

  it('does not depend on key order anywhere in the definition', () => {
    fc.assert(
      fc.property(tool, (t) => {
        expect(hashDefinition(reorder(t) as typeof t).hash).toBe(hashDefinition(t).hash);
      }),
    );
  });

  it('keeps the body fingerprint across a rename, and changes the hash', () => {
    fc.assert(
      fc.property(tool, fc.string({ minLength: 1, maxLength: 20 }), (t, other) => {
        fc.pre(other !== t.name);
        const before = hashDefinition(t);
        const after = hashDefinition({ ...t, name: other });
        expect(after.body).toBe(before.body);
        expect(after.hash).not.toBe(before.hash);
      }),
    );
  });

  it('changes hash and body when the description changes by one invisible character', () => {
    const base = { name: 'send', description: 'Sends a message', inputSchema: { type: 'object' } };
    const poisoned = { ...base, description: 'Sends a\u200b message' };
    expect(hashDefinition(poisoned).hash).not.toBe(hashDefinition(base).hash);
    expect(hashDefinition(poisoned).body).not.toBe(hashDefinition(base).body);
  });

  it('hashes definitions with lone surrogates without failing, apart from their well-formed look-alikes', () => {
    const lone = hashDefinition({ name: 'x', description: 'a\ud800b', inputSchema: {} });
    const replaced = hashDefinition({ name: 'x', description: 'a\ufffdb', inputSchema: {} });
    const escaped = hashDefinition({ name: 'x', description: 'a\\ud800b', inputSchema: {} });
    expect(lone.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(new Set([lone.hash, replaced.hash, escaped.hash]).size).toBe(3);
  });

  it('normalizes like the registry: title from annotations, empty input schema, only the known hints', () => {
    expect(toolDefinition({ name: 't', annotations: { title: 'T', readOnlyHint: true, vendorExtra: 'x' } })).toEqual({
      name: 't',
      title: 'T',
      inputSchema: { type: 'object' },
      annotations: { title: 'T', readOnlyHint: true },
    });
    // A registry entry carries the namespaced name; its own tool name is what is hashed.
    expect(toolDefinition({ name: 'mcp:s.t', toolName: 't', inputSchema: {} }).name).toBe('t');
  });

  it('gives one set hash for the same tools in any order', () => {
    const a = [{ name: 'x', hash: 'h1' }, { name: 'y', hash: 'h2' }];
    expect(setHash(a)).toBe(setHash([...a].reverse()));
    expect(setHash(a)).not.toBe(setHash([{ name: 'x', hash: 'h2' }, { name: 'y', hash: 'h1' }]));
  });
});
