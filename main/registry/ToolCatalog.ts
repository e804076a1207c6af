import { AppError } from '../../shared/errors';
import { sourceId, type ToolSource } from '../../shared/invocation';
import type { CatalogChange, ToolEntry, ToolListFilter } from '../../shared/registry';
import type { ToolExecutor } from './types';
import { Emitter } from '../platform/Emitter';

interface Registered {
  entry: ToolEntry;
  executor: ToolExecutor;
}

export type CatalogListener = (change: CatalogChange) => void;

/** `<source>.<tool>`: the registry name of a tool, e.g. `mcp:github.create_issue`. */
export function toolEntryName(source: ToolSource, toolName: string): string {
  return `${sourceId(source)}.${toolName}`;
}

/**
 * The one catalog of callable things. Entries arrive a source at a time: when a source is
 * (re)discovered its whole entry list and executor replace the previous ones in one step, so nobody
 * sees half a server. Names are unique across sources (RockBot: a duplicate registration throws).
 */
export class ToolCatalog {
  private readonly byName = new Map<string, Registered>();
  private readonly bySource = new Map<string, { source: ToolSource; names: Set<string> }>();
  private readonly changes = new Emitter<CatalogChange>();

  /**
   * Replaces everything `source` provided. Fails without changing anything if an entry belongs to
   * another source, two entries share a name, or a name is already held by a different source.
   */
  replaceSource(source: ToolSource, entries: readonly ToolEntry[], executor: ToolExecutor): CatalogChange {
    return this.apply(source, entries, executor);
  }

  removeSource(source: ToolSource): CatalogChange {
    return this.apply(source, [], undefined);
  }

  private apply(source: ToolSource, entries: readonly ToolEntry[], executor: ToolExecutor | undefined): CatalogChange {
    const id = sourceId(source);
    const incoming = new Map<string, ToolEntry>();
    for (const entry of entries) {
      if (sourceId(entry.source) !== id) {
        throw new AppError('InvalidInput', `Entry ${entry.name} belongs to ${sourceId(entry.source)}, not ${id}.`);
      }
      const expected = toolEntryName(source, entry.toolName);
      if (entry.name !== expected) throw new AppError('InvalidInput', `Entry ${entry.name} should be named ${expected}.`);
      if (incoming.has(entry.name)) throw new AppError('AlreadyExists', `${id} lists the tool ${entry.toolName} twice.`);
      const holder = this.byName.get(entry.name);
      if (holder && sourceId(holder.entry.source) !== id) {
        throw new AppError(
          'AlreadyExists',
          `Tool name ${entry.name} from ${id} is already registered by ${sourceId(holder.entry.source)}; names must be unique across sources.`,
        );
      }
      incoming.set(entry.name, entry);
    }

    const previous = this.bySource.get(id)?.names ?? new Set<string>();
    const change: CatalogChange = { source, added: [], removed: [], updated: [] };
    for (const name of previous) {
      if (!incoming.has(name)) {
        this.byName.delete(name);
        change.removed.push(name);
      }
    }
    for (const [name, entry] of incoming) {
      (previous.has(name) ? change.updated : change.added).push(name);
      this.byName.set(name, { entry, executor: executor! });
    }
    if (incoming.size > 0) this.bySource.set(id, { source, names: new Set(incoming.keys()) });
    else this.bySource.delete(id);
    this.emit(change);
    return change;
  }

  /** Adds or replaces one entry of a source that is already registered or new. */
  register(entry: ToolEntry, executor: ToolExecutor): CatalogChange {
    const id = sourceId(entry.source);
    const others = [...(this.bySource.get(id)?.names ?? [])].filter((name) => name !== entry.name).map((name) => this.byName.get(name)!);
    for (const other of others) {
      if (other.executor !== executor) throw new AppError('InvalidInput', `All entries of ${id} must share one executor.`);
    }
    return this.replaceSource(entry.source, [...others.map((other) => other.entry), entry], executor);
  }

  unregister(name: string): boolean {
    const registered = this.byName.get(name);
    if (!registered) return false;
    const id = sourceId(registered.entry.source);
    const rest = [...this.bySource.get(id)!.names].filter((other) => other !== name).map((other) => this.byName.get(other)!.entry);
    this.apply(registered.entry.source, rest, registered.executor);
    return true;
  }

  get(name: string): ToolEntry | undefined {
    return this.byName.get(name)?.entry;
  }

  /** The entry and the executor that runs it; what the pipeline calls. */
  resolve(name: string): Registered | undefined {
    return this.byName.get(name);
  }

  list(filter: ToolListFilter = {}): ToolEntry[] {
    const entries: ToolEntry[] = [];
    for (const { entry } of this.byName.values()) {
      if (filter.sourceKind && entry.source.kind !== filter.sourceKind) continue;
      if (filter.source && sourceId(entry.source) !== filter.source) continue;
      if (filter.tag && !entry.tags?.includes(filter.tag)) continue;
      if (filter.operationClass && !entry.policy.operationClasses.includes(filter.operationClass)) continue;
      entries.push(entry);
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  sources(): ToolSource[] {
    return [...this.bySource.values()].map((value) => value.source);
  }

  get size(): number {
    return this.byName.size;
  }

  /** Called after every change that added, removed or updated an entry; returns the unsubscribe. */
  onChange(listener: CatalogListener): () => void {
    return this.changes.on(listener);
  }

  private emit(change: CatalogChange) {
    if (change.added.length + change.removed.length + change.updated.length === 0) return;
    this.changes.emit(change);
  }
}
