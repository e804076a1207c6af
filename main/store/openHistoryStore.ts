import { join } from 'node:path';
import type { HistoryStore } from './HistoryStore';
import { DATABASE_FILE_NAME, type InvocationStoreOptions } from './InvocationStore';
import { openInvocationStore, type StoreOpenReport } from './openInvocationStore';
import { SqliteHistory } from './SqliteHistory';

export interface HistoryStoreChoice {
  dataDir: string;
  /** A postgres:// URL: the history every replica shares. Absent: the data dir's SQLite file. */
  url?: string;
  retention?: InvocationStoreOptions['retention'];
  /** PostgreSQL: hear the other replicas' records as they land (the console). */
  live?: boolean;
}

/**
 * The history a core uses. SQLite never fails to open (see openInvocationStore); PostgreSQL throws
 * HistoryOpenError with one sentence when the database cannot be used, since a replica silently
 * keeping its own record is what the shared database is there to prevent.
 */
export async function openHistoryStore(choice: HistoryStoreChoice): Promise<{ store: HistoryStore; report: StoreOpenReport }> {
  if (choice.url) {
    const { PostgresHistory } = await import('./PostgresHistory');
    const retention = choice.retention === false ? false : { maxAgeDays: choice.retention?.maxAgeDays ?? 90 };
    const store = await PostgresHistory.open({ url: choice.url, spoolDir: choice.dataDir, live: choice.live, retention });
    return { store, report: { recovered: false, persistent: true, message: `Opened the invocation history at ${store.location}.` } };
  }
  const { store, report } = openInvocationStore(join(choice.dataDir, DATABASE_FILE_NAME), { retention: choice.retention });
  return { store: new SqliteHistory(store), report };
}
