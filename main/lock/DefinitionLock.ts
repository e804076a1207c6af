import { watchFolder, type FolderWatch } from '../platform/watchFolder';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Document } from 'yaml';
import { AppError } from '../../shared/errors';
import { sourceId, type ToolSource } from '../../shared/invocation';
import {
  LOCK_FILE_NAME,
  type CompareInput,
  type DefinitionDiff,
  type DefinitionHash,
  type LintFinding,
  type LockStatus,
  type NewSourcesPolicy,
  type ReviewDecisionInput,
  type RevisionRef,
  type RevisionSummary,
  type SourceReview,
  type ToolDefinition,
  type ToolHold,
  type ToolReview,
} from '../../shared/lock';
import type { ToolEntry } from '../../shared/registry';
import type { Logger } from '../platform/Logger';
import type { ToolCatalog } from '../registry/ToolCatalog';
import { definitionDiff, type DiffTool } from './definitionDiff';
import { entryHashes } from './definitionHash';
import type { DefinitionStore } from './DefinitionStore';
import { lintTools } from './lint/lintTools';
import { ensureLockedSource, lockText, newLockDocument, parseLock, readLock, removeLockedSource, setLockedTool, setNewSources, writeLock, type LoadedLock, type LockedTool, type LockModel } from './lockFile';
import { holdOf, reviewSource, type CurrentTool, type ReviewContext } from './reviewSource';
import { mergeUserDecisions, userRejected, type UserLockDecisions } from './UserLockDecisions';
import { Emitter } from '../platform/Emitter';

export interface DefinitionLockOptions {
  catalog: ToolCatalog;
  store: DefinitionStore;
  /** The workspace folder, where tooldeck.lock lives; read again when the folder changes. */
  workspaceDir: () => string;
  /** Sources that are pinned: saved and workspace ones. One-off targets (`mcp call --stdio`) are not. */
  tracked: (source: ToolSource) => boolean;
  /**
   * Whether the lock reviews an entry of a tracked source; all of them when absent. An entry whose
   * definition is Tooldeck's own, not a server's (an A2A agent's turn entries), has nothing to review.
   */
  reviews?: (entry: ToolEntry) => boolean;
  logger: Logger;
  /** Watch the lockfile for edits by hand (the console hosts); one-shot commands read it once. */
  watch?: boolean;
  /**
   * The user's own decisions (in the data dir): a folder's lock applies under them and never
   * loosens them (mergeUserDecisions); approve, reject, forget and the new-sources policy record them.
   */
  userDecisions?: UserLockDecisions;
  now?: () => number;
}

interface CachedSource {
  /** The entries the review was computed from, by tool name. */
  hashes: Map<string, DefinitionHash>;
  review: SourceReview;
  holds: Map<string, ToolHold | undefined>;
}

/**
 * Tool-definition trust, for every source of the registry: each distinct set of definitions a
 * source lists is stored as a revision; each tool's hash is compared with the approved one in the
 * workspace's `tooldeck.lock`; tools that are new, changed or renamed since approval are held —
 * the effective policy reports the hold, the pipeline refuses to run a held tool unless the caller
 * confirms that very definition, and compiled agent files leave it out — until someone approves
 * them here (UI, CLI) or in the lockfile itself.
 */
export class DefinitionLock {
  private loaded: LoadedLock = { exists: false, model: { version: 1, newSources: 'trust-on-first-use', sources: {} } };
  private dir: string;
  private readonly cache = new Map<string, CachedSource>();
  private readonly definitions = new Map<string, ToolDefinition | null>();
  private readonly changes = new Emitter((error) => this.options.logger.warn('lock listener failed', { error: (error as Error).message }));
  private readonly lintCache = new Map<string, { hashes: string; findings: LintFinding[] }>();
  /** Holds already logged, so a source that keeps relisting the same held tools logs them once. */
  private readonly announced = new Map<string, string>();
  private trustOnFirstUse = true;
  private writes: Promise<unknown> = Promise.resolve();
  private watch?: FolderWatch;
  private debounce?: NodeJS.Timeout;
  private stopCatalog?: () => void;
  private closed = false;

  constructor(private readonly options: DefinitionLockOptions) {
    this.dir = options.workspaceDir();
  }

  get file(): string {
    return join(this.dir, LOCK_FILE_NAME);
  }

