import type { ToolHold } from '../../../shared/lock';
import { withHold } from '../../../shared/policy';
import type { EffectiveRuntime, PolicyVerdict, ToolEntry, ToolView } from '../../../shared/registry';
import { DEFAULT_MAX_TOOL_RESULT_BYTES } from '../resultCap';
import { callerAgent, type Caller } from '../../../shared/caller';
import { verdictFor, type ToolPermission } from './ToolPermission';

/** The hard cap on one call, retries and backoff included, however much progress arrives. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 10 * 60_000;

/** One empty list, so the verdict cache (keyed by the list) holds when no permissions are configured. */
const NO_PERMISSIONS: readonly ToolPermission[] = [];

export interface EffectivePolicyOptions {
  /** Read on every question, so permission edits apply at once. */
  permissions?: () => readonly ToolPermission[];
  maxToolResultBytes?: number;
  maxTotalTimeoutMs?: number;
  /** The lockfile's hold on an entry whose definition is not approved (main/lock/DefinitionLock). */
  holds?: (entry: ToolEntry) => ToolHold | undefined;
}

/**
 * What the pipeline will do with a call to an entry — its verdict (annotations, Tool resources,
 * every matching ToolPermission) and its runtime (timeouts, retry, result cap) — asked of one
 * object by the pipeline, the tools router, the CLI and agent compilation alike, so what a view
 * shows is what runs.
 */
export class EffectivePolicy {
  private readonly permissions: () => readonly ToolPermission[];
  private readonly holds: (entry: ToolEntry) => ToolHold | undefined;
  readonly maxToolResultBytes: number;
  readonly maxTotalTimeoutMs: number;
  /**
   * The last verdict of each entry, kept while the permission list (replaced, never edited in
   * place, when resources change) and the entry's hold are the same objects: a verdict is asked on
   * every call and every view, and rebuilding its reasons each time was a good part of a call's cost.
   */
  private readonly verdicts = new WeakMap<ToolEntry, { permissions: readonly ToolPermission[]; hold: ToolHold | undefined; verdict: PolicyVerdict }>();

  constructor(options: EffectivePolicyOptions = {}) {
    this.permissions = options.permissions ?? (() => NO_PERMISSIONS);
    this.holds = options.holds ?? (() => undefined);
    this.maxToolResultBytes = options.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES;
    this.maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS;
  }

  /**
   * The verdict on a call to `entry` by `caller`; without one, the operator's (what views show).
   * Permissions scoped to agents apply only to those agents' calls, so an agent's verdict may differ.
   */
  verdict(entry: ToolEntry, caller?: Caller): PolicyVerdict {
    const permissions = this.permissions();
    const hold = this.holds(entry);
    // The cache holds the operator's verdict, which is every caller's unless a permission is scoped to agents.
    if (caller && callerAgent(caller) !== undefined && permissions.some((p) => p.targetAgents !== undefined)) {
      return withHold(verdictFor(entry, permissions, caller), hold);
    }
    const known = this.verdicts.get(entry);
    if (known && known.permissions === permissions && known.hold === hold) return known.verdict;
    const verdict = withHold(verdictFor(entry, permissions), hold);
    this.verdicts.set(entry, { permissions, hold, verdict });
    return verdict;
  }

  /** The entry's runtime (a Tool resource's, else Orloj's defaults for its risk) with the console's caps. */
  runtime(entry: Pick<ToolEntry, 'runtime'>): EffectiveRuntime {
    return {
      timeoutMs: entry.runtime.timeoutMs,
      maxTotalTimeoutMs: this.maxTotalTimeoutMs,
      resetTimeoutOnProgress: true,
      retry: entry.runtime.retry,
      maxResultBytes: this.maxToolResultBytes,
    };
  }

  view(entry: ToolEntry): ToolView {
    return { ...entry, verdict: this.verdict(entry), effectiveRuntime: this.runtime(entry) };
  }
}
