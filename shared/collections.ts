import { z } from 'zod';
import { AppErrorShape, ErrorCode } from './errors';

/** Collections are files named `<name>.yaml`, so names stay file-safe. */
export const CollectionName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, ".", "-" and "_" (starting with a letter or digit); up to 64 characters');
export type CollectionName = z.infer<typeof CollectionName>;

export const VariableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'a variable name: letters, digits, "_", "." and "-", not starting with a digit');

/** Secret names in `{{secret:NAME}}`; the value lives in the SecretStore under `collections:NAME`. */
export const SecretName = z.string().regex(/^[A-Za-z0-9_.-]+$/, 'a secret name: letters, digits, "_", "." and "-"');

export function collectionSecretKey(name: string): string {
  return `collections:${name}`;
}

/** A saved server (`mcp:<server>`), a saved agent (`a2a:<agent>`) or a gRPC source (`grpc:<source>`). */
export const RequestTarget = z.string().regex(/^(mcp|a2a|grpc):[A-Za-z0-9][A-Za-z0-9._-]*$/, 'mcp:<saved server>, a2a:<saved agent> or grpc:<source>');
export type RequestTarget = z.infer<typeof RequestTarget>;

export type TargetKind = 'mcp' | 'a2a' | 'grpc';

export function parseTarget(target: RequestTarget): { kind: TargetKind; name: string } {
  const colon = target.indexOf(':');
  return { kind: target.slice(0, colon) as TargetKind, name: target.slice(colon + 1) };
}

export const ExpectedStatus = z.enum(['ok', 'isError', 'error']);
export type ExpectedStatus = z.infer<typeof ExpectedStatus>;

export const JsonType = z.enum(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
export type JsonType = z.infer<typeof JsonType>;

export const PATH_OPERATORS = ['equals', 'contains', 'matches', 'type', 'exists'] as const;
export type PathOperator = (typeof PATH_OPERATORS)[number];

export const ASSERTION_KINDS = ['status', 'path', 'schema', 'latencyBelowMs'] as const;
export type AssertionKind = (typeof ASSERTION_KINDS)[number];

/**
 * One check on a request's outcome. A flat object rather than a union, so a file with a mistake
 * gets one plain message ("unknown key", "exactly one of …") instead of every variant's complaints.
 * Exactly one of `status`, `path`, `schema`, `latencyBelowMs` says which kind it is:
 * - `status: ok | isError | error` (+ `code` with `error`),
 * - `path` (JSONPath on the result `{content, structuredContent, isError, error}`, or `text` for the
 *   joined text content) with one of `equals`, `contains`, `matches` (a regex), `type`, `exists`,
 * - `schema` (JSON Schema 2020-12) that the result, or `of: structuredContent`, must satisfy,
 * - `latencyBelowMs`.
 * String operands may hold `{{var}}` placeholders.
 */
export const Assertion = z
  .strictObject({
    status: ExpectedStatus.optional(),
    code: ErrorCode.optional(),
    path: z.string().min(1).optional(),
    equals: z.unknown().optional(),
    contains: z.unknown().optional(),
    matches: z.string().optional(),
    type: JsonType.optional(),
    exists: z.boolean().optional(),
    schema: z.record(z.string(), z.unknown()).optional(),
    of: z.enum(['result', 'structuredContent']).optional(),
    latencyBelowMs: z.number().positive().optional(),
  })
  .superRefine((a, ctx) => {
    const kinds = ASSERTION_KINDS.filter((k) => a[k] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({ code: 'custom', message: `an assertion has exactly one of ${ASSERTION_KINDS.join(', ')}${kinds.length ? ` (found ${kinds.join(', ')})` : ''}` });
      return;
    }
    if (a.code !== undefined && a.status !== 'error') ctx.addIssue({ code: 'custom', path: ['code'], message: '`code` goes with `status: error`' });
    if (a.of !== undefined && a.schema === undefined) ctx.addIssue({ code: 'custom', path: ['of'], message: '`of` goes with `schema`' });
    const operators = PATH_OPERATORS.filter((op) => Object.hasOwn(a, op) && (op === 'equals' || a[op] !== undefined));
    if (a.path !== undefined && operators.length !== 1) {
      ctx.addIssue({ code: 'custom', message: `a path assertion has exactly one of ${PATH_OPERATORS.join(', ')}${operators.length ? ` (found ${operators.join(', ')})` : ''}` });
    }
    if (a.path === undefined && operators.length) ctx.addIssue({ code: 'custom', path: [operators[0]!], message: `\`${operators[0]}\` goes with \`path\`` });
    if (a.path !== undefined && a.path !== 'text' && !a.path.startsWith('$')) ctx.addIssue({ code: 'custom', path: ['path'], message: 'a path starts with `$` (the result) or is `text`' });
  });
export type Assertion = z.infer<typeof Assertion>;

export function assertionKind(a: Assertion): AssertionKind {
  return ASSERTION_KINDS.find((k) => a[k] !== undefined)!;
}

/** One saved call: a target and tool, arguments with `{{var}}` placeholders, checks and captures. */
export const SavedRequest = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().optional(),
  target: RequestTarget,
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** Per-request timeout; defaults to the tool's runtime policy. */
  timeoutMs: z.number().int().positive().optional(),
  /** Hard cap on the whole call, retries included. */
  maxTotalTimeoutMs: z.number().int().positive().optional(),
  /**
   * The call is meant to run where policy asks for confirmation. The file alone confirms nothing (it
   * may come from anyone's repository): the operator confirms these requests when starting the run
   * (RunOptions.confirm: `tooldeck run --yes`, the console's Run confirmation).
   */
  confirmed: z.boolean().optional(),
  /** None given means `status: ok`. */
  assertions: z.array(Assertion).default([]),
  /** Variable name → JSONPath (or `text`) into this request's result, for later requests. */
  capture: z.record(VariableName, z.string().min(1)).default({}),
});
export type SavedRequest = z.infer<typeof SavedRequest>;
export type SavedRequestInput = z.input<typeof SavedRequest>;

