import { isAppError } from '../../shared/errors';
import { SourceKind, sourceId, type ToolSource } from '../../shared/invocation';
import { prepareSource, savedSourceIds, type SourceKinds } from '../registry/ToolSourceKind';
import type { DefinitionLock } from './DefinitionLock';

/** What the lock lists and prepares sources with: every source kind, and the lockfile's own list. */
export interface LockSources {
  readonly sourceKinds: SourceKinds;
  readonly lock: Pick<DefinitionLock, 'lockedSources'>;
}

/**
 * Every source the lock speaks about: those in the lockfile, and every saved or workspace source in
 * use (with `disabled`, also MCP servers switched off, which a command may still name).
 */
export async function trackedSourceIds(core: LockSources, options: { disabled?: boolean } = {}): Promise<string[]> {
  const ids = new Set([...core.lock.lockedSources(), ...(await savedSourceIds(core.sourceKinds, options))]);
  return [...ids].sort();
}

/**
 * `mcp:everything`, or a bare name when exactly one source has it (`everything`). Undefined with
 * the candidates when it names none or several.
 */
export async function resolveSource(core: LockSources, ref: string): Promise<{ source?: ToolSource; candidates: string[] }> {
  const ids = await trackedSourceIds(core, { disabled: true });
  const kind = SourceKind.safeParse(ref.slice(0, ref.indexOf(':')));
  if (kind.success && ref.indexOf(':') > 0) {
    const source = { kind: kind.data, name: ref.slice(ref.indexOf(':') + 1) };
    return ids.includes(sourceId(source)) ? { source, candidates: [] } : { candidates: ids };
  }
  const matches = ids.filter((id) => id.slice(id.indexOf(':') + 1) === ref);
  if (matches.length !== 1) return { candidates: matches.length ? matches : ids };
  const id = matches[0]!;
  return { source: { kind: SourceKind.parse(id.slice(0, id.indexOf(':'))), name: id.slice(id.indexOf(':') + 1) }, candidates: [] };
}

export interface ConnectOutcome {
  id: string;
  ok: boolean;
  /** Why its definitions could not be read (cannot connect, no card, not loaded). */
  error?: string;
  cannotConnect?: boolean;
  /** No such source is configured (the lockfile names one that was removed). */
  missing?: boolean;
}

/** Connects (or lists) each source so its current definitions are in the catalog; failures are reported, not thrown. */
export async function connectSources(core: LockSources, ids: readonly string[]): Promise<ConnectOutcome[]> {
  return Promise.all(
    ids.map(async (id): Promise<ConnectOutcome> => {
      const at = id.indexOf(':');
      const kind = SourceKind.safeParse(id.slice(0, at));
      if (!kind.success) return { id, ok: false, error: 'not a source id' };
      try {
        await prepareSource(core.sourceKinds, { kind: kind.data, name: id.slice(at + 1) });
        return { id, ok: true };
      } catch (error) {
        const message = (error as Error).message;
        return { id, ok: false, error: message, ...(isAppError(error) && error.code === 'ConnectionFailed' ? { cannotConnect: true } : {}), ...(isAppError(error) && error.code === 'NotFound' ? { missing: true } : {}) };
      }
    }),
  );
}
