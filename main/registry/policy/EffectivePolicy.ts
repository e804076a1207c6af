import type { ToolHold } from '../../../shared/lock';
import { withHold } from '../../../shared/policy';
import type { EffectiveRuntime, PolicyVerdict, ToolEntry, ToolView } from '../../../shared/registry';
import { DEFAULT_MAX_TOOL_RESULT_BYTES } from '../resultCap';
import { verdictFor, type ToolPermission } from './ToolPermission';

/** The hard cap on one call, retries and backoff included, however much progress arrives. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 10 * 60_000;

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

  constructor(options: EffectivePolicyOptions = {}) {
    this.permissions = options.permissions ?? (() => []);
    this.holds = options.holds ?? (() => undefined);
    this.maxToolResultBytes = options.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES;
    this.maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS;
  }

  verdict(entry: ToolEntry): PolicyVerdict {
    return withHold(verdictFor(entry, this.permissions()), this.holds(entry));
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
