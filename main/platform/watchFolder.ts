import { watch, type FSWatcher } from 'node:fs';

export interface FolderWatchOptions {
  /** Also changes in subfolders. */
  recursive?: boolean;
  /** Called for each change: the file name fs.watch reported (relative to the folder), or null when it did not say or when polling. */
  onEvent: (name: string | null) => void;
  /** Told once when fs.watch cannot be used (a network file system, no watchers left) and polling takes over. */
  onFallback?: (error: Error) => void;
  /** How often to poll when watching fails. */
  pollIntervalMs?: number;
}

export interface FolderWatch {
  close(): void;
}

/**
 * Follows a folder with fs.watch and falls back to polling where fs.watch fails or errors later, so
 * edits made outside Tooldeck are always seen, promptly where the platform allows.
 */
export function watchFolder(dir: string, options: FolderWatchOptions): FolderWatch {
  let watcher: FSWatcher | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const poll = (error: Error) => {
    watcher?.close();
    watcher = undefined;
    if (closed || pollTimer) return;
    options.onFallback?.(error);
    pollTimer = setInterval(() => options.onEvent(null), options.pollIntervalMs ?? 2_000);
    pollTimer.unref();
  };
  try {
    watcher = watch(dir, { recursive: options.recursive ?? false }, (_event, name) => options.onEvent(name === null ? null : String(name)));
    watcher.on('error', poll);
  } catch (error) {
    poll(error as Error);
  }
  return {
    close() {
      closed = true;
      watcher?.close();
      watcher = undefined;
      if (pollTimer) clearInterval(pollTimer);
      pollTimer = undefined;
    },
  };
}