  /** Reads the lockfile, records every tracked source already in the catalog, and follows the catalog from now on. */
  async init(): Promise<void> {
    await this.loadUserDecisions();
    await this.reload();
    this.stopCatalog = this.options.catalog.onChange((change) => this.sourceChanged(change.source));
    for (const source of this.options.catalog.sources()) this.sourceChanged(source);
    if (this.options.watch) this.startWatching();
  }

  /**
   * From now on sources without a lock entry are not trusted on first use in this process: what
   * `lock status` and `lock verify` need, since a check must never approve what it checks.
   */
  suspendTrustOnFirstUse(): void {
    this.trustOnFirstUse = false;
    this.invalidate();
  }

  /** The workspace may have moved to another folder: then the lock of that folder applies. */
  async workspaceChanged(): Promise<void> {
    const dir = this.options.workspaceDir();
    if (dir === this.dir) return;
    this.dir = dir;
    this.stopWatching();
    await this.reload();
    if (this.options.watch) this.startWatching();
  }

  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  // ---- what the effective policy and compiling ask ------------------------------------------

  /** Why the entry may not run as is, or undefined when its definition is approved (or its source is not tracked). */
  hold(entry: ToolEntry): ToolHold | undefined {
    if (!this.options.tracked(entry.source) || this.options.reviews?.(entry) === false) return undefined;
    const id = sourceId(entry.source);
    const cached = this.cached(id);
    const hash = entryHashes(entry).hash;
    if (cached && cached.hashes.get(entry.toolName) === hash) return cached.holds.get(entry.toolName);
    // An entry that is not the source's live set (a disconnected server's cached discovery): judged on its own.
    const ctx = this.reviewContext(id);
    const review = reviewSource(id, [this.currentTool(entry)], ctx).tools[0]!;
    return holdOf(id, review, ctx);
  }

  // ---- views ---------------------------------------------------------------------------------

  status(): LockStatus {
    const ids = new Set<string>([...Object.keys(this.loaded.model.sources), ...this.liveSources()]);
    const sources = [...ids].sort().map((id) => this.review(id));
    return {
      file: this.file,
      exists: this.loaded.exists,
      ...(this.loaded.error ? { error: this.loaded.error } : {}),
      newSources: this.loaded.model.newSources,
      sources,
    };
  }

  /** The sources the lockfile has entries for. */
  lockedSources(): string[] {
    return Object.keys(this.loaded.model.sources).sort();
  }

  /** The source's review: its live tools, or when it is not connected the tools of its latest revision. */
  review(id: string): SourceReview {
    const cached = this.cached(id);
    if (cached) return cached.review;
    const latest = this.options.store.latest(id);
    const tools = latest ? this.revisionTools(latest.id) : [];
    return { ...reviewSource(id, tools, this.reviewContext(id)), live: false, ...(latest ? { revision: this.options.store.count(id) } : {}) };
  }

  /** The source's revisions, newest first, numbered per source (1 = the first set it listed). */
  history(id: string): RevisionSummary[] {
    const rows = this.options.store.revisions(id);
    const total = this.options.store.count(id);
    const numberOf = (index: number) => total - index;
    const approved = this.approvedSetKey(id);
    const bySet = new Map<string, number>();
    for (let index = rows.length - 1; index >= 0; index--) if (!bySet.has(rows[index]!.setHash)) bySet.set(rows[index]!.setHash, numberOf(index));
    return rows.map((row, index) => {
      const previous = rows[index + 1];
      const tools = this.options.store.tools(row.id);
      const counts = previous ? definitionDiff(id, numberOf(index + 1), numberOf(index), this.options.store.tools(previous.id), tools).counts : { added: tools.length, removed: 0, renamed: 0, changed: 0 };
      const first = bySet.get(row.setHash);
      return {
        id: numberOf(index),
        source: id,
        setHash: row.setHash,
        seenAt: row.seenAt,
        lastSeenAt: row.lastSeenAt,
        toolCount: row.toolCount,
        added: counts.added,
        removed: counts.removed,
        renamed: counts.renamed,
        changed: counts.changed,
        ...(first !== undefined && first !== numberOf(index) ? { sameAs: first } : {}),
        approved: approved !== undefined && approved === toolsKey(tools),
      };
    });
  }

  compare(input: CompareInput & { from: RevisionRef; to: RevisionRef }): DefinitionDiff {
    const id = input.source;
    return definitionDiff(id, input.from, input.to, this.side(id, input.from), this.side(id, input.to));
  }

