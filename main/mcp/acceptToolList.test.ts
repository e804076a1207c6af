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
      'Tool "broken" is unusable (inputSchema: Invalid input: expected record, received string); the other tools work.',
      'Tool #3 is unusable (name: Invalid input: expected string, received undefined); the other tools work.',
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
