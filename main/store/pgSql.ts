import type { InvocationFilter } from '../../shared/history';
import type { InvocationRecord } from '../../shared/invocation';
import { filterSql } from './filterSql';
import { COLUMNS, toParams } from './invocationRow';

export const INVOCATIONS = 'tooldeck_invocations';
export const RUNS = 'tooldeck_runs';
/** Every replica's new rows are announced here: `<writer id> <seq>,<seq>,…`. */
export const CHANNEL = 'tooldeck_history';
/** Sequence numbers per notification: a payload must stay under PostgreSQL's 8,000 bytes. */
const SEQS_PER_NOTICE = 400;

/** Columns with the types PostgreSQL gives them; the rest are text. */
const BOOLEAN_COLUMNS = new Set(['truncated', 'is_error']);

export interface PgCondition {
  where: string;
  params: unknown[];
}

/**
 * The SQLite filter (filterSql.ts) in PostgreSQL's dialect: `$n` placeholders, and ILIKE, since
 * SQLite's LIKE ignores ASCII case and the filter promises a case-insensitive search.
 */
export function pgFilter(filter: InvocationFilter, extra: { sql: string; params: unknown[] }[] = [], firstParam = 1): PgCondition {
  const { where, params } = filterSql(filter, extra as never);
  let n = firstParam;
  return { where: where.replace(/\?/g, () => `$${n++}`).replace(/ LIKE /g, ' ILIKE '), params };
}

/** PostgreSQL text cannot hold NUL; a tool's output can. It becomes U+FFFD rather than failing the batch. */
const withoutNul = (value: unknown) => (typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value);

/** Each column's PostgreSQL type, for the arrays a batch is sent as (same order as COLUMNS). */
const COLUMN_TYPES: Record<string, string> = {
  started_at: 'float8',
  latency_ms: 'float8',
  request_bytes: 'int8',
  response_bytes: 'int8',
  truncated: 'bool',
  is_error: 'bool',
  attempts: 'int4',
};

/**
 * One statement for a batch, the same text whatever its size (so each connection prepares it
 * once): one array per column, unnested into rows by the server, which parses 24 parameters
 * instead of 24 per row. Ids already stored are skipped; it returns the rows it inserted.
 */
const INSERT_TEXT = `INSERT INTO ${INVOCATIONS} (${COLUMNS.join(', ')})
  SELECT * FROM unnest(${COLUMNS.map((column, i) => `$${i + 1}::${COLUMN_TYPES[column] ?? 'text'}[]`).join(', ')})
  ON CONFLICT (id) DO NOTHING RETURNING seq, id`;

export function insertStatement(batch: readonly InvocationRecord[]): { name: string; text: string; values: unknown[] } {
  const columns: unknown[][] = COLUMNS.map(() => new Array<unknown>(batch.length));
  batch.forEach((rec, row) => {
    toParams(rec).forEach((value, i) => {
      columns[i]![row] = BOOLEAN_COLUMNS.has(COLUMNS[i]!) && value !== null ? value === 1 : withoutNul(value);
    });
  });
  return { name: 'tooldeck_history_insert', text: INSERT_TEXT, values: columns };
}

/** On commit, the consoles listening to the fleet hear `<writer id> <seq>,<seq>,…`, a few hundred per notification. */
export function noticeStatement(seqs: readonly number[], writerId: string): { name: string; text: string; values: unknown[] } {
  const payloads: string[] = [];
  for (let i = 0; i < seqs.length; i += SEQS_PER_NOTICE) payloads.push(`${writerId} ${seqs.slice(i, i + SEQS_PER_NOTICE).join(',')}`);
  return { name: 'tooldeck_history_notice', text: `SELECT pg_notify('${CHANNEL}', payload) FROM unnest($1::text[]) AS payload`, values: [payloads] };
}

/** A PostgreSQL row as the SQLite row shape `fromRow` reads (booleans as 0/1). */
export function sqliteShaped(row: Record<string, unknown>): Record<string, never> {
  const out: Record<string, unknown> = { ...row };
  for (const column of BOOLEAN_COLUMNS) if (typeof out[column] === 'boolean') out[column] = out[column] ? 1 : 0;
  return out as Record<string, never>;
}
