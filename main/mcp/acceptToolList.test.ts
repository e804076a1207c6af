import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptToolList } from './acceptToolList';

const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, inputSchema: { type: 'object' }, ...extra });

describe('acceptToolList', () => {
  it('keeps the first of a name listed twice and says so, once', () => {
    const { tools, problems } = acceptToolList([tool('echo', { description: 'first' }), tool('add'), tool('echo', { description: 'second' }), tool('echo')]);
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ['echo', 'first'],
      ['add', undefined],
    ]);
    expect(problems).toEqual(['Tool "echo" is listed more than once; the first definition is used.']);
  });

  it('leaves out a malformed tool with the reason and keeps the others', () => {
    const { tools, problems } = acceptToolList([tool('echo'), { name: 'broken', inputSchema: 'not a schema' }, { description: 'no name' }]);
    expect(tools.map((t) => t.name)).toEqual(['echo']);
    expect(problems).toEqual([
      'Tool "broken" is unusable (inputSchema: Invalid input: expected object, received string); the other tools work.',
      'Tool #3 is unusable (name: Invalid input: expected string, received undefined); the other tools work.',
    ]);
  });

  it('leaves out a tool whose inputSchema is not an object schema (the spec requires type "object"), keeping the rest of a schema loose', () => {
    // A schema for a bare string, or one that names no type, describes arguments that are not a JSON
    // object: the tool could not be called as described, so it is unusable rather than offered.
    const { tools, problems } = acceptToolList([
      { name: 'scalar', inputSchema: { type: 'string' } },
      { name: 'untyped', inputSchema: { properties: { x: { type: 'string' } } } },
      tool('loose', { inputSchema: { type: 'object', properties: { x: { type: 'string', 'x-vendor': true } }, additionalProperties: false, $defs: {} } }),
    ]);
    expect(tools.map((t) => [t.name, t.inputSchema])).toEqual([['loose', { type: 'object', properties: { x: { type: 'string', 'x-vendor': true } }, additionalProperties: false, $defs: {} }]]);
    expect(problems).toEqual([
      'Tool "scalar" is unusable (inputSchema.type: Invalid input: expected "object"); the other tools work.',
      'Tool "untyped" is unusable (inputSchema.type: Invalid input: expected "object"); the other tools work.',
    ]);
  });

  it('never throws, and every accepted name is unique (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.anything(), fc.record({ name: fc.constantFrom('a', 'b', 'c'), inputSchema: fc.oneof(fc.constant({ type: 'object' }), fc.anything()) }))), (entries) => {
        const { tools } = acceptToolList(entries);
        expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
      }),
      { numRuns: 2_000 },
    );
  });
});
