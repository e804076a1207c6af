import { isDeepStrictEqual } from 'node:util';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { LinearPattern } from '../../shared/linearPattern';
import { ajvLinearRegExp, linearPattern } from '../platform/linearPattern';
import { assertionKind, type Assertion, type AssertionResult, type JsonType } from '../../shared/collections';
import type { InvocationOutcome } from '../../shared/registry';
import { outcomeDocument, queryOutcome } from './queryOutcome';

/**
 * Checks one outcome against a request's assertions (operands already resolved). Values in messages
 * are whole: the runner masks secrets first and only then shortens long strings, so a cut can never
 * leave part of a secret behind.
 */
export class AssertionEvaluator {
  // Patterns (`matches`, and a schema's `pattern`) run in RE2, in linear time: a collection from a
  // cloned repository, or a schema copied from a server, cannot stall the runner with `^(a|a)+$`.
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true, code: { regExp: ajvLinearRegExp } });
  private readonly compiled = new WeakMap<object, ValidateFunction | Error>();

  constructor() {
    addFormats(this.ajv);
  }

  evaluate(assertion: Assertion, outcome: InvocationOutcome): AssertionResult {
    switch (assertionKind(assertion)) {
      case 'status':
        return this.status(assertion, outcome);
      case 'path':
        return this.path(assertion, outcome);
      case 'schema':
        return this.schema(assertion, outcome);
      case 'latencyBelowMs':
        return latency(assertion.latencyBelowMs!, outcome);
    }
  }

  private status(assertion: Assertion, outcome: InvocationOutcome): AssertionResult {
    const expected = assertion.status!;
    const description = `status is ${expected}${assertion.code ? ` ${assertion.code}` : ''}`;
    const actualStatus = outcome.error ? 'error' : outcome.result?.isError ? 'isError' : 'ok';
    const actual = outcome.error ? { status: 'error', code: outcome.error.code, message: outcome.error.message } : actualStatus;
    const got = outcome.error ? `error ${outcome.error.code}: ${outcome.error.message}` : actualStatus === 'isError' ? `isError: ${firstText(outcome)}` : 'ok';
    const passed = actualStatus === expected && (!assertion.code || outcome.error?.code === assertion.code);
    return { description, passed, message: passed ? `got ${got}` : `expected ${expected}${assertion.code ? ` ${assertion.code}` : ''}, got ${got}`, actual };
  }

  private path(assertion: Assertion, outcome: InvocationOutcome): AssertionResult {
    const path = assertion.path!;
    const operator = Object.hasOwn(assertion, 'equals') ? 'equals' : assertion.contains !== undefined ? 'contains' : assertion.matches !== undefined ? 'matches' : assertion.type !== undefined ? 'type' : 'exists';
    const description = `${path} ${describeOperator(assertion, operator)}`;
    let match;
    try {
      match = queryOutcome(outcome, path);
    } catch (error) {
      return { description, passed: false, message: (error as Error).message };
    }
    if (operator === 'exists') {
      const passed = match.found === assertion.exists;
      return { description, passed, message: match.found ? `found ${preview(match.value)}` : 'nothing there', ...(match.found ? { actual: match.value } : {}) };
    }
    if (!match.found) return { description, passed: false, message: `nothing at ${path}` };
    const actual = match.value;
    const verdict = checkOperator(assertion, operator, actual);
    return { description, passed: verdict.passed, message: verdict.passed ? `got ${preview(actual)}` : verdict.message, actual };
  }

  private schema(assertion: Assertion, outcome: InvocationOutcome): AssertionResult {
    const of = assertion.of ?? 'result';
    const description = `${of} matches the schema`;
    const value = of === 'structuredContent' ? outcome.result?.structuredContent : outcomeDocument(outcome);
    if (value === undefined) return { description, passed: false, message: 'the result has no structuredContent' };
    const validate = this.compile(assertion.schema!);
    if (validate instanceof Error) return { description, passed: false, message: `the schema cannot be used: ${validate.message}` };
    if (validate(value)) return { description, passed: true, message: 'valid', actual: value };
    return { description, passed: false, message: (validate.errors ?? []).map(describeSchemaError).join('; '), actual: value };
  }

  private compile(schema: Record<string, unknown>): ValidateFunction | Error {
    let compiled = this.compiled.get(schema);
    if (compiled) return compiled;
    try {
      const { $schema: _dialect, ...rest } = schema;
      compiled = this.ajv.compile(rest);
    } catch (error) {
      compiled = error as Error;
    }
    this.compiled.set(schema, compiled);
    return compiled;
  }
}

