import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Collection } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import { asFileText, mutated, yamlSoup } from '../testing/mutations';
import { parseCollection } from './collectionYaml';
import { parseEnvironment } from './loadEnvironmentFile';

const example = parse(readFileSync(join(import.meta.dirname, '../../examples/collections/everything.yaml'), 'utf8'));
/** The example collection, and a small one of each request target kind, to mutate. */
const seeds = [
  example,
  { name: 'small', requests: [{ name: 'a', target: 'http:svc', tool: 'get', arguments: { q: '{{term}}' }, assertions: [{ status: 'ok' }], capture: { id: '$.structuredContent.id' } }] },
  { name: 'grpc', variables: { n: 1 }, requests: [{ name: 'b', target: 'grpc:source', tool: 'pkg.Service/Method', assertions: [{ path: 'text', contains: 'x' }, { latencyBelowMs: 100 }] }] },
];

/** Either a valid collection, or an InvalidInput AppError that says what is wrong: nothing else may come out. */
function check(text: string) {
  let parsed;
  try {
    parsed = parseCollection(text, 'generated.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('InvalidInput');
    const { message } = error as AppError;
    expect(message.startsWith('generated.yaml')).toBe(true);
    expect(message).not.toMatch(/\[object Object\]/);
    // The first few problems, not one per line of a garbage file.
    expect(message.length).toBeLessThan(20_000);
    return false;
  }
  expect(Collection.safeParse(parsed.collection).success).toBe(true);
  return true;
}

// A YAML warning emitted as a process warning reaches stderr raw, quoting the file: none may be.
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
  expect(warnings.map((warning) => warning.message)).toEqual([]);
});

// 10,000 inputs in all, across four tests.
describe('the collection parser against generated files (fast-check)', () => {
  it('never crashes on arbitrary text, and refuses it with InvalidInput', { timeout: 60_000 }, () => {
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 })), (text) => void check(text)), { numRuns: 3_000 });
  });

  it('never crashes on YAML syntax in random order', { timeout: 60_000 }, () => {
    fc.assert(fc.property(yamlSoup, (text) => void check(text)), { numRuns: 2_000 });
  });

  it('parses near-valid collections (examples with random edits, YAML or JSON) or names the problem', { timeout: 120_000 }, () => {
    let accepted = 0;
    fc.assert(
      fc.property(asFileText(mutated(seeds)), (text) => {
        if (check(text)) accepted++;
      }),
      { numRuns: 4_000 },
    );
    console.log(`near-valid collections accepted: ${accepted} of 4000`);
    expect(accepted).toBeGreaterThan(100);
  });

  it('regressions these properties found: an alias to no anchor threw a ReferenceError; an unknown tag in an environment file printed a process warning quoting it', () => {
    for (const text of ['*!', '<<: *a\n', 'name: *nowhere\n']) expect(() => parseCollection(text, 'generated.yaml'), text).toThrow(AppError);
    expect(parseEnvironment('a: !custom x\n', 'env.yaml')).toEqual({ a: 'x' });
  });

  it('environment files: a mapping of variable names, or one InvalidInput sentence', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.oneof(yamlSoup, fc.string({ maxLength: 200 }), fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 })).map((value) => JSON.stringify(value))), (text) => {
        try {
          expect(typeof parseEnvironment(text, 'env.yaml')).toBe('object');
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).message).toMatch(/^env\.yaml/);
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
