import { describe, expect, it } from 'vitest';
import { Assertion } from '../../shared/collections';
import type { InvocationOutcome, ToolResult } from '../../shared/registry';
import { AssertionEvaluator } from './AssertionEvaluator';

// Outcomes are plain values of the contract's shape, as the pipeline returns them.
function outcome(result?: ToolResult, error?: InvocationOutcome['error'], latencyMs = 12): InvocationOutcome {
  return {
    record: { id: 'r1', startedAt: 0, sourceKind: 'mcp', sourceName: 's', tool: 't', argumentsJson: '{}', status: error ? 'error' : 'ok', latencyMs, requestBytes: 2, responseBytes: 10, resultPreview: '', truncated: false },
    truncated: false,
    ...(result ? { result } : {}),
    ...(error ? { error } : {}),
  };
}

const weather = outcome({ content: [{ type: 'text', text: '{"temperature":36}' }, { type: 'text', text: 'second' }], structuredContent: { temperature: 36, tags: ['rain', 'wind'], wind: { speed: 4, unit: 'm/s' } } });
const invalid = outcome(undefined, { code: 'InvalidArguments', message: 'Invalid arguments for mcp:s.t: /a must be number.', retryable: false });
const evaluator = new AssertionEvaluator();
const check = (assertion: unknown, on: InvocationOutcome) => evaluator.evaluate(Assertion.parse(assertion), on);

describe('AssertionEvaluator', () => {
  it('checks status: ok, isError, and error with its code', () => {
    expect(check({ status: 'ok' }, weather)).toEqual({ description: 'status is ok', passed: true, message: 'got ok', actual: 'ok' });
    expect(check({ status: 'error', code: 'InvalidArguments' }, invalid)).toMatchObject({ passed: true });
    expect(check({ status: 'error', code: 'Timeout' }, invalid)).toEqual({
      description: 'status is error Timeout',
      passed: false,
      message: 'expected error Timeout, got error InvalidArguments: Invalid arguments for mcp:s.t: /a must be number.',
      actual: { status: 'error', code: 'InvalidArguments', message: 'Invalid arguments for mcp:s.t: /a must be number.' },
    });
    expect(check({ status: 'isError' }, outcome({ content: [{ type: 'text', text: 'boom' }], isError: true }))).toMatchObject({ passed: true, message: 'got isError: boom' });
  });

  it('applies each path operator, to structured content, the text shorthand and the error', () => {
    expect(check({ path: '$.structuredContent.temperature', equals: 36 }, weather)).toMatchObject({ passed: true, actual: 36 });
    expect(check({ path: '$.structuredContent.temperature', equals: '36' }, weather)).toMatchObject({ passed: false, message: 'expected "36", got 36', actual: 36 });
    expect(check({ path: 'text', contains: 'second' }, weather)).toMatchObject({ passed: true, actual: '{"temperature":36}\nsecond' });
    expect(check({ path: '$.structuredContent.tags', contains: 'wind' }, weather)).toMatchObject({ passed: true });
    expect(check({ path: '$.structuredContent', contains: { wind: { unit: 'm/s' } } }, weather)).toMatchObject({ passed: true });
    expect(check({ path: "$['structuredContent']['wind'].speed", type: 'integer' }, weather)).toMatchObject({ passed: true });
    expect(check({ path: '$.content[1].text', matches: '^sec' }, weather)).toMatchObject({ passed: true });
    expect(check({ path: '$.content[*].type', equals: ['text', 'text'] }, weather)).toMatchObject({ passed: true });
    expect(check({ path: '$.error.code', equals: 'InvalidArguments' }, invalid)).toMatchObject({ passed: true });
    expect(check({ path: '$.structuredContent.pressure', exists: false }, weather)).toMatchObject({ passed: true, message: 'nothing there' });
    expect(check({ path: '$.structuredContent.pressure', equals: 1 }, weather)).toEqual({ description: '$.structuredContent.pressure equals 1', passed: false, message: 'nothing at $.structuredContent.pressure' });
    expect(check({ path: '$.content[0].text', matches: '(' }, weather)).toMatchObject({ passed: false, message: expect.stringContaining('is not a regular expression') });
  });

  it('validates the result or its structured content against a JSON Schema (2020-12)', () => {
    const schema = { type: 'object', required: ['temperature', 'humidity'], properties: { temperature: { type: 'number', maximum: 30 } } };
    expect(check({ schema, of: 'structuredContent' }, weather)).toMatchObject({
      description: 'structuredContent matches the schema',
      passed: false,
      message: '/humidity is required; /temperature must be <= 30',
      actual: weather.result!.structuredContent,
    });
    expect(check({ schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: ['content'], properties: { content: { type: 'array', minItems: 2 } } } }, weather)).toMatchObject({ description: 'result matches the schema', passed: true });
    expect(check({ schema: { type: 'object' }, of: 'structuredContent' }, invalid)).toMatchObject({ passed: false, message: 'the result has no structuredContent' });
  });

  it('runs `matches` and schema patterns in linear time, and names a pattern RE2 cannot run', () => {
    // A hand-written hostile result and pattern: backtracking needs 2^40 steps for `^(a|a)+$` here.
    const hostile = outcome({ content: [{ type: 'text', text: `${'a'.repeat(40)}!` }], structuredContent: { word: `${'a'.repeat(40)}!` } });
    expect(check({ path: 'text', matches: '^(a|a)+$' }, hostile)).toMatchObject({ passed: false, message: expect.stringContaining('does not match /^(a|a)+$/') });
    expect(check({ path: 'text', matches: '^(a|a)+!$' }, hostile)).toMatchObject({ passed: true });
    expect(check({ schema: { type: 'object', properties: { word: { pattern: '^(a|a)+$' } } }, of: 'structuredContent' }, hostile)).toMatchObject({ passed: false, message: '/word must match pattern "^(a|a)+$"' });
    expect(check({ path: 'text', matches: 'a(?=!)' }, hostile)).toMatchObject({
      description: 'text matches /a(?=!)/',
      passed: false,
      message: "the pattern /a(?=!)/ uses a construct (a backreference or lookaround) that Tooldeck's linear-time pattern engine (RE2) does not run, so the assertion cannot pass",
    });
  });

  it('checks latency against the pipeline record', () => {
    expect(check({ latencyBelowMs: 100 }, outcome({ content: [] }, undefined, 12))).toEqual({ description: 'latency below 100 ms', passed: true, message: 'took 12 ms', actual: 12 });
    expect(check({ latencyBelowMs: 10 }, outcome({ content: [] }, undefined, 12))).toMatchObject({ passed: false, actual: 12 });
  });

  it('refuses assertions that are ambiguous or misspelled', () => {
    expect(Assertion.safeParse({ path: 'text', equals: 1, contains: 'x' }).error?.issues[0]?.message).toBe('a path assertion has exactly one of equals, contains, matches, type, exists (found equals, contains)');
    expect(Assertion.safeParse({ status: 'ok', latencyBelowMs: 5 }).error?.issues[0]?.message).toBe('an assertion has exactly one of status, path, schema, latencyBelowMs (found status, latencyBelowMs)');
    expect(Assertion.safeParse({ status: 'ok', code: 'Timeout' }).error?.issues[0]?.message).toBe('`code` goes with `status: error`');
    expect(Assertion.safeParse({ path: 'structuredContent.x', exists: true }).error?.issues[0]?.message).toBe('a path starts with `$` (the result) or is `text`');
  });
});
