import type { EvalArgumentMatching, EvalExpectation, ExpectedToolCall } from '../../shared/evals';

/** A call the model made, with every name it may be expected by (registry name, `<source>.<tool>`, shown name, bare tool). */
export interface ActualToolCall {
  names: readonly string[];
  arguments: Record<string, unknown>;
}

export interface MatchVerdict {
  passed: boolean;
  /** Why not, one sentence each (empty when passed). */
  failures: string[];
}

type Json = unknown;

const isPlainObject = (value: Json): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Deep equality of JSON values (key order does not matter). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
    return keys.length === otherKeys.length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}

/**
 * Partial matching (MCPJam's): every key the expectation gives must match; other keys may be there.
 * The strings "string" and "number" check the type, "any" only that the key is there. Objects
 * match partially all the way down; arrays element by element, with the same length.
 */
export function partialMatch(expected: Json, actual: Json): boolean {
  if (expected === 'string') return typeof actual === 'string';
  if (expected === 'number') return typeof actual === 'number' && Number.isFinite(actual);
  if (expected === 'any') return actual !== undefined;
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((item, index) => partialMatch(item, actual[index]));
  if (isPlainObject(expected)) return isPlainObject(actual) && Object.entries(expected).every(([key, value]) => value === undefined || (Object.hasOwn(actual, key) && partialMatch(value, actual[key])));
  return jsonEqual(expected, actual);
}

/** Does this call satisfy that expected call (its tool, and its arguments by the mode)? */
export function callMatches(expected: ExpectedToolCall, actual: ActualToolCall, mode: EvalArgumentMatching): boolean {
  if (!actual.names.includes(expected.tool)) return false;
  if (expected.arguments === undefined || mode === 'ignore') return true;
  return mode === 'exact' ? jsonEqual(expected.arguments, actual.arguments) : partialMatch(expected.arguments, actual.arguments);
}

/** The most expected calls matched by distinct actual calls, in any order (bipartite matching by augmenting paths). */
function matchAnyOrder(expected: readonly ExpectedToolCall[], actual: readonly ActualToolCall[], mode: EvalArgumentMatching): { matched: number; unmatched: number[] } {
  const fits = expected.map((want) => actual.map((call) => callMatches(want, call, mode)));
  const ownerOf = new Array<number>(actual.length).fill(-1);
  const place = (want: number, seen: boolean[]): boolean => {
    for (let call = 0; call < actual.length; call++) {
      if (!fits[want]![call] || seen[call]) continue;
      seen[call] = true;
      if (ownerOf[call] === -1 || place(ownerOf[call]!, seen)) {
        ownerOf[call] = want;
        return true;
      }
    }
    return false;
  };
  const unmatched: number[] = [];
  for (let want = 0; want < expected.length; want++) if (!place(want, new Array<boolean>(actual.length).fill(false))) unmatched.push(want);
  return { matched: expected.length - unmatched.length, unmatched };
}

/** The expected calls matched in their order, each by a later call than the one before (greedy is optimal for a subsequence). */
function matchInOrder(expected: readonly ExpectedToolCall[], actual: readonly ActualToolCall[], mode: EvalArgumentMatching): { matched: number; firstMissing?: number } {
  let at = 0;
  for (let want = 0; want < expected.length; want++) {
    while (at < actual.length && !callMatches(expected[want]!, actual[at]!, mode)) at++;
    if (at === actual.length) return { matched: want, firstMissing: want };
    at++;
  }
  return { matched: expected.length };
}

const describeCall = (call: ExpectedToolCall) => `${call.tool}${call.arguments === undefined ? '' : ` ${JSON.stringify(call.arguments)}`}`;
const describeActual = (calls: readonly ActualToolCall[]) => (calls.length === 0 ? 'no tool' : calls.map((call) => `${call.names[0]} ${JSON.stringify(call.arguments)}`).join(', '));

/** How many calls beyond the expected ones pass when the suite does not say. */
export function extraCallsAllowed(expectation: Pick<EvalExpectation, 'order' | 'maxExtraToolCalls'>): number {
  return expectation.maxExtraToolCalls ?? (expectation.order === 'superset' ? Number.POSITIVE_INFINITY : 0);
}

/** Judges one run: the calls the model made and its final answer against the case's expectation. */
export function judgeRun(expectation: EvalExpectation, calls: readonly ActualToolCall[], answer: string | undefined): MatchVerdict {
  const failures: string[] = [];
  const expected = expectation.toolCalls;
  const mode = expectation.argumentMatching;
  if (expectation.order === 'strict') {
    const { matched, firstMissing } = matchInOrder(expected, calls, mode);
    if (firstMissing !== undefined) failures.push(`Expected ${describeCall(expected[firstMissing]!)} as call ${firstMissing + 1} of ${expected.length} in order; the model called ${describeActual(calls)}.`);
    const extra = calls.length - matched;
    if (firstMissing === undefined && extra > extraCallsAllowed(expectation)) failures.push(`${extra} call(s) beyond the expected ones (${extraCallsAllowed(expectation)} allowed): ${describeActual(calls)}.`);
  } else {
    const { matched, unmatched } = matchAnyOrder(expected, calls, mode);
    for (const index of unmatched) failures.push(`Expected ${describeCall(expected[index]!)}; the model called ${describeActual(calls)}.`);
    const extra = calls.length - matched;
    if (unmatched.length === 0 && extra > extraCallsAllowed(expectation)) failures.push(`${extra} call(s) beyond the expected ones (${extraCallsAllowed(expectation)} allowed): ${describeActual(calls)}.`);
  }
  const wanted = expectation.finalAnswerContains === undefined ? [] : [expectation.finalAnswerContains].flat();
  for (const text of wanted) if (!(answer ?? '').includes(text)) failures.push(`The final answer does not contain ${JSON.stringify(text)}.`);
  return { passed: failures.length === 0, failures };
}
