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

/**
 * One statement for a batch: a multi-row INSERT (ids already stored are skipped), and on commit a
 * notification per few hundred new rows for the consoles listening to the fleet.
 */
export function insertStatement(batch: readonly InvocationRecord[], writerId: string): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const rows: string[] = [];
  for (const rec of batch) {
    const params = toParams(rec);
    rows.push(`(${params.map((value, i) => {
      const column = COLUMNS[i]!;
      values.push(BOOLEAN_COLUMNS.has(column) && value !== null ? value === 1 : withoutNul(value));
      return `$${values.length}`;
    }).join(', ')})`);
  }
  values.push(writerId);
  const writer = `$${values.length}`;
  return {
    text: `WITH inserted AS (
        INSERT INTO ${INVOCATIONS} (${COLUMNS.join(', ')}) VALUES ${rows.join(', ')}
        ON CONFLICT (id) DO NOTHING RETURNING seq
      ), numbered AS (SELECT seq, (row_number() OVER (ORDER BY seq) - 1) / ${SEQS_PER_NOTICE} AS part FROM inserted)
      SELECT pg_notify('${CHANNEL}', ${writer} || ' ' || seqs)
      FROM (SELECT string_agg(seq::text, ',') AS seqs FROM numbered GROUP BY part) parts`,
    values,
  };
}

/** A PostgreSQL row as the SQLite row shape `fromRow` reads (booleans as 0/1). */
export function sqliteShaped(row: Record<string, unknown>): Record<string, never> {
  const out: Record<string, unknown> = { ...row };
  for (const column of BOOLEAN_COLUMNS) if (typeof out[column] === 'boolean') out[column] = out[column] ? 1 : 0;
  return out as Record<string, never>;
}