  /** Linter findings for every tracked source's live tools (or one source's), cached per set of definitions. */
  lint(only?: string): LintFinding[] {
    const sources = only ? [only] : this.liveSources();
    const names = this.options.catalog.sources().flatMap((source) => [source.name, ...this.options.catalog.list({ source: sourceId(source) }).map((entry) => entry.toolName)]);
    return sources.flatMap((id) => {
      const entries = this.options.catalog.list({ source: id });
      const key = entries.map((entry) => entryHashes(entry).hash).join(',');
      const cached = this.lintCache.get(id);
      if (cached?.hashes === key) return cached.findings;
      const own = new Set(entries.map((entry) => entry.toolName));
      const sourceName = id.slice(id.indexOf(':') + 1);
      const findings = lintTools(
        entries.map((entry) => entryHashes(entry).definition),
        { otherNames: names.filter((name) => !own.has(name) && name !== sourceName) },
      ).map((finding) => ({ ...finding, source: id }));
      this.lintCache.set(id, { hashes: key, findings });
      return findings;
    });
  }

  // ---- decisions -----------------------------------------------------------------------------

  /**
   * Approves the source's current definitions: the named tools, or every tool (then the lock entry
   * is exactly the current set, and approved tools that are gone are dropped). With `hashes`, only
   * if each tool still has the definition the reviewer saw.
   */
  async approve(input: ReviewDecisionInput): Promise<SourceReview> {
    const { id, tools, selected } = this.decisionTargets(input);
    const picked = new Set(selected.map((tool) => tool.name));
    await this.options.userDecisions?.approve(id, selected);
    await this.mutate((doc, model) => {
      const lockedTools = model.sources[id]?.tools ?? {};
      for (const tool of selected) {
        const before = lockedTools[tool.name];
        const rejected = (before?.rejected ?? []).filter((hash) => hash !== tool.hash);
        setLockedTool(doc, id, tool.name, { hash: tool.hash, body: tool.body, ...(tool.version !== undefined ? { version: tool.version } : {}), ...(rejected.length ? { rejected } : {}) });
      }
      const currentNames = new Set(tools.map((tool) => tool.name));
      const renamedAway = new Set(selected.flatMap((tool) => (tool.previousName ? [tool.previousName] : [])));
      for (const [name, locked] of Object.entries(lockedTools)) {
        if (currentNames.has(name)) continue;
        // Approving a whole source makes the lock its current set; a rename drops the old name.
        if (!input.tools?.length || renamedAway.has(name)) setLockedTool(doc, id, name, locked.rejected?.length ? { rejected: locked.rejected } : undefined);
      }
      ensureLockedSource(doc, id);
    });
    this.options.logger.info('tool definitions approved', { source: id, tools: [...picked] });
    return this.review(id);
  }

  /** Rejects the named tools' current definitions (every held tool of the source when none is named): they are denied until approved. */
  async reject(input: ReviewDecisionInput): Promise<SourceReview> {
    const { id, selected } = this.decisionTargets(input, (review) => review.state !== 'approved');
    await this.options.userDecisions?.reject(id, selected);
    await this.mutate((doc, model) => {
      const lockedTools = model.sources[id]?.tools ?? {};
      for (const tool of selected) {
        const before = lockedTools[tool.name];
        const rejected = [...new Set([...(before?.rejected ?? []), tool.hash])];
        const hash = before?.hash === tool.hash ? undefined : before?.hash;
        setLockedTool(doc, id, tool.name, { ...(hash ? { hash, ...(before?.body ? { body: before.body } : {}) } : {}), ...(before?.version && hash ? { version: before.version } : {}), rejected });
      }
    });
    this.options.logger.info('tool definitions rejected', { source: id, tools: selected.map((tool) => tool.name) });
    return this.review(id);
  }

  /** Drops a source's entry from the lock (it is trusted on first use, or held, like a new source). */
  async forget(id: string): Promise<void> {
    await this.options.userDecisions?.forget(id);
    await this.mutate((doc) => removeLockedSource(doc, id));
  }

  async setNewSources(policy: NewSourcesPolicy): Promise<LockStatus> {
    await this.options.userDecisions?.setNewSources(policy);
    await this.mutate((doc) => setNewSources(doc, policy));
    return this.status();
  }

