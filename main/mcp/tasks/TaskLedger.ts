import { join } from 'node:path';
import { z } from 'zod';
import { isTerminalTaskStatus, KnownTask } from '../../../shared/tasks';
import { JsonFile } from '../../platform/JsonFile';
import { Emitter } from '../../platform/Emitter';

/** A finished task is remembered this long (its result may still be fetched while the server keeps it). */
const KEEP_FINISHED_MS = 7 * 24 * 3_600_000;
/** At most this many per server: the oldest finished ones go first. */
const MAX_PER_SERVER = 200;

const LedgerFile = z.object({ version: z.literal(1), tasks: z.array(KnownTask) });
type LedgerFile = z.infer<typeof LedgerFile>;
const emptyLedger = (): LedgerFile => ({ version: 1, tasks: [] });

/**
 * The tasks Tooldeck started, per server, in `<dataDir>/tasks.json` (ids and statuses, never
 * results), so a reload or a restart of the console still lists them and can fetch their results
 * while the server keeps them. The CLI and the console share the file: each change re-reads it
 * first, so one process does not drop what the other wrote.
 */
export class TaskLedger {
  /**
   * A damaged file loses only the memory of started tasks, so it reads as empty and the next change
   * rewrites it. One space of indent keeps a file of up to 200 tasks per server small yet readable.
   */
  private readonly file?: JsonFile<typeof LedgerFile>;
  /** The ledger itself when there is no file (changes to it are synchronous, so need no queue). */
  private inMemory: KnownTask[] = [];
  private readonly changes = new Emitter<string>();
  private readonly settlements = new Emitter<KnownTask>();

  /** Without a data dir the ledger lives in memory (one-off connections). */
  constructor(dataDir?: string, private readonly now: () => number = Date.now) {
    this.file = dataDir ? new JsonFile(join(dataDir, 'tasks.json'), LedgerFile, emptyLedger, { indent: 1, whenInvalid: 'empty' }) : undefined;
  }

  /** The server's remembered tasks, newest first, with every change asked for so far written. */
  async list(server: string): Promise<KnownTask[]> {
    await this.settled();
    const tasks = this.file ? (await this.file.read()).tasks : this.inMemory;
    return tasks.filter((t) => t.server === server).sort((a, b) => b.createdAt - a.createdAt);
  }

  async get(server: string, taskId: string): Promise<KnownTask | undefined> {
    return (await this.list(server)).find((t) => t.taskId === taskId);
  }

  /** Remembers a new task, or updates the one with that id. */
  remember(task: KnownTask): Promise<void> {
    return this.change(task.server, (tasks) => [...tasks.filter((t) => !(t.server === task.server && t.taskId === task.taskId)), task]);
  }

  /** A status seen for a remembered task (a no-op for tasks Tooldeck did not start). */
  update(server: string, taskId: string, patch: Partial<Pick<KnownTask, 'status' | 'statusMessage' | 'gone' | 'ttlMs'>>): Promise<void> {
    let settled: KnownTask | undefined;
    return this.change(
      server,
      (tasks) =>
        tasks.map((t) => {
          if (t.server !== server || t.taskId !== taskId) return t;
          const next = { ...t, ...stripUndefined(patch), ...(patch.status ? { statusMessage: patch.statusMessage } : {}), updatedAt: this.now() };
          if (patch.status && patch.status !== t.status && isTerminalTaskStatus(patch.status)) settled = next;
          return next;
        }),
      () => settled,
    );
  }

  forget(server: string, taskId: string): Promise<void> {
    return this.change(server, (tasks) => tasks.filter((t) => !(t.server === server && t.taskId === taskId)));
  }

  /** The server was removed. */
  forgetServer(server: string): Promise<void> {
    return this.change(server, (tasks) => tasks.filter((t) => t.server !== server));
  }

  renameServer(from: string, to: string): Promise<void> {
    return this.change(to, (tasks) => tasks.map((t) => (t.server === from ? { ...t, server: to } : t)));
  }

  onChange(listener: (server: string) => void): () => void {
    return this.changes.on(listener);
  }

  /** Resolves once every change asked for so far is written. */
  settled(): Promise<void> {
    return this.file ? this.file.settled() : Promise.resolve();
  }

  /** A remembered task reached completed, failed or cancelled. */
  onSettled(listener: (task: KnownTask) => void): () => void {
    return this.settlements.on(listener);
  }

  /** Re-reads, edits and writes the ledger, one change at a time; listeners hear of it once it is written. */
  private async change(server: string, edit: (tasks: KnownTask[]) => KnownTask[], settled?: () => KnownTask | undefined): Promise<void> {
    if (this.file) {
      await this.file.update((current) => ({ next: { version: 1, tasks: this.prune(edit(current.tasks)) }, result: undefined }));
    } else {
      this.inMemory = this.prune(edit(this.inMemory));
    }
    this.changes.emit(server);
    const ended = settled?.();
    if (ended) this.settlements.emit(ended);
  }

  /** Past their time-to-live, finished long ago, or beyond the per-server cap (oldest finished first). */
  private prune(tasks: KnownTask[]): KnownTask[] {
    const now = this.now();
    const alive = tasks.filter((t) => {
      if (typeof t.ttlMs === 'number' && t.createdAt + t.ttlMs < now) return false;
      return !(isTerminalTaskStatus(t.status) || t.gone) || now - t.updatedAt < KEEP_FINISHED_MS;
    });
    const byServer = new Map<string, KnownTask[]>();
    for (const task of alive) byServer.set(task.server, [...(byServer.get(task.server) ?? []), task]);
    return [...byServer.values()].flatMap((list) => {
      if (list.length <= MAX_PER_SERVER) return list;
      const ranked = [...list].sort((a, b) => Number(isTerminalTaskStatus(a.status)) - Number(isTerminalTaskStatus(b.status)) || b.createdAt - a.createdAt);
      return ranked.slice(0, MAX_PER_SERVER);
    });
  }
}

function stripUndefined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
