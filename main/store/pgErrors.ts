import { redactHistoryText } from './historyUrl';
import { PgSchemaTooNewError } from './pgMigrations';

type PgError = Error & { code?: string; errno?: number; syscall?: string };

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE']);

/** Why a PostgreSQL history could not be opened or written, as a clause; the URL's password masked. */
export function describePgError(error: unknown, url: string): string {
  const e = error as PgError | null;
  const raw = redactHistoryText(e instanceof Error ? e.message : String(error), url);
  const message = raw.replace(/\s+/g, ' ').trim().replace(/[.]$/, '');
  if (e instanceof PgSchemaTooNewError) return message;
  const code = e?.code ?? '';
  if (code === '28P01' || code === '28000') return `it refused the login (${message})`;
  if (code === '3D000') return `the database does not exist (${message})`;
  if (code === '42501') return `the user may not create or write the history tables (${message})`;
  if (NETWORK_CODES.has(code) || /timeout|timed out/i.test(message)) return `it cannot be reached (${message})`;
  if (/terminated unexpectedly|unexpected|unsupported|protocol|Unknown message|SSL/i.test(message)) return `it did not answer as PostgreSQL (${message})`;
  return message;
}

/**
 * Errors in the data itself (SQLSTATE classes 22 and 23): retrying the same rows cannot succeed,
 * so the batch is dropped rather than blocking every record behind it.
 */
export function isPermanentPgError(error: unknown): boolean {
  const code = (error as PgError | null)?.code;
  return typeof code === 'string' && /^(22|23)/.test(code);
}
