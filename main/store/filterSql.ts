import type { SQLInputValue } from 'node:sqlite';
import type { InvocationFilter } from '../../shared/history';

export interface SqlCondition {
  /** `WHERE …` or the empty string. */
  where: string;
  params: SQLInputValue[];
}

/** LIKE treats % and _ as wildcards; a search for `50%` means the text `50%`. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Every value goes in as a bound parameter; only placeholders and column names are spliced into SQL. */
export function filterSql(filter: InvocationFilter, extra: { sql: string; params: SQLInputValue[] }[] = []): SqlCondition {
  const clauses: string[] = [];
  const params: SQLInputValue[] = [];
  const add = (sql: string, ...values: SQLInputValue[]) => {
    clauses.push(sql);
    params.push(...values);
  };
  if (filter.sourceKind !== undefined) add('source_kind = ?', filter.sourceKind);
  if (filter.sourceName !== undefined) add('source_name = ?', filter.sourceName);
  if (filter.tool !== undefined) add('tool = ?', filter.tool);
  if (filter.status?.length) add(`status IN (${filter.status.map(() => '?').join(', ')})`, ...filter.status);
  if (filter.since !== undefined) add('started_at >= ?', filter.since);
  if (filter.until !== undefined) add('started_at < ?', filter.until);
  if (filter.runId !== undefined) add('run_id = ?', filter.runId);
  if (filter.traceId !== undefined) add('trace_id = ?', filter.traceId);
  if (filter.taskId !== undefined) add('task_id = ?', filter.taskId);
  if (filter.via !== undefined) add('via = ?', filter.via);
  if (filter.agent === null) add('agent IS NULL');
  else if (filter.agent !== undefined) add('agent = ?', filter.agent);
  if (filter.replica !== undefined) add('replica = ?', filter.replica);
  if (filter.text) {
    const pattern = likePattern(filter.text);
    add(
      "(tool LIKE ? ESCAPE '\\' OR arguments_json LIKE ? ESCAPE '\\' OR result_preview LIKE ? ESCAPE '\\' OR error_message LIKE ? ESCAPE '\\')",
      pattern,
      pattern,
      pattern,
      pattern,
    );
  }
  for (const condition of extra) add(condition.sql, ...condition.params);
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
