import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { CallerVia } from '../../shared/caller';
import type { ErrorCode } from '../../shared/errors';
import { InvocationStatus, type InvocationRecord, type SourceKind } from '../../shared/invocation';
import type { TaskStatus } from '../../shared/tasks';

/** Record fields in column order; the CSV header and the INSERT share it. */
export const RECORD_FIELDS = [
  'id',
  'startedAt',
  'sourceKind',
  'sourceName',
  'tool',
  'argumentsJson',
  'status',
  'errorCode',
  'errorMessage',
  'latencyMs',
  'requestBytes',
  'responseBytes',
  'resultPreview',
  'truncated',
  'replayOf',
  'runId',
  'isError',
  'attempts',
  'taskId',
  'taskStatus',
  'traceId',
  'via',
  'agent',
  'replica',
] as const satisfies readonly (keyof InvocationRecord)[];

export const COLUMNS = RECORD_FIELDS.map((field) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

export const INSERT_SQL = `INSERT OR IGNORE INTO invocations (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;
export const SELECT_COLUMNS = `seq, ${COLUMNS.join(', ')}`;

const statuses = new Set<string>(InvocationStatus.options);

/**
 * Cheap shape checks before a record joins a batch: one record that SQLite cannot bind would
 * otherwise fail the whole transaction and take the other rows of the batch with it.
 */
export function storableProblem(rec: InvocationRecord): string | undefined {
  if (typeof rec !== 'object' || rec === null) return 'not an object';
  if (typeof rec.id !== 'string' || rec.id === '') return 'id is missing';
  if (!Number.isFinite(rec.startedAt)) return 'startedAt is not a number';
  if (!Number.isFinite(rec.latencyMs)) return 'latencyMs is not a number';
  if (!statuses.has(rec.status)) return `unknown status ${String(rec.status)}`;
  for (const field of ['sourceKind', 'sourceName', 'tool', 'argumentsJson', 'resultPreview'] as const) {
    if (typeof rec[field] !== 'string') return `${field} is not a string`;
  }
  return undefined;
}

const optional = (value: string | number | undefined): SQLInputValue => value ?? null;
const optionalBool = (value: boolean | undefined): SQLInputValue => (value === undefined ? null : value ? 1 : 0);

export function toParams(rec: InvocationRecord): SQLInputValue[] {
  return [
    rec.id,
    rec.startedAt,
    rec.sourceKind,
    rec.sourceName,
    rec.tool,
    rec.argumentsJson,
    rec.status,
    optional(rec.errorCode),
    optional(rec.errorMessage),
    rec.latencyMs,
    Math.trunc(rec.requestBytes) || 0,
    Math.trunc(rec.responseBytes) || 0,
    rec.resultPreview,
    rec.truncated ? 1 : 0,
    optional(rec.replayOf),
    optional(rec.runId),
    optionalBool(rec.isError),
    optional(rec.attempts),
    optional(rec.taskId),
    optional(rec.taskStatus),
    optional(rec.traceId),
    optional(rec.via),
    optional(rec.agent),
    optional(rec.replica),
  ];
}

export type InvocationRow = Record<string, SQLOutputValue>;

/** Optional fields stay absent rather than null, so a stored record reads back equal to the one recorded. */
export function fromRow(row: InvocationRow): InvocationRecord {
  const rec: InvocationRecord = {
    id: row.id as string,
    startedAt: row.started_at as number,
    sourceKind: row.source_kind as SourceKind,
    sourceName: row.source_name as string,
    tool: row.tool as string,
    argumentsJson: row.arguments_json as string,
    status: row.status as InvocationStatus,
    latencyMs: row.latency_ms as number,
    requestBytes: row.request_bytes as number,
    responseBytes: row.response_bytes as number,
    resultPreview: row.result_preview as string,
    truncated: row.truncated === 1,
  };
  if (row.error_code !== null) rec.errorCode = row.error_code as ErrorCode;
  if (row.error_message !== null) rec.errorMessage = row.error_message as string;
  if (row.replay_of !== null) rec.replayOf = row.replay_of as string;
  if (row.run_id !== null) rec.runId = row.run_id as string;
  if (row.is_error !== null) rec.isError = row.is_error === 1;
  if (row.attempts !== null) rec.attempts = row.attempts as number;
  if (row.task_id !== null && row.task_id !== undefined) rec.taskId = row.task_id as string;
  if (row.task_status !== null && row.task_status !== undefined) rec.taskStatus = row.task_status as TaskStatus;
  if (row.trace_id !== null && row.trace_id !== undefined) rec.traceId = row.trace_id as string;
  if (row.via !== null && row.via !== undefined) rec.via = row.via as CallerVia;
  if (row.agent !== null && row.agent !== undefined) rec.agent = row.agent as string;
  if (row.replica !== null && row.replica !== undefined) rec.replica = row.replica as string;
  return rec;
}