export const Collection = z
  .strictObject({
    name: CollectionName,
    description: z.string().optional(),
    /** Values, or `{{secret:NAME}}` references; an environment file overrides them. */
    variables: z.record(VariableName, z.unknown()).default({}),
    requests: z.array(SavedRequest).default([]),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.requests.forEach((r, i) => {
      if (seen.has(r.name)) ctx.addIssue({ code: 'custom', path: ['requests', i, 'name'], message: `another request is already named "${r.name}"` });
      seen.add(r.name);
    });
  });
export type Collection = z.infer<typeof Collection>;
export type CollectionInput = z.input<typeof Collection>;

export const CollectionFormat = z.enum(['yaml', 'json']);
export type CollectionFormat = z.infer<typeof CollectionFormat>;

export const CollectionListItem = z.object({
  name: z.string(),
  description: z.string().optional(),
  requestCount: z.number().int(),
  /** Set when the file does not parse or validate; the other fields are then best effort. */
  problem: z.string().optional(),
});
export type CollectionListItem = z.infer<typeof CollectionListItem>;

export const RunOptions = z.object({
  /** Overrides collection variables (an environment file's key/values). */
  environment: z.record(VariableName, z.unknown()).default({}),
  concurrency: z.number().int().min(1).max(64).default(1),
  bail: z.boolean().default(false),
  /** The operator, starting this run, confirmed the requests marked `confirmed: true` (nothing else is confirmed). */
  confirm: z.boolean().default(false),
});
export type RunOptions = z.infer<typeof RunOptions>;
export type RunOptionsInput = z.input<typeof RunOptions>;

export const AssertionResult = z.object({
  /** e.g. `$.structuredContent.temperature equals 36`. */
  description: z.string(),
  passed: z.boolean(),
  message: z.string(),
  /** What was found; absent when nothing was (a path that matched nothing). Secrets are masked. */
  actual: z.unknown().optional(),
});
export type AssertionResult = z.infer<typeof AssertionResult>;

/** passed: every check held; failed: a check did not; errored: it could not be sent; skipped: --bail or canceled. */
export const RequestStatus = z.enum(['passed', 'failed', 'errored', 'skipped']);
export type RequestStatus = z.infer<typeof RequestStatus>;

export const RequestResult = z.object({
  index: z.number().int(),
  name: z.string(),
  /** The registry name called, `<kind>:<source>.<tool>`. */
  tool: z.string(),
  status: RequestStatus,
  /** Wall time of this request in the run, placeholders and assertions included. */
  durationMs: z.number(),
  /** The pipeline's latency of the call. */
  latencyMs: z.number().optional(),
  /** The history record of the call. */
  recordId: z.string().optional(),
  /** The call repeated an earlier identical call of this run and was not executed again. */
  duplicate: z.boolean().optional(),
  /** The arguments sent, secrets masked. */
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** Why the request errored. */
  error: AppErrorShape.optional(),
  /** Why the request was skipped. */
  reason: z.string().optional(),
  assertions: z.array(AssertionResult),
  /** Variables this request set, secrets masked. */
  captured: z.record(z.string(), z.unknown()),
});
export type RequestResult = z.infer<typeof RequestResult>;

const Counts = { total: z.number().int(), passed: z.number().int(), failed: z.number().int() };

export const RunSummary = z.object({
  runId: z.string(),
  collection: z.string(),
  startedAt: z.number(),
  durationMs: z.number(),
  requests: z.object({ ...Counts, errored: z.number().int(), skipped: z.number().int() }),
  assertions: z.object(Counts),
  results: z.array(RequestResult),
  /** Targets that could not be connected; their requests errored. */
  connectFailures: z.array(z.object({ target: z.string(), error: AppErrorShape })),
  canceled: z.boolean(),
  /** Every request passed. */
  ok: z.boolean(),
});
export type RunSummary = z.infer<typeof RunSummary>;

/** What a run yields, for a live view: the last event is always `run-finished`. */
export const RunEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run-started'), runId: z.string(), collection: z.string(), requests: z.array(z.object({ name: z.string(), tool: z.string() })), at: z.number() }),
  z.object({ type: z.literal('request-started'), runId: z.string(), index: z.number().int(), name: z.string(), tool: z.string(), at: z.number() }),
  z.object({ type: z.literal('request-finished'), runId: z.string(), result: RequestResult, at: z.number() }),
  z.object({ type: z.literal('run-finished'), runId: z.string(), summary: RunSummary, at: z.number() }),
]);
export type RunEvent = z.infer<typeof RunEvent>;
