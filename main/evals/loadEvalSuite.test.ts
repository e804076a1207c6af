import Ajv from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { evalSuiteSchema } from '../../shared/evals';
import { kindInfo } from '../../shared/resources/kinds';
import { parseResourceText } from '../resources/parseResourceText';
import { loadEvalSuite } from './loadEvalSuite';

const suite = `name: sums
agent: runner
cases:
  - name: adds
    prompt: Please add 2 and 40
    expect:
      toolCalls:
        - tool: everything.get-sum
          arguments: { a: number, b: 40 }
`;

describe('eval suite files', () => {
  it('reads a suite with the defaults applied', () => {
    expect(loadEvalSuite(suite, 'evals/sums.yml')).toEqual({
      name: 'sums',
      agent: 'runner',
      iterations: 1,
      cases: [{ name: 'adds', prompt: 'Please add 2 and 40', expect: { toolCalls: [{ tool: 'everything.get-sum', arguments: { a: 'number', b: 40 } }], order: 'ignore', argumentMatching: 'partial' } }],
    });
  });

  it('says where a suite is wrong, in one sentence: file, line and column, the field, the problem', () => {
    expect(() => loadEvalSuite(suite.replace('expect:\n', 'expect:\n      order: sideways\n'), 'evals/sums.yml')).toThrow(/^evals\/sums\.yml:7:14: cases\[0\]\.expect\.order: Invalid option: expected one of "ignore"\|"strict"\|"superset"\.?$/);
    expect(() => loadEvalSuite(suite.replace('agent: runner\n', ''), 'x.yml')).toThrow(/^x\.yml:1:1: .*agent \(its grants\) or tools/);
    expect(() => loadEvalSuite(suite.replace('    prompt:', '    promt:'), 'x.yml')).toThrow(/^x\.yml:5:5: cases\[0\]\.promt: is not a field of an eval suite here/);
    expect(() => loadEvalSuite('name: [unclosed\n', 'x.yml')).toThrow(/^x\.yml:\d+:\d+: Flow sequence/);
    expect(() => loadEvalSuite('', 'x.yml')).toThrow('x.yml is empty');
    expect(() => loadEvalSuite('- 1\n', 'x.yml')).toThrow('x.yml:1:1: an eval suite must be a mapping');
  });

  it('the Resources editor’s schema agrees with the reader, and workspace files under evals/ are read as suites', () => {
    expect(kindInfo('EvalSuite')?.schema).toBe(evalSuiteSchema);
    const validate = new Ajv({ allErrors: true, strict: false }).compile(evalSuiteSchema);
    expect(validate(parse(suite))).toBe(true);
    expect(validate(parse(suite.replace('expect:\n', 'expect:\n      order: sideways\n')))).toBe(false);
    expect(validate(parse(suite.replace('    prompt:', '    promt:')))).toBe(false);
    const [document] = parseResourceText(suite, { fileName: 'evals/team/sums.yaml' });
    expect(document).toMatchObject({ kind: 'EvalSuite', name: 'sums', valid: true });
    expect(parseResourceText(suite, { fileName: 'sums.yaml' })[0]!.valid).toBe(false);
  });
});
