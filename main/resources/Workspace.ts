import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { watchFolder, type FolderWatch } from '../platform/watchFolder';
import { readdir, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { AppError } from '../../shared/errors';
import type { Diagnostic } from '../../shared/resources/diagnostics';
import {
  MAX_WORKSPACE_FILE_BYTES,
  WORKSPACE_FILE,
  type DefaultsPreview,
  type DeleteFileInput,
  type EditFileInput,
  type SaveFileInput,
  type ValidateTextResult,
  type WorkspaceFileSummary,
  type WorkspaceFileView,
  type WorkspaceListing,
} from '../../shared/resources/workspace';
import { INPUT_LIMITS, type InputLimit } from '../../shared/inputLimits';
import type { Logger } from '../platform/Logger';
import { readBounded, TOO_LARGE_STEP, tooLargeError, type ReadLimit } from '../platform/readBounded';
import { writeFileAtomic } from '../platform/atomicWrite';
import { editResourceText } from './editResourceText';
import { documentDiagnostics, indexByIdentity, type IdentityIndex } from './duplicateDiagnostics';
import { parseResourceText, type LoadedDocument } from './parseResourceText';
import { normalizeWorkspacePath, resolveInside, toWorkspacePath } from './workspacePaths';
import { Emitter } from '../platform/Emitter';

export interface WorkspaceOptions {
  dir: string;
  logger: Logger;
  /** Watch the folder for edits made outside (default true). */
  watch?: boolean;
  /** Bursts of file events within this window cause one rescan (default 100 ms). */
  debounceMs?: number;
  /** Poll at this interval when the OS cannot watch the folder (default 2 s). */
  pollIntervalMs?: number;
  maxFileBytes?: number;
}

/** A document of the workspace with the file it is in. */
export interface WorkspaceDocument extends LoadedDocument {
  file: string;
}

export interface WorkspaceChange {
  /** Workspace-relative paths that were added, changed or removed. */
  changed: string[];
}

interface FileState {
  path: string;
  version: string | null;
  size: number;
  mtimeMs: number;
  tooLarge: boolean;
  text?: string;
  documents: LoadedDocument[];
  /** Problems of the file itself: too large, unreadable. */
  fileDiagnostics: Diagnostic[];
}

// collections/ holds saved-call collections (their own format, see main/collections).
const IGNORED_DIRS = new Set(['collections', 'node_modules']);
const MAX_DEPTH = 8;
const MAX_FILES = 2_000;

/**
 * A folder of YAML resource files: read, validated and watched. Saving is guarded by content
 * versions: a file that changed on disk since the caller read it is not overwritten unless forced,
 * so an outside edit is never silently lost (and the caller keeps its own text to merge).
 */
/** Runs with the final text of a file before it is written; throwing leaves the file as it was. */
export type BeforeWrite = (path: string, text: string) => void | Promise<void>;

export class Workspace {
  private currentDir: string;
  private readonly files = new Map<string, FileState>();
  private readonly changes = new Emitter<WorkspaceChange>((error) => this.options.logger.warn('workspace listener failed', { error: (error as Error).message }));
  private watch?: FolderWatch;
  private debounceTimer?: NodeJS.Timeout;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly limit: InputLimit;

  constructor(private readonly options: WorkspaceOptions) {
    this.currentDir = resolve(options.dir);
    this.limit = { ...INPUT_LIMITS.resourceFile, maxBytes: options.maxFileBytes ?? MAX_WORKSPACE_FILE_BYTES };
  }

  /** Files found in the folder: regular files only (a FIFO named x.yaml is never waited on), counted as read. */
  private get fileLimit(): ReadLimit {
    return { ...this.limit, regularOnly: true };
  }

  get dir(): string {
    return this.currentDir;
  }

  /** Reads every file and starts watching. */
  async load(): Promise<void> {
    const info = await stat(this.currentDir).catch(() => undefined);
    if (!info?.isDirectory()) throw new AppError('NotFound', `The workspace folder ${this.currentDir} does not exist or is not a folder.`);
    await this.serialized(() => this.scan());
    if (this.options.watch !== false) this.startWatching();
  }

  /** Switches to another folder (it must exist); everything in the old one counts as removed. */
  async open(dir: string): Promise<void> {
    const target = resolve(dir);
    const info = await stat(target).catch(() => undefined);
    if (!info?.isDirectory()) throw new AppError('NotFound', `${target} does not exist or is not a folder.`);
    this.stopWatching();
    const before = [...this.files.keys()];
    await this.serialized(async () => {
      this.files.clear();
      this.currentDir = target;
      await this.scan(false);
    });
    this.emit([...new Set([...before, ...this.files.keys()])]);
    if (this.options.watch !== false) this.startWatching();
  }

  listing(): WorkspaceListing {
    return { dir: this.currentDir, files: this.sortedFiles().map((file) => this.summary(file)) };
  }

  read(path: string): WorkspaceFileView {
    const file = this.files.get(normalizeWorkspacePath(path));
    if (!file) throw new AppError('NotFound', `There is no file ${path} in the workspace ${this.currentDir}.`);
    return { ...this.summary(file), ...(file.text !== undefined ? { text: file.text } : {}), parsed: file.documents.map(publicDocument), diagnostics: this.diagnostics(file) };
  }

  /** Every document of every file, in path order, duplicates across files reported on each. */
  documents(): WorkspaceDocument[] {
    const index = this.identityIndex();
    return this.sortedFiles().flatMap((file) =>
      file.documents.map((doc) => {
        const diagnostics = documentDiagnostics(file.path, doc, index);
        return { ...doc, diagnostics, valid: !diagnostics.some((d) => d.severity === 'error'), file: file.path };
      }),
    );
  }

  /** A file with YAML errors (or one too large to read) may hold objects nobody can see right now. */
  isUnreadable(path: string): boolean {
    const file = this.files.get(path);
    return !!file && (file.tooLarge || file.fileDiagnostics.length > 0 || file.documents.some((doc) => doc.syntaxError));
  }

  /** Validates text as if it were `path` (if given): its own rules plus duplicates with the other files. */
  validateText(text: string, path?: string): ValidateTextResult {
    const relative = path === undefined ? undefined : normalizeWorkspacePath(path);
    this.checkSize(Buffer.byteLength(text), relative ?? 'The text');
    const documents = parseResourceText(text, { fileName: relative });
    const file = relative ?? '(this text)';
    const others = [...this.files.values()].filter((f) => f.path !== relative).flatMap((f) => f.documents.map((doc) => ({ ...doc, file: f.path })));
    const index = indexByIdentity([...others, ...documents.map((doc) => ({ ...doc, file }))]);
    const checked = documents.map((doc) => ({ ...doc, diagnostics: documentDiagnostics(file, doc, index) }));
    const diagnostics = checked.flatMap((doc) => doc.diagnostics);
    return { valid: !diagnostics.some((d) => d.severity === 'error'), parsed: checked.map(publicDocument), diagnostics };
  }

  /** The objects of the text as they would be stored, every default applied. */
  previewDefaults(text: string, path?: string): DefaultsPreview {
    const result = this.validateText(text, path);
    const relative = path === undefined ? undefined : normalizeWorkspacePath(path);
    const objects = parseResourceText(text, { fileName: relative }).flatMap((doc) => (doc.stored ? [doc.stored] : []));
    return { valid: result.valid, objects, yaml: objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n'), diagnostics: result.diagnostics };
  }

  /** Writes a file unless it changed on disk since `expectedVersion` (null: it must not exist yet). */
  async save(input: SaveFileInput, beforeWrite?: BeforeWrite): Promise<WorkspaceFileView> {
    const path = normalizeWorkspacePath(input.path);
    this.checkSize(Buffer.byteLength(input.text), path);
    await this.serialized(async () => {
      const absolute = await resolveInside(this.currentDir, path);
      const onDisk = await versionOnDisk(absolute);
      if (!input.force && onDisk !== input.expectedVersion) throw conflict(path, input.expectedVersion, onDisk);
      await beforeWrite?.(path, input.text);
      const mode = await stat(absolute).then((s) => s.mode & 0o777).catch(() => 0o600);
      await writeFileAtomic(absolute, input.text, mode);
      await this.refresh(path);
    });
    this.emit([path]);
    return this.read(path);
  }

  /** Sets or removes fields of documents in place, keeping comments and key order. */
  async edit(input: EditFileInput, beforeWrite?: BeforeWrite): Promise<WorkspaceFileView> {
    const path = normalizeWorkspacePath(input.path);
    await this.serialized(async () => {
      const absolute = await resolveInside(this.currentDir, path);
      const bytes = await readBounded(absolute, this.fileLimit).catch((error: unknown) => {
        if (error instanceof AppError && error.step === TOO_LARGE_STEP) throw tooLargeError(path, this.limit);
        return undefined;
      });
      const onDisk = bytes ? hashVersion(bytes) : null;
      if (!bytes || onDisk !== input.expectedVersion) throw conflict(path, input.expectedVersion, onDisk);
      const text = editResourceText(decode(bytes), input.edits);
      this.checkSize(Buffer.byteLength(text), path);
      await beforeWrite?.(path, text);
      await writeFileAtomic(absolute, text, (await stat(absolute)).mode & 0o777);
      await this.refresh(path);
    });
    this.emit([path]);
    return this.read(path);
  }

  async delete(input: DeleteFileInput): Promise<void> {
    const path = normalizeWorkspacePath(input.path);
    await this.serialized(async () => {
      const absolute = await resolveInside(this.currentDir, path);
      const onDisk = await versionOnDisk(absolute);
      if (onDisk === null) throw new AppError('NotFound', `There is no file ${path} in the workspace.`);
      if (input.expectedVersion !== undefined && onDisk !== input.expectedVersion) throw conflict(path, input.expectedVersion, onDisk);
      await unlink(absolute);
      this.files.delete(path);
    });
    this.emit([path]);
  }

  /** Rescans the folder now (outside edits); resolves with what changed. */
  async rescan(): Promise<string[]> {
    const changed = await this.serialized(() => this.scan());
    if (changed.length > 0) this.emit(changed);
    return changed;
  }

  onChange(listener: (change: WorkspaceChange) => void): () => void {
    return this.changes.on(listener);
  }

  close() {
    this.closed = true;
    this.stopWatching();
    this.changes.clear();
  }

  private summary(file: FileState): WorkspaceFileSummary {
    const diagnostics = this.diagnostics(file);
    return {
      path: file.path,
      version: file.version,
      size: file.size,
      documents: file.documents.length,
      errors: diagnostics.filter((d) => d.severity === 'error').length,
      warnings: diagnostics.filter((d) => d.severity === 'warning').length,
      kinds: [...new Set(file.documents.flatMap((doc) => (doc.kind ? [doc.kind] : [])))],
      tooLarge: file.tooLarge,
    };
  }

  private diagnostics(file: FileState): Diagnostic[] {
    const index = this.identityIndex();
    return [...file.fileDiagnostics, ...file.documents.flatMap((doc) => documentDiagnostics(file.path, doc, index))];
  }

  private sortedFiles(): FileState[] {
    return [...this.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private identityIndex(): IdentityIndex {
    return indexByIdentity(this.sortedFiles().flatMap((file) => file.documents.map((doc) => ({ ...doc, file: file.path }))));
  }

  private checkSize(bytes: number, what: string) {
    if (bytes > this.limit.maxBytes) throw tooLargeError(what, this.limit, bytes);
  }

  /** Full scan; returns the paths that were added, changed or removed. */
  private async scan(compare = true): Promise<string[]> {
    const found = await listFiles(this.currentDir);
    const changed: string[] = [];
    for (const path of found) if (await this.refresh(path, compare)) changed.push(path);
    for (const path of [...this.files.keys()]) {
      if (!found.includes(path)) {
        this.files.delete(path);
        changed.push(path);
      }
    }
    return changed.sort();
  }

  /** Re-reads one file if its size, time or content changed; true when its content did. */
  private async refresh(path: string, compare = true): Promise<boolean> {
    const absolute = join(this.currentDir, path);
    const previous = this.files.get(path);
    const info = await stat(absolute).catch(() => undefined);
    if (!info?.isFile()) {
      return this.files.delete(path);
    }
    if (compare && previous && previous.size === info.size && previous.mtimeMs === info.mtimeMs) return false;
    const base = { path, size: info.size, mtimeMs: info.mtimeMs };
    let next: FileState;
    let bytes: Buffer | undefined;
    try {
      // The size stat gave is a hint: the file may grow before it is read, so the read counts too.
      if (info.size <= this.limit.maxBytes) bytes = await readBounded(absolute, this.fileLimit);
    } catch (error) {
      if (!(error instanceof AppError && error.step === TOO_LARGE_STEP)) {
        next = { ...base, version: null, tooLarge: false, documents: [], fileDiagnostics: [fileDiagnostic('unreadable', `${path} cannot be read: ${(error as Error).message}`)] };
        this.files.set(path, next);
        return true;
      }
    }
    if (!bytes) {
      const version = await hashFile(absolute).catch(() => null);
      if (previous?.tooLarge && previous.version === version) return false;
      next = {
        ...base,
        version,
        tooLarge: true,
        documents: [],
        fileDiagnostics: [fileDiagnostic('tooLarge', tooLargeError(path, { ...this.limit, hint: `it was not loaded: ${this.limit.hint}` }, info.size > this.limit.maxBytes ? info.size : undefined).message)],
      };
    } else {
      const version = hashVersion(bytes);
      if (previous && previous.version === version && !previous.tooLarge) {
        this.files.set(path, { ...previous, ...base });
        return false;
      }
      const text = decode(bytes);
      next = { ...base, version, tooLarge: false, text, documents: parseResourceText(text, { fileName: path }), fileDiagnostics: [] };
    }
    this.files.set(path, next);
    return true;
  }

  private startWatching() {
    if (this.closed) return;
    this.watch = watchFolder(this.currentDir, {
      recursive: true,
      pollIntervalMs: this.options.pollIntervalMs,
      // Hidden files and the temporary files of atomic writes say nothing about the workspace.
      onEvent: (name) => {
        if (!name || !/(^|[\\/])\.|\.tmp$/.test(name)) this.scheduleRescan();
      },
      onFallback: (error) => this.options.logger.warn('workspace cannot be watched; polling instead', { dir: this.currentDir, error: error.message }),
    });
  }

  private stopWatching() {
    this.watch?.close();
    this.watch = undefined;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.debounceTimer = undefined;
  }

  private scheduleRescan() {
    if (this.closed) return;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      this.rescan().catch((error: Error) => this.options.logger.warn('workspace rescan failed', { dir: this.currentDir, error: error.message }));
    }, this.options.debounceMs ?? 100);
  }

  private emit(changed: string[]) {
    if (changed.length === 0) return;
    this.changes.emit({ changed });
  }

  /** File operations run one at a time, so a rescan never interleaves with a save. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function publicDocument(doc: LoadedDocument) {
  const { identity: _identity, stored: _stored, syntaxError: _syntaxError, nameAt: _nameAt, ...view } = doc;
  return { ...view, valid: !doc.diagnostics.some((d) => d.severity === 'error') };
}

function fileDiagnostic(code: 'tooLarge' | 'unreadable', message: string): Diagnostic {
  return { severity: 'error', code, message, line: 1, column: 1, endLine: 1, endColumn: 1 };
}

function conflict(path: string, expected: string | null, onDisk: string | null): AppError {
  const what = onDisk === null ? 'was deleted' : expected === null ? 'already exists' : 'changed on disk';
  return new AppError(
    'AlreadyExists',
    `${path} ${what} since you opened it (your version ${expected ?? 'new file'}, on disk ${onDisk ?? 'none'}). Nothing was written and your text is kept: reload the file and merge, or save again with force to overwrite.`,
    { step: 'conflict' },
  );
}

async function listFiles(dir: string): Promise<string[]> {
  const result: string[] = [];
  const walk = async (folder: string, depth: number) => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || result.length >= MAX_FILES) continue;
      const absolute = join(folder, entry.name);
      if (entry.isDirectory() && !IGNORED_DIRS.has(entry.name) && depth < MAX_DEPTH) await walk(absolute, depth + 1);
      else if (entry.isFile() && WORKSPACE_FILE.test(entry.name)) result.push(toWorkspacePath(dir, absolute));
    }
  };
  await walk(dir, 0);
  return result.sort();
}

export function hashVersion(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 20);
}

async function versionOnDisk(absolute: string): Promise<string | null> {
  return hashFile(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

function hashFile(absolute: string): Promise<string> {
  return new Promise((resolveHash, reject) => {
    const hash = createHash('sha256');
    createReadStream(absolute)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolveHash(hash.digest('hex').slice(0, 20)))
      .on('error', reject);
  });
}

function decode(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
