import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { isTerminalTaskStatus, KnownTask } from '../../../shared/tasks';
import { writeFileAtomic } from '../../platform/atomicWrite';

/** A finished task is remembered this long (its result may still be fetched while the server keeps it). */
const KEEP_FINISHED_MS = 7 * 24 * 3_600_000;
/** At most this many per server: the oldest finished ones go first. */
const MAX_PER_SERVER = 200;

const LedgerFile = z.object({ version: z.literal(1), tasks: z.array(KnownTask) });

/**
 * The tasks Tooldeck started, per server, in `<dataDir>/tasks.json` (ids and statuses, never
 * results), so a reload or a restart of the console still lists them and can fetch their results
 * while the server keeps them. The CLI and the console share the file: each change re-reads it
 * first, so one process does not drop what the other wrote.
 */
export class TaskLedger {
  private readonly file?: string;
  private tasks: KnownTask[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(server: string) => void>();
  private readonly settledListeners = new Set<(task: KnownTask) => void>();

  /** Without a data dir the ledger lives in memory (one-off connections). */
  constructor(dataDir?: string, private readonly now: () => number = Date.now) {
    this.file = dataDir ? join(dataDir, 'tasks.json') : undefined;
  }

  /** The server's remembered tasks, newest first. */
  async list(server: string): Promise<KnownTask[]> {
    await this.serialized(() => this.load());
    return this.tasks.filter((t) => t.server === server).sort((a, b) => b.createdAt - a.createdAt);
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
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every change asked for so far is written. */
  settled(): Promise<void> {
    return this.serialized(() => Promise.resolve());
  }

  /** A remembered task reached completed, failed or cancelled. */
  onSettled(listener: (task: KnownTask) => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  private change(server: string, edit: (tasks: KnownTask[]) => KnownTask[], settled?: () => KnownTask | undefined): Promise<void> {
    return this.serialized(async () => {
      await this.load();
      this.tasks = this.prune(edit(this.tasks));
      if (this.file) await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, tasks: this.tasks }, null, 1)}\n`);
      for (const listener of this.listeners) listener(server);
      const ended = settled?.();
      if (ended) for (const listener of this.settledListeners) listener(ended);
    });
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

  private async load(): Promise<void> {
    if (!this.file) return;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return;
    }
    try {
      this.tasks = LedgerFile.parse(JSON.parse(text)).tasks;
    } catch {
      // A damaged file loses only the memory of started tasks; the next change rewrites it.
      this.tasks = [];
    }
  }

  private serialized<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function stripUndefined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