  /**
   * An operator pinned a tools.v1 tool's version: where the lock approves the tool's current
   * definition, the pinned version becomes the approved one (a pin is a decision, not drift).
   */
  acceptPin(source: ToolSource, tool: string, version: string): void {
    const id = sourceId(source);
    const locked = this.loaded.model.sources[id]?.tools[tool];
    const entry = this.options.catalog.get(`${id}.${tool}`);
    if (!locked?.hash || !entry || entryHashes(entry).hash !== locked.hash || locked.version === version) return;
    this.mutateInMemory((doc) => setLockedTool(doc, id, tool, { ...locked, version }));
  }

  close(): void {
    this.closed = true;
    this.stopCatalog?.();
    this.stopWatching();
  }

  /** Resolves once every queued write of the lockfile is done (tests, and one-shot commands before they exit). */
  async flush(): Promise<void> {
    await this.writes;
  }

  // ---- internals ---------------------------------------------------------------------------------

  /** A catalog listener: whatever goes wrong here is logged, never thrown into the source that changed. */
  private sourceChanged(source: ToolSource) {
    try {
      this.recordSource(source);
    } catch (error) {
      this.options.logger.warn('tool definitions not reviewed', { source: sourceId(source), error: (error as Error).message });
    }
  }

  private recordSource(source: ToolSource) {
    const id = sourceId(source);
    this.cache.delete(id);
    this.lintCache.delete(id);
    if (!this.options.tracked(source)) return;
    const entries = this.reviewedEntries(id);
    // A source that is gone or down has no entries: that is not a new set of definitions.
    if (entries.length > 0) {
      try {
        this.options.store.record(
          id,
          entries.map((entry) => {
            const hashes = entryHashes(entry);
            return { name: entry.toolName, hash: hashes.hash, body: hashes.body, json: hashes.json, ...(toolVersion(entry) !== undefined ? { version: toolVersion(entry) } : {}) };
          }),
          this.now(),
        );
      } catch (error) {
        this.options.logger.warn('tool definitions not recorded', { source: id, error: (error as Error).message });
      }
      this.trustFirstUse(id, entries);
    }
    const review = this.cached(id)?.review;
    if (review) this.announce(id, review);
    this.emit();
  }

  /** A source seen for the first time, under trust on first use: its definitions become the lock's. */
  private trustFirstUse(id: string, entries: ToolEntry[]) {
    const { model, error } = this.loaded;
    if (error || model.sources[id] || model.newSources !== 'trust-on-first-use' || !this.trustOnFirstUse) return;
    const decisions = this.options.userDecisions?.current;
    this.mutateInMemory((doc) => {
      for (const entry of entries) {
        const hashes = entryHashes(entry);
        const version = toolVersion(entry);
        // First use never approves what the user rejected (in any folder).
        if (decisions && userRejected(decisions, id, entry.toolName, hashes.hash)) setLockedTool(doc, id, entry.toolName, { rejected: [hashes.hash] });
        else setLockedTool(doc, id, entry.toolName, { hash: hashes.hash, body: hashes.body, ...(version !== undefined ? { version } : {}) });
      }
    });
    this.options.logger.info('tool definitions trusted on first use', { source: id, tools: entries.length, lock: this.file });
  }

  private announce(id: string, review: SourceReview) {
    const held = review.tools.filter((tool) => tool.state !== 'approved');
    const key = held.map((tool) => `${tool.tool}:${tool.hash}`).join(',');
    if (this.announced.get(id) === key) return;
    this.announced.set(id, key);
    if (held.length) this.options.logger.warn('tools held for review', { source: id, tools: held.map((tool) => `${tool.tool} (${tool.state})`), lock: this.file });
  }

  private cached(id: string): CachedSource | undefined {
    const existing = this.cache.get(id);
    if (existing) return existing;
    const entries = this.reviewedEntries(id);
    if (entries.length === 0) return undefined;
    const ctx = this.reviewContext(id);
    const count = this.revisionCount(id);
    const review: SourceReview = { ...reviewSource(id, entries.map((entry) => this.currentTool(entry)), ctx), live: true, ...(count ? { revision: count } : {}) };
    const holds = new Map(review.tools.map((tool) => [tool.tool, holdOf(id, tool, ctx)]));
    const cached = { hashes: new Map(review.tools.map((tool) => [tool.tool, tool.hash])), review, holds };
    this.cache.set(id, cached);
    return cached;
  }

  private currentTool(entry: ToolEntry): CurrentTool {
    const hashes = entryHashes(entry);
    const version = toolVersion(entry);
    return { name: entry.toolName, hash: hashes.hash, body: hashes.body, definition: hashes.definition, ...(version !== undefined ? { version } : {}) };
  }

