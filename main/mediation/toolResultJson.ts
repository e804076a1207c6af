import type { InvocationOutcome } from '../../shared/registry';

/** cllama caps every managed tool result at this many bytes (a constant in its code, though its docs call it configurable). */
export const MANAGED_RESULT_LIMIT = 16_384;

export interface ManagedResult {
  /** The JSON the model reads. */
  text: string;
  ok: boolean;
}

const CODE_OF: Record<string, { code: string; status?: number }> = {
  Timeout: { code: 'timeout', status: 504 },
  Canceled: { code: 'canceled' },
  InvalidArguments: { code: 'schema_validation' },
  InvalidInput: { code: 'invalid_arguments' },
  PolicyDenied: { code: 'policy_denied', status: 403 },
  ToolNotFound: { code: 'tool_not_found', status: 404 },
  ConnectionFailed: { code: 'request_failed', status: 502 },
  ExecutionFailed: { code: 'mcp_error', status: 502 },
  ResultTooLarge: { code: 'result_too_large', status: 502 },
};

/**
 * A managed call's outcome as cllama hands it to the model: `{"ok":true,"status_code":200,"data":…}`,
 * cut at 16,384 bytes with `"truncated":true,"original_bytes":N`; errors
 * `{"ok":false,"error":{"code","message","details"?},"status_code"?}` — a tool's own error
 * (`isError`) is `tool_error`.
 */
export function managedResult(outcome: InvocationOutcome): ManagedResult {
  if (outcome.error) {
    const known = CODE_OF[outcome.error.code] ?? { code: 'request_failed' };
    return { ok: false, text: JSON.stringify({ ok: false, error: { code: known.code, message: outcome.error.message }, ...(known.status ? { status_code: known.status } : {}) }) };
  }
  const result = outcome.result!;
  const data = result.structuredContent ?? (result.content.length === 1 && result.content[0]!.type === 'text' ? (result.content[0] as { text: string }).text : result.content);
  if (result.isError) return { ok: false, text: JSON.stringify({ ok: false, error: { code: 'tool_error', message: typeof data === 'string' ? data : JSON.stringify(data) } }) };
  // The pipeline already cut an oversized result (its one result cap): the model is told so, with the size the tool sent.
  return { ok: true, text: capped(data, outcome.truncated ? outcome.record.responseBytes : undefined) };
}

/** Special results the mediation itself gives (a refused order, a repeated call, the budget spent). */
export function mediationError(code: string, message: string, status: number, details?: Record<string, unknown>): string {
  return JSON.stringify({ ok: false, error: { code, message, ...(details ? { details } : {}) }, status_code: status });
}

/** `cutUpstream`: the result's size before the pipeline cut it (undefined when it was not cut). */
function capped(data: unknown, cutUpstream?: number): string {
  const serialized = typeof data === 'string' ? data : JSON.stringify(data);
  const bytes = Buffer.byteLength(serialized);
  if (bytes <= MANAGED_RESULT_LIMIT) return JSON.stringify({ ok: true, status_code: 200, data, ...(cutUpstream !== undefined ? { truncated: true, original_bytes: cutUpstream } : {}) });
  // The first 16,384 bytes as text, never splitting a character.
  const cut = Buffer.from(serialized).subarray(0, MANAGED_RESULT_LIMIT).toString('utf8').replace(/\uFFFD$/, '');
  return JSON.stringify({ ok: true, status_code: 200, data: cut, truncated: true, original_bytes: Math.max(bytes, cutUpstream ?? 0) });
}
