import type { A2aCheckRow, A2aCheckStatus } from '../../../../shared/a2a';

const ORDER: Record<A2aCheckStatus, number> = { fail: 0, warn: 1, pass: 2 };

/** Failing checks first, then warnings, then passes; the validator's order within each. */
export function sortChecks(rows: A2aCheckRow[]): A2aCheckRow[] {
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => ORDER[a.row.status] - ORDER[b.row.status] || a.index - b.index)
    .map((x) => x.row);
}

export interface CheckSummary {
  fail: number;
  warn: number;
  pass: number;
  /** The worst status present, for the summary's color. */
  worst: A2aCheckStatus;
  /** "1 failure", "2 warnings", "all 12 passed". */
  label: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function summarizeChecks(rows: A2aCheckRow[]): CheckSummary {
  const count = (status: A2aCheckStatus) => rows.filter((r) => r.status === status).length;
  const fail = count('fail');
  const warn = count('warn');
  const pass = count('pass');
  const parts = [fail ? plural(fail, 'failure') : '', warn ? plural(warn, 'warning') : ''].filter(Boolean);
  return { fail, warn, pass, worst: fail ? 'fail' : warn ? 'warn' : 'pass', label: parts.length ? parts.join(', ') : `all ${pass} passed` };
}

export const CHECK_COLOR: Record<A2aCheckStatus, string> = { fail: 'red', warn: 'yellow', pass: 'teal' };