  private reviewContext(id: string): ReviewContext {
    const { model, error } = this.loaded;
    return {
      locked: model.sources[id],
      newSources: model.newSources,
      trustOnFirstUse: this.trustOnFirstUse,
      ...(error ? { lockError: error } : {}),
      definitionOf: (hash) => this.definition(hash),
    };
  }

  /** An approved definition this machine has seen; only for saying which fields changed, so a store that cannot answer is no answer. */
  private definition(hash: string): ToolDefinition | undefined {
    if (!this.definitions.has(hash)) {
      try {
        this.definitions.set(hash, this.options.store.definition(hash) ?? null);
      } catch {
        return undefined;
      }
    }
    return this.definitions.get(hash) ?? undefined;
  }

  /** The number of the source's newest revision, for views; 0 when the store cannot answer. */
  private revisionCount(id: string): number {
    try {
      return this.options.store.count(id);
    } catch {
      return 0;
    }
  }

  private revisionTools(revision: number): CurrentTool[] {
    return this.options.store.tools(revision).map((tool) => ({ ...tool, ...(this.definition(tool.hash) ? { definition: this.definition(tool.hash)! } : {}) }));
  }

  /** Tracked sources with entries in the catalog now. */
  /** A source's live entries that the lock reviews (see `reviews`). */
  private reviewedEntries(id: string): ToolEntry[] {
    const entries = this.options.catalog.list({ source: id });
    const reviews = this.options.reviews;
    return reviews ? entries.filter((entry) => reviews(entry)) : entries;
  }

  private liveSources(): string[] {
    return this.options.catalog
      .sources()
      .filter((source) => this.options.tracked(source))
      .map(sourceId);
  }

  private side(id: string, ref: RevisionRef): DiffTool[] {
    if (ref === 'current') {
      const cached = this.cached(id);
      if (cached) return this.reviewedEntries(id).map((entry) => this.currentTool(entry));
      const latest = this.options.store.latest(id);
      if (!latest) throw new AppError('NotFound', `${id} has no definitions yet: connect it first.`);
      return this.revisionTools(latest.id);
    }
    if (ref === 'approved') {
      const locked = this.loaded.model.sources[id]?.tools ?? {};
      return Object.entries(locked).flatMap(([name, tool]) =>
        tool.hash ? [{ name, hash: tool.hash, body: tool.body ?? tool.hash, ...(this.definition(tool.hash) ? { definition: this.definition(tool.hash)! } : {}), ...(tool.version !== undefined ? { version: tool.version } : {}) }] : [],
      );
    }
    const row = this.options.store.nth(id, ref);
    if (!row) throw new AppError('NotFound', `${id} has no revision ${ref} (it has ${this.options.store.count(id)}).`);
    return this.revisionTools(row.id);
  }

  /** A key of the lock's approved set for a source, comparable with a revision's tools. */
  private approvedSetKey(id: string): string | undefined {
    const locked = this.loaded.model.sources[id];
    if (!locked) return undefined;
    return toolsKey(Object.entries(locked.tools).flatMap(([name, tool]) => (tool.hash ? [{ name, hash: tool.hash, ...(tool.version !== undefined ? { version: tool.version } : {}) }] : [])));
  }

  private decisionTargets(input: ReviewDecisionInput, byDefault: (review: ToolReview) => boolean = () => true) {
    const id = input.source;
    const review = this.review(id);
    if (review.tools.length === 0 && review.removed.length === 0) throw new AppError('NotFound', `${id} has no tool definitions to review: connect it first, or check the name (sources: ${this.status().sources.map((source) => source.source).join(', ') || 'none'}).`);
    const tools = review.tools;
    const names = input.tools?.length ? input.tools : tools.filter(byDefault).map((tool) => tool.tool);
    const selected = names.map((name) => {
      const tool = tools.find((candidate) => candidate.tool === name);
      if (!tool) throw new AppError('NotFound', `${id} has no tool ${name}; it has ${tools.map((candidate) => candidate.tool).join(', ') || 'none'}.`);
      const expected = input.hashes?.[name];
      if (expected && expected !== tool.hash) throw new AppError('AlreadyExists', `${id} ${name} changed again since it was reviewed (reviewed ${expected.slice(0, 19)}…, now ${tool.hash.slice(0, 19)}…): review the new definition.`);
      return { name, hash: tool.hash, body: tool.body, ...(tool.version !== undefined ? { version: tool.version } : {}), ...(tool.previousName ? { previousName: tool.previousName } : {}) };
    });
    return { id, tools: tools.map((tool) => ({ name: tool.tool })), selected };
  }

