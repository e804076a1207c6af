import type { DatabaseSync } from 'node:sqlite';
import type { DefinitionHash, ToolDefinition } from '../../shared/lock';
import { loadSqlite } from '../store/loadSqlite';
import { migrate, type Migration } from '../store/migrations';
import { isUnusableDatabaseError, describeSqliteError } from '../store/sqliteErrors';
import { createOwnerOnly, moveAside } from '../store/openInvocationStore';
import { setHash } from './definitionHash';

export const DEFINITIONS_FILE_NAME = 'definitions.db';

/**
 * Why SQLite and not files: a source's history is a sequence of whole tool sets whose definitions
 * mostly repeat from one revision to the next. Stored content-addressed (one row per distinct
 * definition, revisions pointing at hashes), a server of 200 tools that changes one description
 * adds one definition and 200 short rows, not another copy of every schema; and the console and
 * one-shot CLI commands append to it from separate processes, which SQLite's locking (WAL, busy
 * timeout) makes safe where rewriting a file would lose one writer's revision. It is a database of
 * its own, not a table in the history database: history is pruned by age and size, and a corrupt
 * history file is moved aside, neither of which may take the revisions with it.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'tool definitions by hash and per-source revisions',
    up(db) {
      db.exec(`
        CREATE TABLE definitions (
          hash TEXT PRIMARY KEY,
          body TEXT NOT NULL,
          json TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE revisions (
          id INTEGER PRIMARY KEY,
          source TEXT NOT NULL,
          set_hash TEXT NOT NULL,
          seen_at INTEGER NOT NULL,
          last_seen_at INTEGER NOT NULL,
          tool_count INTEGER NOT NULL
        );
        CREATE INDEX revisions_source ON revisions (source, id);
        CREATE TABLE revision_tools (
          revision INTEGER NOT NULL REFERENCES revisions (id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          hash TEXT NOT NULL,
          version TEXT,
          PRIMARY KEY (revision, name)
        ) WITHOUT ROWID;
      `);
    },
  },
];

export interface StoredTool {
  name: string;
  hash: DefinitionHash;
  body: DefinitionHash;
  /** Canonical JSON of the definition. */
  json: string;
  version?: string;
}

export interface RevisionRow {
  id: number;
  source: string;
  setHash: DefinitionHash;
  seenAt: number;
  lastSeenAt: number;
  toolCount: number;
}

export interface RevisionTool {
  name: string;
  hash: DefinitionHash;
  body: DefinitionHash;
  version?: string;
}

/** Per source, every distinct set of tool definitions it has listed, oldest first; definitions stored once by hash. */
export class DefinitionStore {
  private readonly db: DatabaseSync;
  /** How the file opened, for the log: recovered from a damaged file, or kept in memory. */
  readonly report?: string;

  private constructor(db: DatabaseSync, report?: string) {
    this.db = db;
    this.report = report;
    db.exec('PRAGMA foreign_keys = ON');
  }

