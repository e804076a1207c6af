import type { PolicyVerdict, ToolEntry } from '../../../../shared/registry';

/** A catalog entry as `tools.list` / `tools.watch` return it: the entry and its policy verdict. */
export type ToolView = ToolEntry & { verdict: PolicyVerdict };

export interface InvokeTimeouts {
  timeoutMs: number;
  resetTimeoutOnProgress: boolean;
  maxTotalTimeoutMs: number;
}

export const DEFAULT_TIMEOUTS: InvokeTimeouts = { timeoutMs: 60_000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 600_000 };
