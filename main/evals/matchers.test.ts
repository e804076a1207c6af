import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EvalExpectation, type ExpectedToolCall } from '../../shared/evals';
import { judgeRun, partialMatch, type ActualToolCall } from './matchers';

const toolName = fc.constantFrom('echo', 'get-sum', 'search', 'fetch', 'write');
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const args = fc.dictionary(fc.constantFrom('a', 'b', 'message', 'city', 'n'), scalar, { maxKeys: 4 });
const call = fc.record({ tool: toolName, arguments: args });
const calls = fc.array(call, { maxLength: 5 });

const actual = (list: readonly { tool: string; arguments: Record<string, unknown> }[]): ActualToolCall[] => list.map((item) => ({ names: [`mcp:everything.${item.tool}`, `everything.${item.tool}`, item.tool], arguments: item.arguments }));
const expectation = (toolCalls: ExpectedToolCall[], rest: Partial<EvalExpectation> = {}) => EvalExpectation.parse({ toolCalls, ...rest });
const orders = fc.constantFrom('ignore' as const, 'strict' as const, 'superset' as const);
const argumentModes = fc.constantFrom('partial' as const, 'exact' as const, 'ignore' as const);

function shuffled<T>(list: readonly T[], seed: number): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = (seed * (i + 7)) % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

describe('eval matchers (MCPJam semantics)', () => {
  it('the calls a model made always pass as their own expectation, in every order and argument mode', () => {
    fc.assert(
      fc.property(calls, orders, argumentModes, (made, order, argumentMatching) => {
        expect(judgeRun(expectation(made, { order, argumentMatching }), actual(made), 'x')).toEqual({ passed: true, failures: [] });
      }),
    );
  });

  it('order ignore and superset accept any order; strict refuses one where the tools change places', () => {
    fc.assert(
      fc.property(calls, fc.nat(), (made, seed) => {
        const reordered = shuffled(made, seed);
        expect(judgeRun(expectation(made, { order: 'ignore' }), actual(reordered), '').passed).toBe(true);
        expect(judgeRun(expectation(made, { order: 'superset' }), actual(reordered), '').passed).toBe(true);
        const sameToolSequence = reordered.every((item, index) => item.tool === made[index]!.tool);
        if (!sameToolSequence) expect(judgeRun(expectation(made, { order: 'strict', argumentMatching: 'ignore' }), actual(reordered), '').passed).toBe(false);
      }),
    );
  });

  it('extra calls: superset passes them, ignore and strict only up to maxExtraToolCalls', () => {
    fc.assert(
      fc.property(calls, fc.array(call, { minLength: 1, maxLength: 3 }), orders, (made, extra, order) => {
        const withExtra = actual([...made, ...extra]);
        const verdict = judgeRun(expectation(made, { order }), withExtra, '');
        expect(verdict.passed).toBe(order === 'superset');
        expect(judgeRun(expectation(made, { order, maxExtraToolCalls: extra.length }), withExtra, '').passed).toBe(true);
        if (extra.length > 0) expect(judgeRun(expectation(made, { order, maxExtraToolCalls: extra.length - 1 }), withExtra, '').passed).toBe(false);
      }),
    );
  });

  it('a missing expected call fails whatever the order, naming the call', () => {
    fc.assert(
      fc.property(calls, call, orders, (made, missing, order) => {
        const want = { tool: 'never-called', arguments: missing.arguments };
        const verdict = judgeRun(expectation([...made, want], { order }), actual(made), '');
        expect(verdict.passed).toBe(false);
        expect(verdict.failures.join(' ')).toContain('never-called');
      }),
    );
  });

  it('partial matching: extra keys pass, the type checks "string", "number" and "any" check types, a different value fails', () => {
    fc.assert(
      fc.property(args, args, (given, more) => {
        const all = { ...more, ...given };
        expect(partialMatch(given, all)).toBe(true);
        const typed = Object.fromEntries(Object.entries(given).map(([key, value]) => [key, typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'any']));
        expect(partialMatch(typed, all)).toBe(true);
      }),
    );
    expect(partialMatch({ a: 'number' }, { a: '2' })).toBe(false);
    expect(partialMatch({ a: 'string' }, { a: 2 })).toBe(false);
    expect(partialMatch({ a: 'any' }, {})).toBe(false);
    expect(partialMatch({ a: 'any' }, { a: null })).toBe(true);
    expect(partialMatch({ a: { b: 'number' } }, { a: { b: 1, c: 2 } })).toBe(true);
    expect(partialMatch({ a: [1, 'string'] }, { a: [1, 'x'] })).toBe(true);
    expect(partialMatch({ a: [1] }, { a: [1, 2] })).toBe(false);
  });

  it('exact matching refuses an extra key and a type check stands for itself; ignore never looks', () => {
    fc.assert(
      fc.property(toolName, args, (tool, given) => {
        const made = actual([{ tool, arguments: { ...given, extra_key: 1 } }]);
        expect(judgeRun(expectation([{ tool, arguments: given }], { argumentMatching: 'exact' }), made, '').passed).toBe(false);
        expect(judgeRun(expectation([{ tool, arguments: given }], { argumentMatching: 'partial' }), made, '').passed).toBe(true);
        expect(judgeRun(expectation([{ tool, arguments: { nothing: 'like this' } }], { argumentMatching: 'ignore' }), made, '').passed).toBe(true);
      }),
    );
    expect(judgeRun(expectation([{ tool: 'echo', arguments: { message: 'string' } }], { argumentMatching: 'exact' }), actual([{ tool: 'echo', arguments: { message: 'hi' } }]), '').passed).toBe(false);
  });

  it('a tool is expected by any of its names; any-order matching finds an assignment greedy matching would miss', () => {
    const made = actual([
      { tool: 'echo', arguments: { message: 'hi' } },
      { tool: 'echo', arguments: { message: 'yo' } },
    ]);
    // The first expectation fits both calls, the second only the first call: greedy would take the first for the first.
    const verdict = judgeRun(expectation([{ tool: 'mcp:everything.echo', arguments: { message: 'string' } }, { tool: 'everything.echo', arguments: { message: 'hi' } }]), made, '');
    expect(verdict).toEqual({ passed: true, failures: [] });
  });

  it('no expected calls: the model must call none (ignore, strict), any number under superset', () => {
    const made = actual([{ tool: 'echo', arguments: {} }]);
    expect(judgeRun(expectation([]), made, '').passed).toBe(false);
    expect(judgeRun(expectation([]), [], '').passed).toBe(true);
    expect(judgeRun(expectation([], { order: 'superset' }), made, '').passed).toBe(true);
  });

  it('finalAnswerContains checks each text, case-sensitively', () => {
    expect(judgeRun(expectation([], { finalAnswerContains: ['42', 'sum'] }), [], 'The sum is 42.').passed).toBe(true);
    const verdict = judgeRun(expectation([], { finalAnswerContains: 'Sum' }), [], 'The sum is 42.');
    expect(verdict.failures).toEqual(['The final answer does not contain "Sum".']);
    expect(judgeRun(expectation([], { finalAnswerContains: 'x' }), [], undefined).passed).toBe(false);
  });
});
