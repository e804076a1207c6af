import { realpathSync, watch, type FSWatcher } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { JsonFile } from '../platform/JsonFile';
import { Emitter } from '../platform/Emitter';

/** `<dataDir>/launch-allowlist.json`: never inside a workspace, so a cloned folder cannot approve its own commands. */
export const LAUNCH_ALLOW_LIST_FILE = 'launch-allowlist.json';

const AllowListContent = z.object({
  /** Absolute folder path → the exact command lines (launchLineOf) the user confirmed for it. */
  folders: z.record(z.string(), z.array(z.string())).default({}),
});
type AllowListContent = z.infer<typeof AllowListContent>;

/**
 * The command lines of stdio McpServers the user confirmed, per workspace folder. A line is what
 * launchLineOf makes of a resource: command and args as the folder wrote them (placeholders such as
 * `${node}` unexpanded), environment variable names (secret values as ***) and working directory.
 * A folder's line starts only when it is listed here for that folder; the same line in another
 * folder asks again. Read on every check; a console `watch`es the file, so a confirmation given by
 * the CLI (`tooldeck apply --yes`) starts the server there at once, not at its next resync.
 */
export class LaunchAllowList {
  private readonly file: JsonFile<typeof AllowListContent>;
  private readonly changes = new Emitter();
  private watcher?: FSWatcher;
  private settle?: NodeJS.Timeout;

  constructor(private readonly dataDir: string) {
    // A damaged file forgets confirmations (everything asks again); it never confirms anything.
    this.file = new JsonFile(join(dataDir, LAUNCH_ALLOW_LIST_FILE), AllowListContent, () => ({ folders: {} }), { kind: 'launch allow-list', whenInvalid: 'empty' });
  }

  async isConfirmed(folder: string, line: string): Promise<boolean> {
    return (await this.linesOf(folder)).includes(line);
  }

  async linesOf(folder: string): Promise<string[]> {
    const content = await this.file.read();
    return content.folders[folderKey(folder)] ?? [];
  }

  /** Records the user's confirmation of these lines for this folder. */
  async confirm(folder: string, lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    const key = folderKey(folder);
    const added = await this.file.update((current: AllowListContent) => {
      const known = current.folders[key] ?? [];
      const fresh = [...new Set(lines)].filter((line) => !known.includes(line));
      return { next: { folders: { ...current.folders, [key]: [...known, ...fresh] } }, result: fresh.length > 0 };
    });
    if (added) this.changes.emit();
  }

  /** Lines were confirmed in this process, or (while `watch`ing) the file changed on disk. */
  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  /**
   * Follows the file as other processes on the data dir write it (the CLI confirming a line). The
   * folder is watched, not the file: it is replaced on every write (written aside, then renamed).
   * A burst of events settles for 100 ms into one change. Without a watcher (a file system that has
   * none) confirmations from elsewhere still count at the next reconcile.
   */
  watch(onError: (error: Error) => void = () => undefined): void {
    if (this.watcher) return;
    try {
      this.watcher = watch(this.dataDir, (_event, name) => {
        if (name !== LAUNCH_ALLOW_LIST_FILE) return;
        clearTimeout(this.settle);
        this.settle = setTimeout(() => this.changes.emit(), 100);
      });
      this.watcher.on('error', onError);
    } catch (error) {
      onError(error as Error);
    }
  }

  close(): void {
    clearTimeout(this.settle);
    this.watcher?.close();
    this.watcher = undefined;
  }
}

/** The folder as one path: a symlinked or relative spelling of the same folder shares its confirmations. */
function folderKey(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return resolve(folder);
  }
}