function latency(limit: number, outcome: InvocationOutcome): AssertionResult {
  const actual = outcome.record.latencyMs;
  const passed = actual < limit;
  return { description: `latency below ${limit} ms`, passed, message: `took ${actual} ms`, actual };
}

type Operator = 'equals' | 'contains' | 'matches' | 'type' | 'exists';

function describeOperator(a: Assertion, operator: Operator): string {
  switch (operator) {
    case 'equals':
      return `equals ${preview(a.equals)}`;
    case 'contains':
      return `contains ${preview(a.contains)}`;
    case 'matches':
      return `matches /${a.matches}/`;
    case 'type':
      return `is of type ${a.type}`;
    case 'exists':
      return a.exists ? 'exists' : 'does not exist';
  }
}

function checkOperator(a: Assertion, operator: Operator, actual: unknown): { passed: boolean; message: string } {
  switch (operator) {
    case 'equals':
      return { passed: isDeepStrictEqual(actual, a.equals), message: `expected ${preview(a.equals)}, got ${preview(actual)}` };
    case 'contains':
      return contains(actual, a.contains);
    case 'matches': {
      if (typeof actual !== 'string') return { passed: false, message: `expected a string to match, got ${typeOf(actual)} ${preview(actual)}` };
      let regex: LinearPattern;
      try {
        regex = linearPattern(a.matches!);
      } catch (error) {
        return { passed: false, message: `${(error as Error).message}, so the assertion cannot pass` };
      }
      return { passed: regex.test(actual), message: `${preview(actual)} does not match /${a.matches}/` };
    }
    case 'type':
      return { passed: isOfType(actual, a.type!), message: `expected ${a.type}, got ${typeOf(actual)} ${preview(actual)}` };
    case 'exists':
      return { passed: true, message: '' };
  }
}

function contains(actual: unknown, expected: unknown): { passed: boolean; message: string } {
  const message = `${preview(actual)} does not contain ${preview(expected)}`;
  if (typeof actual === 'string') {
    if (typeof expected !== 'string') return { passed: false, message: `a string can only contain a string; ${preview(expected)} is ${typeOf(expected)}` };
    return { passed: actual.includes(expected), message };
  }
  if (Array.isArray(actual)) return { passed: actual.some((item) => isDeepStrictEqual(item, expected) || isSubset(item, expected)), message };
  if (isPlainObject(actual)) return { passed: isSubset(actual, expected), message };
  return { passed: false, message: `contains needs a string, an array or an object; got ${typeOf(actual)} ${preview(actual)}` };
}

/** Every key of `expected` is in `actual` with an equal (or, for objects, contained) value. */
function isSubset(actual: unknown, expected: unknown): boolean {
  if (!isPlainObject(actual) || !isPlainObject(expected)) return false;
  return Object.entries(expected).every(([k, v]) => Object.hasOwn(actual, k) && (isDeepStrictEqual(actual[k], v) || isSubset(actual[k], v)));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function isOfType(value: unknown, type: JsonType): boolean {
  if (type === 'integer') return Number.isInteger(value);
  return typeOf(value) === type;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function firstText(outcome: InvocationOutcome): string {
  const block = outcome.result?.content.find((b) => b.type === 'text');
  return block && block.type === 'text' ? block.text : '(no text)';
}

function describeSchemaError(error: ErrorObject): string {
  const at = error.instancePath || '(root)';
  if (error.keyword === 'required') return `${error.instancePath}/${String(error.params.missingProperty)} is required`;
  if (error.keyword === 'additionalProperties') return `${error.instancePath}/${String(error.params.additionalProperty)} is not allowed`;
  return `${at} ${error.message ?? 'is invalid'}`;
}

function preview(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}
