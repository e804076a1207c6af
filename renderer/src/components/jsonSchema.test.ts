import { describe, expect, it } from 'vitest';
import { conforms, readablePath, schemaProblems } from './jsonSchema';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  $defs: { address: { type: 'object', properties: { city: { type: 'string', minLength: 2 } }, required: ['city'] } },
  properties: {
    name: { type: 'string' },
    count: { type: 'integer', minimum: 1 },
    color: { enum: ['red', 'green'] },
    home: { $ref: '#/$defs/address' },
    tags: { type: 'array', items: { type: 'string' } },
    target: { oneOf: [{ type: 'object', required: ['id'] }, { type: 'object', required: ['label'] }] },
  },
  required: ['name'],
  additionalProperties: false,
};

function byPath(value: unknown) {
  return Object.fromEntries(schemaProblems(schema, value).map((p) => [readablePath(p.path), p.message]));
}

describe('schemaProblems', () => {
  it('accepts a conforming value, whatever dialect the schema declares', () => {
    expect(schemaProblems(schema, { name: 'Ada', count: 2, home: { city: 'Oslo' }, target: { id: 1 } })).toEqual([]);
  });

  it('names each failing place once, in words, through $refs and arrays', () => {
    expect(byPath({ count: 0, color: 'blue', home: { city: 'A' }, tags: ['a', 2], target: {}, extra: true })).toEqual({
      name: 'is required',
      count: 'must be >= 1',
      color: 'must be one of "red", "green"',
      'home.city': 'must have at least 2 characters',
      'tags[1]': 'must be string',
      target: 'must match exactly one of the options',
      extra: 'is not allowed here',
    });
  });

  it('reports a schema it cannot use instead of throwing', () => {
    expect(schemaProblems({ $ref: '#/$defs/missing' }, {})).toHaveLength(1);
  });

  it('resolves a sub-schema’s $refs against its root', () => {
    const root = { $defs: { n: { type: 'number' } }, properties: { x: { $ref: '#/$defs/n' } } };
    expect(conforms({ $ref: '#/$defs/n' }, 3, root)).toBe(true);
    expect(conforms({ $ref: '#/$defs/n' }, 'three', root)).toBe(false);
  });

  it("runs a server schema's patterns in linear time: a hand-written hostile `^(a|a)+$` cannot freeze the form", () => {
    const hostile = { type: 'object', properties: { word: { type: 'string', pattern: '^(a|a)+$' } }, patternProperties: { '^(b|b)+$': { type: 'integer' } } };
    // 2^40 backtracking steps for RegExp; RE2 reads the 41 characters once.
    expect(schemaProblems(hostile, { word: `${'a'.repeat(40)}!` })).toEqual([{ path: '/word', message: 'must match ^(a|a)+$', keyword: 'pattern' }]);
    expect(schemaProblems(hostile, { word: 'aaaa', [`${'b'.repeat(40)}!`]: 'x', bbbb: 'y' })).toEqual([{ path: '/bbbb', message: 'must be integer', keyword: 'type' }]);
    expect(globalThis.RegExp).toBe(RegExp);
    expect(new RegExp('a+').exec('baa')?.index).toBe(1);
  });

  it('reports a schema whose pattern RE2 cannot run as unusable, in one sentence naming it', () => {
    expect(schemaProblems({ type: 'string', pattern: '^(?!admin)' }, 'bob')).toEqual([
      { path: '', message: "the schema cannot be used: the pattern /^(?!admin)/ uses a construct (a backreference or lookaround) that Tooldeck's linear-time pattern engine (RE2) does not run", keyword: '$schema' },
    ]);
    expect(new RegExp('^(?!admin)').test('bob')).toBe(true);
  });
});
