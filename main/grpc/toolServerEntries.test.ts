import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaValidator } from '../registry/SchemaValidator';
import { toolServerEntries, type ToolDefinitionLike } from './toolServerEntries';

const schemaText = fc.oneof(
  fc.constant(''),
  fc.constant('{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}'),
  fc.constant('{"properties":{"n":{"type":"integer","minimum":0}}}'),
  fc.constant('{"type":"array"}'),
  fc.constant('{"type":5}'),
  fc.constant('[1,2]'),
  fc.constant('"text"'),
  fc.constant('{"$ref":"#/nowhere"}'),
  fc.string(),
  fc.json(),
);

const definition: fc.Arbitrary<ToolDefinitionLike> = fc.record({
  name: fc.oneof(fc.constantFrom('search', 'fetch', 'fetch', ''), fc.stringMatching(/^[a-z_]{1,8}$/)),
  description: fc.string({ maxLength: 20 }),
  schema: schemaText,
  version: fc.stringMatching(/^[0-9]\.[0-9]\.[0-9]$/),
  compatibleVersions: fc.array(fc.stringMatching(/^[0-9]\.[0-9]$/), { maxLength: 3 }),
});

describe('toolServerEntries', () => {
  it('never throws; each listed tool is either a registry entry or unusable with a reason, the others kept', () => {
    const validator = new SchemaValidator();
    fc.assert(
      fc.property(fc.array(definition, { maxLength: 12 }), fc.dictionary(fc.constantFrom('search', 'fetch'), fc.constant('0.9')), (definitions, pins) => {
        const { entries, views } = toolServerEntries(definitions, { source: 'src', pins, validator });
        expect(views).toHaveLength(definitions.length);
        for (const view of views) expect(!!view.registryName !== !!view.unusable).toBe(true);
        const registered = views.flatMap((view) => (view.registryName ? [view.registryName] : []));
        expect(entries.map((entry) => entry.name)).toEqual(registered);
        expect(new Set(registered).size).toBe(registered.length);
        for (const entry of entries) {
          expect(validator.problem(entry.inputSchema)).toBeUndefined();
          expect(entry.grpc?.callVersion).toBe(pins[entry.toolName] ?? entry.grpc?.version);
        }
      }),
    );
  });

  it('says why a schema cannot be used', () => {
    const tool = (schema: string) => ({ name: 't', description: '', schema, version: '1', compatibleVersions: [] });
    const reason = (schema: string) => toolServerEntries([tool(schema)], { source: 's' }).views[0]!.unusable;
    expect(reason('{oops')).toMatch(/^its schema is not valid JSON: /);
    expect(reason('[]')).toBe('its schema is not a JSON Schema object');
    expect(reason('{"type":"string"}')).toBe('its schema describes "string", not an object of arguments');
    expect(reason('{"type":"object","properties":{"a":{"type":"nope"}}}')).toMatch(/^its schema is not a valid JSON Schema: /);
    expect(reason('')).toBeUndefined();
  });
});
