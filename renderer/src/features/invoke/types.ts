import type { ToolView } from '../../../../shared/registry';

export type { ToolView };

export interface InvokeTimeouts {
  timeoutMs: number;
  resetTimeoutOnProgress: boolean;
  maxTotalTimeoutMs: number;
}

/** The timeouts the pipeline applies to this tool unless the user overrides them (a Tool resource's, or the defaults). */
export function effectiveTimeouts(tool: Pick<ToolView, 'effectiveRuntime'>): InvokeTimeouts {
  const { timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs } = tool.effectiveRuntime;
  return { timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs };
}

/** Only what the user changed travels with the call: the effective runtime stays the one authority. */
export function timeoutOverrides(value: InvokeTimeouts, effective: InvokeTimeouts): Partial<InvokeTimeouts> {
  return {
    ...(value.timeoutMs !== effective.timeoutMs ? { timeoutMs: value.timeoutMs } : {}),
    ...(value.resetTimeoutOnProgress !== effective.resetTimeoutOnProgress ? { resetTimeoutOnProgress: value.resetTimeoutOnProgress } : {}),
    ...(value.maxTotalTimeoutMs !== effective.maxTotalTimeoutMs ? { maxTotalTimeoutMs: value.maxTotalTimeoutMs } : {}),
  };
}

/** The server marks the tool destructive: one of the rules the effective verdict counted. */
export function isMarkedDestructive(tool: Pick<ToolView, 'verdict'>): boolean {
  return tool.verdict.rules.some((rule) => rule.name === 'destructiveHint');
}
