import { Assertion, JsonType, PATH_OPERATORS, SavedRequest, type ExpectedStatus, type PathOperator } from '../../../../shared/collections';
import type { ErrorCode } from '../../../../shared/errors';
import { linearPattern } from '../../components/linearPattern';

/** One assertion as the editor holds it: every field as typed, so a half-written one is not lost. */
export interface AssertionDraft {
  kind: 'status' | 'path' | 'schema' | 'latency';
  status: ExpectedStatus;
  code: ErrorCode | '';
  path: string;
  operator: PathOperator;
  /** The operand of equals / contains (JSON, or else taken as a string) or matches (a regex). */
  value: string;
  type: JsonType;
  schema: string;
  of: 'result' | 'structuredContent';
  latencyMs: string;
}

export interface CaptureDraft {
  variable: string;
  path: string;
}

/** A saved request as the editor holds it. */
export interface RequestDraft {
  name: string;
  description: string;
  target: string;
  tool: string;
  arguments: string;
  timeoutMs: string;
  maxTotalTimeoutMs: string;
  confirmed: boolean;
  assertions: AssertionDraft[];
  captures: CaptureDraft[];
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export const EMPTY_ASSERTION: AssertionDraft = {
  kind: 'status',
  status: 'ok',
  code: '',
  path: '$.content[0].text',
  operator: 'equals',
  value: '',
  type: 'string',
  schema: '{\n  "type": "object"\n}',
  of: 'structuredContent',
  latencyMs: '1000',
};

/** equals/contains operands are JSON when they parse (`36`, `true`, `{"a":1}`), otherwise the text itself. */
function operand(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function operandText(value: unknown): string {
  if (typeof value === 'string') {
    return operand(value) === value ? value : JSON.stringify(value);
  }
  return JSON.stringify(value);
}

function validated(candidate: Record<string, unknown>): Checked<Assertion> {
  const parsed = Assertion.safeParse(candidate);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: parsed.error.issues[0]?.message ?? 'invalid assertion' };
}

export function assertionFromDraft(draft: AssertionDraft): Checked<Assertion> {
  switch (draft.kind) {
    case 'status':
      return validated({ status: draft.status, ...(draft.status === 'error' && draft.code ? { code: draft.code } : {}) });
    case 'path': {
      const path = draft.path.trim();
      if (!path) return { ok: false, message: 'Give a JSON path ($…) or `text`' };
      if (draft.operator === 'type') return validated({ path, type: draft.type });
      if (draft.operator === 'exists') return validated({ path, exists: true });
      if (draft.operator === 'matches') {
        // Checked by the engine the runner uses (RE2), so a pattern it would refuse is refused here.
        try {
          linearPattern(draft.value);
        } catch (error) {
          const clause = (error as Error).message;
          return { ok: false, message: `${clause.charAt(0).toUpperCase()}${clause.slice(1)}` };
        }
        return validated({ path, matches: draft.value });
      }
      return validated({ path, [draft.operator]: operand(draft.value) });
    }
    case 'schema': {
      let schema: unknown;
      try {
        schema = JSON.parse(draft.schema);
      } catch {
        return { ok: false, message: 'The schema is not valid JSON' };
      }
      if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return { ok: false, message: 'A JSON Schema is an object' };
      return validated({ schema, ...(draft.of === 'structuredContent' ? { of: 'structuredContent' } : {}) });
    }
    case 'latency': {
      const ms = Number(draft.latencyMs);
      if (!Number.isFinite(ms) || ms <= 0) return { ok: false, message: 'The latency limit is a positive number of milliseconds' };
      return validated({ latencyBelowMs: ms });
    }
  }
}

export function draftFromAssertion(a: Assertion): AssertionDraft {
  if (a.status !== undefined) return { ...EMPTY_ASSERTION, kind: 'status', status: a.status, code: a.code ?? '' };
  if (a.schema !== undefined) return { ...EMPTY_ASSERTION, kind: 'schema', schema: JSON.stringify(a.schema, null, 2), of: a.of ?? 'result' };
  if (a.latencyBelowMs !== undefined) return { ...EMPTY_ASSERTION, kind: 'latency', latencyMs: String(a.latencyBelowMs) };
  const operator = PATH_OPERATORS.find((op) => Object.hasOwn(a, op) && (op === 'equals' || a[op] !== undefined)) ?? 'exists';
  const base = { ...EMPTY_ASSERTION, kind: 'path' as const, path: a.path ?? '$', operator };
  if (operator === 'type') return { ...base, type: a.type ?? 'string' };
  if (operator === 'matches') return { ...base, value: a.matches ?? '' };
  if (operator === 'equals' || operator === 'contains') return { ...base, value: operandText(a[operator]) };
  return base;
}

/** A one-line reading of an assertion, for lists. */
export function describeAssertion(a: Assertion): string {
  if (a.status !== undefined) return `status ${a.status}${a.code ? ` (${a.code})` : ''}`;
  if (a.schema !== undefined) return `${a.of === 'structuredContent' ? 'structuredContent' : 'result'} matches a JSON Schema`;
  if (a.latencyBelowMs !== undefined) return `latency below ${a.latencyBelowMs} ms`;
  const draft = draftFromAssertion(a);
  if (draft.operator === 'exists') return `${a.path} exists`;
  if (draft.operator === 'type') return `${a.path} type ${a.type}`;
  return `${a.path} ${draft.operator} ${draft.value}`;
}

export function draftFromRequest(request: SavedRequest): RequestDraft {
  return {
    name: request.name,
    description: request.description ?? '',
    target: request.target,
    tool: request.tool,
    arguments: JSON.stringify(request.arguments, null, 2),
    timeoutMs: request.timeoutMs === undefined ? '' : String(request.timeoutMs),
    maxTotalTimeoutMs: request.maxTotalTimeoutMs === undefined ? '' : String(request.maxTotalTimeoutMs),
    confirmed: request.confirmed === true,
    assertions: request.assertions.map(draftFromAssertion),
    captures: Object.entries(request.capture).map(([variable, path]) => ({ variable, path })),
  };
}

function optionalMs(text: string, label: string): Checked<number | undefined> {
  if (!text.trim()) return { ok: true, value: undefined };
  const ms = Number(text);
  return Number.isInteger(ms) && ms > 0 ? { ok: true, value: ms } : { ok: false, message: `${label} is a whole number of milliseconds` };
}

/** The request the draft describes, or the first thing to fix. */
export function requestFromDraft(draft: RequestDraft): Checked<SavedRequest> {
  let args: unknown;
  try {
    args = JSON.parse(draft.arguments.trim() || '{}');
  } catch {
    return { ok: false, message: 'Arguments: not valid JSON' };
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return { ok: false, message: 'Arguments: a JSON object' };
  const timeout = optionalMs(draft.timeoutMs, 'Timeout');
  if (!timeout.ok) return timeout;
  const maxTotal = optionalMs(draft.maxTotalTimeoutMs, 'Total timeout');
  if (!maxTotal.ok) return maxTotal;
  const assertions: Assertion[] = [];
  for (const [i, a] of draft.assertions.entries()) {
    const checked = assertionFromDraft(a);
    if (!checked.ok) return { ok: false, message: `Assertion ${i + 1}: ${checked.message}` };
    assertions.push(checked.value);
  }
  const capture = Object.fromEntries(draft.captures.filter((c) => c.variable.trim() || c.path.trim()).map((c) => [c.variable.trim(), c.path.trim()]));
  const parsed = SavedRequest.safeParse({
    name: draft.name.trim(),
    ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
    target: draft.target.trim(),
    tool: draft.tool.trim(),
    arguments: args,
    ...(timeout.value !== undefined ? { timeoutMs: timeout.value } : {}),
    ...(maxTotal.value !== undefined ? { maxTotalTimeoutMs: maxTotal.value } : {}),
    ...(draft.confirmed ? { confirmed: true } : {}),
    assertions,
    capture,
  });
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, message: `${issue.path.join('.') || 'Request'}: ${issue.message}` };
}

const SECRET = /^\{\{secret:([A-Za-z0-9_.-]+)\}\}$/;

/** The secret's name when a variable's value is a `{{secret:NAME}}` reference. */
export function secretReference(value: unknown): string | undefined {
  return typeof value === 'string' ? SECRET.exec(value)?.[1] : undefined;
}

export const JSON_TYPES = JsonType.options;
