import type { InvocationRecord } from '../../shared/invocation';
import { RECORD_FIELDS } from './invocationRow';

/**
 * Tool arguments and results come from outside; a cell such as `=HYPERLINK(…)` would run as a formula
 * when the export is opened in a spreadsheet. Such text cells get a leading apostrophe (OWASP's advice).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** RFC 4180: quote a field holding a comma, quote, CR or LF; double the quotes inside. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function cell(rec: InvocationRecord, field: (typeof RECORD_FIELDS)[number]): string {
  const value = rec[field];
  if (value === undefined) return '';
  if (field === 'startedAt') return new Date(value as number).toISOString();
  if (typeof value === 'string') return csvField(FORMULA_START.test(value) ? `'${value}` : value);
  return String(value);
}

/** A header row of the record's field names, then one CRLF-terminated line per record. */
export function invocationsToCsv(records: readonly InvocationRecord[]): string {
  const lines = [RECORD_FIELDS.join(',')];
  for (const rec of records) lines.push(RECORD_FIELDS.map((field) => cell(rec, field)).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export const csvHeaderLine = () => `${RECORD_FIELDS.join(',')}\r\n`;

export const csvLine = (rec: InvocationRecord) => `${RECORD_FIELDS.map((field) => cell(rec, field)).join(',')}\r\n`;
