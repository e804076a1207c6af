import { describe, expect, it } from 'vitest';
import { SchemaValidator } from './SchemaValidator';

/**
 * Tool schemas come from servers. A hand-written hostile tool schema here carries `^(a|a)+$`, on
 * which JavaScript's backtracking RegExp takes time exponential in the argument's length (a
 * 40-character argument stalled the main process for minutes); RE2 answers in linear time.
 */
describe('SchemaValidator patterns', () => {
  const hostile = { type: 'object', properties: { word: { type: 'string', pattern: '^(a|a)+$' } } };

  it('runs a catastrophic-backtracking pattern in linear time and still enforces it', () => {
    const validator = new SchemaValidator();
    expect(() => validator.validate('hostile', hostile, { word: `${'a'.repeat(40)}!` })).toThrow(/\/word must match pattern "\^\(a\|a\)\+\$"/);
    expect(() => validator.validate('hostile', hostile, { word: `${'a'.repeat(100_000)}!` })).toThrow(/must match pattern/);
    expect(() => validator.validate('hostile', hostile, { word: 'a'.repeat(40) })).not.toThrow();
  });

  it('runs patternProperties keys in the same engine', () => {
    const validator = new SchemaValidator();
    const schema = { type: 'object', patternProperties: { '^(a|a)+$': { type: 'integer' } } };
    expect(() => validator.validate('keys', schema, { [`${'a'.repeat(40)}!`]: 'not checked', aaaa: 1 })).not.toThrow();
    expect(() => validator.validate('keys', schema, { aaaa: 'x' })).toThrow(/\/aaaa must be integer/);
  });

  it('refuses a schema whose pattern RE2 cannot run, in one sentence naming the pattern', () => {
    const validator = new SchemaValidator();
    const lookahead = { type: 'object', properties: { name: { type: 'string', pattern: '^(?!admin).*$' } } };
    expect(validator.problem(lookahead)).toBe(
      "The tool's inputSchema cannot be used: the pattern /^(?!admin).*$/ uses a construct (a backreference or lookaround) that Tooldeck's linear-time pattern engine (RE2) does not run",
    );
    expect(() => validator.validate('lookahead', lookahead, { name: 'bob' })).toThrow(expect.objectContaining({ code: 'ExecutionFailed', step: 'validate' }));
    expect(validator.problem({ type: 'string', pattern: '(a)\\1' })).toMatch(/the pattern \/\(a\)\\1\/ uses a construct/);
  });

  it('reads JavaScript pattern syntax the way RegExp does for ordinary patterns', () => {
    const validator = new SchemaValidator();
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z][\\w-]{2,}\\d$' }, letter: { type: 'string', pattern: '^\\p{L}$' } } };
    expect(() => validator.validate('ids', schema, { id: 'ab-c1', letter: 'é' })).not.toThrow();
    expect(() => validator.validate('ids', schema, { id: '1abc' })).toThrow(/\/id must match pattern/);
  });
});
