/** Primary SQLite result codes this store reacts to (https://sqlite.org/rescode.html). */
export const SqliteCode = {
  BUSY: 5,
  LOCKED: 6,
  NOMEM: 7,
  READONLY: 8,
  IOERR: 10,
  CORRUPT: 11,
  FULL: 13,
  CANTOPEN: 14,
  NOTADB: 26,
} as const;

/** The primary result code of an error thrown by `node:sqlite`, if it is one. */
export function sqliteCode(error: unknown): number | undefined {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' ? errcode & 0xff : undefined;
}

/** Conditions that can clear up by themselves (space freed, lock released): the rows are kept and retried. */
export function isTransientWriteError(error: unknown): boolean {
  const code = sqliteCode(error);
  return (
    code === SqliteCode.BUSY ||
    code === SqliteCode.LOCKED ||
    code === SqliteCode.NOMEM ||
    code === SqliteCode.READONLY ||
    code === SqliteCode.IOERR ||
    code === SqliteCode.FULL ||
    code === SqliteCode.CANTOPEN
  );
}

/** Errors on open that mean the file itself cannot serve as the store: it is moved aside. */
export function isUnusableDatabaseError(error: unknown): boolean {
  const code = sqliteCode(error);
  return (
    code === SqliteCode.CORRUPT ||
    code === SqliteCode.NOTADB ||
    code === SqliteCode.CANTOPEN ||
    code === SqliteCode.READONLY ||
    code === SqliteCode.IOERR
  );
}

export function describeSqliteError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  switch (sqliteCode(error)) {
    case SqliteCode.FULL:
      return `the disk (or the history size limit) is full (${message})`;
    case SqliteCode.READONLY:
      return `the database file is read-only (${message})`;
    case SqliteCode.BUSY:
    case SqliteCode.LOCKED:
      return `another process holds the database lock (${message})`;
    case SqliteCode.IOERR:
      return `a disk I/O error occurred (${message})`;
    case SqliteCode.CORRUPT:
    case SqliteCode.NOTADB:
      return `the database file is damaged (${message})`;
    case SqliteCode.CANTOPEN:
      return `the database file cannot be opened (${message})`;
    default:
      return message;
  }
}