  /** Opens (or creates) the store; a damaged file is moved aside, and failing that the store lives in memory. */
  static open(path: string): DefinitionStore {
    const { DatabaseSync } = loadSqlite();
    const connect = (file: string) => {
      if (file !== ':memory:') createOwnerOnly(file);
      const db = new DatabaseSync(file, { timeout: 5_000 });
      try {
        if (file !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
        migrate(db, MIGRATIONS);
        return db;
      } catch (error) {
        db.close();
        throw error;
      }
    };
    try {
      return new DefinitionStore(connect(path));
    } catch (error) {
      const reason = describeSqliteError(error);
      if (isUnusableDatabaseError(error)) {
        try {
          const movedTo = moveAside(path, new Date());
          return new DefinitionStore(connect(path), `The definition history at ${path} could not be used (${reason}); it was moved to ${movedTo} and a new one started.`);
        } catch {
          // Fall through to memory.
        }
      }
      return new DefinitionStore(connect(':memory:'), `The definition history at ${path} could not be opened (${reason}); this session's revisions are kept in memory only.`);
    }
  }

  /**
   * Records the source's current set of tools: a new revision when it differs from the source's
   * latest one, else only the time it was last seen. Returns the revision the set is in.
   */
  record(source: string, tools: readonly StoredTool[], at = Date.now()): { revision: number; created: boolean } {
    // A tools.v1 tool whose version moved is a different set even when its definition is not.
    const set = setHash(tools.map((tool) => ({ name: tool.name, hash: tool.version === undefined ? tool.hash : `${tool.hash}@${tool.version}` })));
    // The latest revision is read inside the write transaction: two processes seeing the same new
    // set at once (the console's and `kube reconcile`'s informers) then store it once, not twice.
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const latest = this.latest(source);
      if (latest && latest.setHash === set) {
        this.db.prepare('UPDATE revisions SET last_seen_at = ? WHERE id = ?').run(at, latest.id);
        this.db.exec('COMMIT');
        return { revision: latest.id, created: false };
      }
      const insertDefinition = this.db.prepare('INSERT OR IGNORE INTO definitions (hash, body, json) VALUES (?, ?, ?)');
      for (const tool of tools) insertDefinition.run(tool.hash, tool.body, tool.json);
      const { lastInsertRowid } = this.db.prepare('INSERT INTO revisions (source, set_hash, seen_at, last_seen_at, tool_count) VALUES (?, ?, ?, ?, ?)').run(source, set, at, at, tools.length);
      const revision = Number(lastInsertRowid);
      const insertTool = this.db.prepare('INSERT INTO revision_tools (revision, name, hash, version) VALUES (?, ?, ?, ?)');
      for (const tool of tools) insertTool.run(revision, tool.name, tool.hash, tool.version ?? null);
      this.db.exec('COMMIT');
      return { revision, created: true };
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  latest(source: string): RevisionRow | undefined {
    const row = this.db.prepare('SELECT * FROM revisions WHERE source = ? ORDER BY id DESC LIMIT 1').get(source);
    return row ? revisionRow(row) : undefined;
  }

  revision(id: number): RevisionRow | undefined {
    const row = this.db.prepare('SELECT * FROM revisions WHERE id = ?').get(id);
    return row ? revisionRow(row) : undefined;
  }

  /** The source's revisions, newest first. */
  revisions(source: string, limit = 500): RevisionRow[] {
    return this.db.prepare('SELECT * FROM revisions WHERE source = ? ORDER BY id DESC LIMIT ?').all(source, limit).map(revisionRow);
  }

  /** How many revisions the source has: the newest is revision number `count` of the source. */
  count(source: string): number {
    return Number(this.db.prepare('SELECT COUNT(*) AS n FROM revisions WHERE source = ?').get(source)!.n);
  }

  /** The source's `n`th revision (1 = the first it ever listed). */
  nth(source: string, n: number): RevisionRow | undefined {
    if (!Number.isInteger(n) || n < 1) return undefined;
    const row = this.db.prepare('SELECT * FROM revisions WHERE source = ? ORDER BY id LIMIT 1 OFFSET ?').get(source, n - 1);
    return row ? revisionRow(row) : undefined;
  }

  tools(revision: number): RevisionTool[] {
    return this.db
      .prepare('SELECT t.name, t.hash, t.version, d.body FROM revision_tools t JOIN definitions d ON d.hash = t.hash WHERE t.revision = ? ORDER BY t.name')
      .all(revision)
      .map((row) => ({ name: String(row.name), hash: row.hash as DefinitionHash, body: row.body as DefinitionHash, ...(row.version !== null ? { version: String(row.version) } : {}) }));
  }

  definition(hash: string): ToolDefinition | undefined {
    const row = this.db.prepare('SELECT json FROM definitions WHERE hash = ?').get(hash);
    return row ? (JSON.parse(String(row.json)) as ToolDefinition) : undefined;
  }

  /** Every source with at least one revision. */
  sources(): string[] {
    return this.db.prepare('SELECT DISTINCT source FROM revisions ORDER BY source').all().map((row) => String(row.source));
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

function revisionRow(row: Record<string, unknown>): RevisionRow {
  return {
    id: Number(row.id),
    source: String(row.source),
    setHash: row.set_hash as DefinitionHash,
    seenAt: Number(row.seen_at),
    lastSeenAt: Number(row.last_seen_at),
    toolCount: Number(row.tool_count),
  };
}
