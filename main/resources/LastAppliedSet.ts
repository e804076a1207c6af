import type { ResourceKind, ResourceSource } from '../../shared/resources/meta';
import { canonicalJson } from '../registry/canonicalJson';
import { identityKey, type ResourceIdentity } from './normalizeResource';
import type { WorkspaceDocument } from './Workspace';

export interface AppliedObject<T> {
  key: string;
  identity: ResourceIdentity;
  /** The last valid version (defaults applied); undefined while the object has never been valid. */
  value?: T;
  /** That version as written. */
  written?: unknown;
  /** Where the object is written (or was last seen). */
  source: ResourceSource;
  /** Counts changes of the applied version, from 1. */
  generation: number;
  /** Why what the file holds now is not applied: invalid, defined twice, or its file cannot be parsed. */
  problem?: string;
  specKey?: string;
}

/**
 * The objects of one kind the local target acts on. Like an apiserver that rejects a bad apply,
 * an object that turns invalid (or duplicated) keeps its last valid version applied, and so does
 * one whose file has YAML errors: a typo while editing never drops a server or a deny rule.
 */
export class LastAppliedSet<T> {
  private readonly items = new Map<string, AppliedObject<T>>();

  constructor(private readonly kind: ResourceKind) {}

  /** Takes the workspace's documents; returns the keys whose applied version changed (added, changed, removed). */
  update(documents: readonly WorkspaceDocument[], isUnreadable: (file: string) => boolean): string[] {
    const seen = new Set<string>();
    const changed: string[] = [];
    for (const doc of documents) {
      if (doc.identity?.kind !== this.kind || !doc.identity.name) continue;
      const key = identityKey(doc.identity);
      if (seen.has(key)) continue;
      seen.add(key);
      const previous = this.items.get(key);
      const source = { file: doc.file, document: doc.index };
      const error = doc.diagnostics.find((d) => d.severity === 'error');
      if (doc.stored && !error) {
        const specKey = canonicalJson(doc.stored);
        const same = previous?.value !== undefined && previous.specKey === specKey;
        const generation = same ? previous.generation : (previous?.generation ?? 0) + 1;
        this.items.set(key, { key, identity: doc.identity, value: doc.stored as T, written: doc.object, source, generation, specKey });
        if (!same) changed.push(key);
        continue;
      }
      const where = error ? `${doc.file}:${error.line}:${error.column}: ${error.path ? `${error.path}: ` : ''}${error.message}` : `${doc.file}: invalid`;
      const kept = previous?.value !== undefined ? ' (the last valid version stays applied)' : '';
      this.items.set(key, { ...(previous ?? { key, identity: doc.identity, generation: 0 }), source, problem: `${where}${kept}` });
    }
    for (const [key, item] of this.items) {
      if (seen.has(key)) continue;
      if (item.value !== undefined && isUnreadable(item.source.file)) {
        item.problem = `${item.source.file} cannot be parsed; the last valid version stays applied until it is fixed`;
        continue;
      }
      this.items.delete(key);
      if (item.value !== undefined) changed.push(key);
    }
    return changed;
  }

  get(key: string): AppliedObject<T> | undefined {
    return this.items.get(key);
  }

  list(): AppliedObject<T>[] {
    return [...this.items.values()];
  }

  /** Only what is applied, in workspace order. */
  applied(): Array<AppliedObject<T> & { value: T }> {
    return this.list().filter((item): item is AppliedObject<T> & { value: T } => item.value !== undefined);
  }
}
