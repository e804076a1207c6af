import { closeSync, existsSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvocationStore, type InvocationStoreOptions } from './InvocationStore';
import { SchemaTooNewError } from './migrations';
import { describeSqliteError, isUnusableDatabaseError } from './sqliteErrors';

export interface StoreOpenReport {
  /** The file at the path could not be used, was moved aside, and a new one was started. */
  recovered: boolean;
  /** Where the unusable file went. */
  movedTo?: string;
  /** False when history lives in memory only for this session. */
  persistent: boolean;
  /** One sentence for the user (and the log) saying what happened. */
  message: string;
}

export interface OpenedInvocationStore {
  store: InvocationStore;
  report: StoreOpenReport;
}

/**
 * Opens the history file, and never fails: a damaged, unreadable or misplaced file (garbage, a
 * directory, no permission) is moved to `<path>.corrupt-<timestamp>` and a new file is started; if
 * even that is impossible, history is kept in memory for the session. The report says which.
 */
export function openInvocationStore(path: string, options: InvocationStoreOptions = {}, now: () => Date = () => new Date()): OpenedInvocationStore {
  const existed = existsSync(path);
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    createOwnerOnly(path);
    const store = new InvocationStore(path, options);
    return { store, report: { recovered: false, persistent: true, message: `${existed ? 'Opened' : 'Created'} the invocation history at ${path}.` } };
  } catch (error) {
    if (error instanceof SchemaTooNewError) {
      return inMemory(options, `The invocation history at ${path} was written by a newer Tooldeck (${error.message}); it is left untouched and this session's history is kept in memory only.`);
    }
    if (!isUnusableDatabaseError(error) && !isFileSystemError(error)) {
      return inMemory(options, `The invocation history at ${path} could not be opened (${describeSqliteError(error)}); this session's history is kept in memory only.`);
    }
    const reason = describeSqliteError(error);
    let movedTo: string;
    try {
      movedTo = moveAside(path, now());
    } catch (moveError) {
      return inMemory(
        options,
        `The invocation history at ${path} cannot be used (${reason}) and could not be moved aside (${(moveError as Error).message}); this session's history is kept in memory only.`,
      );
    }
    try {
      createOwnerOnly(path);
      const store = new InvocationStore(path, options);
      return {
        store,
        report: {
          recovered: true,
          movedTo,
          persistent: true,
          message: `The invocation history at ${path} could not be used (${reason}). It was moved to ${movedTo} and a new, empty history was started.`,
        },
      };
    } catch (retryError) {
      return inMemory(
        options,
        `The invocation history at ${path} could not be used (${reason}); it was moved to ${movedTo}, but a new file could not be created either (${describeSqliteError(retryError)}). This session's history is kept in memory only.`,
        movedTo,
      );
    }
  }
}

/**
 * SQLite creates the database with the process umask (often 0644) and its -wal and -shm files with
 * the database's mode: made first as 0600, all three are the owner's alone.
 */
export function createOwnerOnly(path: string) {
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
}

function inMemory(options: InvocationStoreOptions, message: string, movedTo?: string): OpenedInvocationStore {
  return {
    store: new InvocationStore(':memory:', options),
    report: { recovered: movedTo !== undefined, ...(movedTo ? { movedTo } : {}), persistent: false, message },
  };
}

function isFileSystemError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EISDIR' || code === 'EACCES' || code === 'EPERM';
}

/**
 * The -wal and -shm files belong to the old database: left behind, SQLite would replay that WAL
 * into the new file. They move along with it.
 */
export function moveAside(path: string, at: Date): string {
  const stamp = at.toISOString().replace(/[:.]/g, '-');
  let target = `${path}.corrupt-${stamp}`;
  for (let n = 1; existsSync(target); n++) target = `${path}.corrupt-${stamp}-${n}`;
  renameSync(path, target);
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  }
  return target;
}