  /**
   * Applies a change to the lockfile on disk: the file is read again first (it may have been edited
   * by hand), and a file that cannot be parsed is never written over.
   */
  private mutate(change: (doc: Document, model: LockModel) => void): Promise<void> {
    const run = this.writes.then(async () => {
      const fresh = await readLock(this.file);
      if (fresh.error) {
        this.apply(fresh);
        throw new AppError('InvalidInput', `${this.file} cannot be used (${fresh.error}); fix or delete it first. Nothing was written.`);
      }
      const doc = fresh.doc ?? newLockDocument();
      change(doc, fresh.model);
      const parsed = parseLock(lockText(doc));
      if (parsed.error) throw new AppError('Internal', `The lock would become invalid (${parsed.error}); nothing was written.`);
      await writeLock(this.file, doc);
      this.apply({ exists: true, doc, model: parsed.model, stamp: await stampOf(this.file) });
    });
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** A change that applies at once in this process and is written in the background (first use, pins). */
  private mutateInMemory(change: (doc: Document, model: LockModel) => void) {
    const doc = this.loaded.doc?.clone() ?? newLockDocument(this.loaded.model);
    change(doc, this.loaded.model);
    const parsed = parseLock(lockText(doc));
    if (parsed.error) return;
    this.apply({ ...this.loaded, doc, model: parsed.model });
    void this.mutate(change).catch((error: Error) => this.options.logger.warn('tooldeck.lock not written', { file: this.file, error: error.message }));
  }

  /** The folder's lock as read becomes the one that applies, merged under the user's decisions. */
  private apply(read: LoadedLock) {
    const decisions = this.options.userDecisions?.current;
    const loaded = decisions && !read.error ? { ...read, model: mergeUserDecisions(read.model, decisions) } : read;
    const before = this.loaded;
    this.loaded = loaded;
    if (loaded.error && loaded.error !== before.error) this.options.logger.warn('tooldeck.lock cannot be used: every tool of every tracked source is held', { file: this.file, error: loaded.error });
    if (loaded.error !== before.error || loaded.exists !== before.exists || JSON.stringify(loaded.model) !== JSON.stringify(before.model)) this.invalidate();
  }

  private invalidate() {
    this.cache.clear();
    this.emit();
  }

  private async reload(): Promise<void> {
    const loaded = await readLock(this.file);
    this.apply(loaded);
    this.invalidate();
  }

  private startWatching() {
    if (this.closed) return;
    this.watch = watchFolder(this.dir, {
      onEvent: (name) => {
        if (name !== null && name !== LOCK_FILE_NAME) return;
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.reloadIfEdited(), 50);
      },
    });
  }

  private stopWatching() {
    this.watch?.close();
    this.watch = undefined;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = undefined;
  }

  /** An edit by hand (or a checkout): read it again, after any write of ours is done. */
  private async reloadIfEdited() {
    await this.writes;
    if (this.closed) return;
    const stamp = await stampOf(this.file);
    if (stamp === this.loaded.stamp && (stamp !== undefined) === this.loaded.exists) return;
    // `tooldeck lock approve` in another process records the user's decision before it writes the lock.
    await this.loadUserDecisions();
    this.apply(await readLock(this.file));
    this.options.logger.info('tooldeck.lock changed on disk', { file: this.file });
  }

  private async loadUserDecisions() {
    const problem = await this.options.userDecisions?.load();
    if (problem) this.options.logger.warn('lock decisions cannot be used', { problem });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private emit() {
    this.changes.emit();
  }
}

/** tools.v1 tools carry the version calls send; other entries have none. */
export function toolVersion(entry: Pick<ToolEntry, 'grpc'>): string | undefined {
  return entry.grpc?.version !== undefined ? (entry.grpc.callVersion ?? entry.grpc.version) : undefined;
}

function toolsKey(tools: ReadonlyArray<{ name: string; hash: string; version?: string }>): string {
  return [...tools]
    .map((tool) => `${tool.name}\0${tool.hash}\0${tool.version ?? ''}`)
    .sort()
    .join('\n');
}

async function stampOf(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info ? `${info.mtimeMs}:${info.size}` : undefined;
}

export type { LockedTool };
