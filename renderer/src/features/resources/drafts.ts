/** Unsaved text of one file, and the version of the file it was based on (null: a new file). */
export interface Draft {
  text: string;
  baseVersion: string | null;
  /** The text of that version, to tell whether the draft differs from it. */
  baseText: string;
}

const STORAGE_KEY = 'tooldeck.resources.drafts';

function load(): Map<string, Draft> {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '{}') as Record<string, Draft>;
    return new Map(Object.entries(stored));
  } catch {
    return new Map();
  }
}

/**
 * Drafts per workspace path, kept for the browser session: switching files or reloading the page
 * loses nothing typed. Only a save or a reload from disk drops one.
 */
export class DraftStore {
  private readonly drafts = load();

  get(path: string): Draft | undefined {
    return this.drafts.get(path);
  }

  set(path: string, draft: Draft): void {
    this.drafts.set(path, draft);
    this.persist();
  }

  delete(path: string): void {
    if (this.drafts.delete(path)) this.persist();
  }

  /** Paths with text that differs from what it was based on. */
  dirtyPaths(): string[] {
    return [...this.drafts].filter(([, d]) => d.text !== d.baseText || d.baseVersion === null).map(([path]) => path);
  }

  private persist() {
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(Object.fromEntries(this.drafts)));
    } catch {
      // Over the storage quota the drafts still live in memory for this page.
    }
  }
}
