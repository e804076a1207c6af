import { verdictFor, type ToolPermission } from '../../../../../shared/policy';
import type { InvocationOutcome, ToolEntry, ToolResult } from '../../../../../shared/registry';
import type { ToolView } from '../types';

/**
 * A catalog entry as the tools router returns it, its verdict computed by the same function the
 * pipeline enforces (shared/policy.ts) from the permissions given: never a verdict the real backend
 * could not produce.
 */
export function toolView(overrides: Partial<ToolEntry> = {}, permissions: ToolPermission[] = []): ToolView {
  const entry: ToolEntry = {
    name: 'mcp:demo.make_thing',
    source: { kind: 'mcp', name: 'demo' },
    toolName: 'make_thing',
    inputSchema: { type: 'object', properties: {} },
    runtime: { timeoutMs: 30_000, isolationMode: 'none', retry: { maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0, jitter: 'none' } },
    policy: { riskLevel: 'low', operationClasses: ['read'] },
    ...overrides,
  };
  return {
    ...entry,
    verdict: verdictFor(entry, permissions),
    effectiveRuntime: { timeoutMs: entry.runtime.timeoutMs, maxTotalTimeoutMs: 600_000, resetTimeoutOnProgress: true, retry: entry.runtime.retry, maxResultBytes: 1_048_576 },
  };
}

export function outcomeOf(result: ToolResult | undefined, overrides: Partial<InvocationOutcome> = {}, record: Partial<InvocationOutcome['record']> = {}): InvocationOutcome {
  return {
    record: {
      id: 'inv-1',
      startedAt: 1_700_000_000_000,
      sourceKind: 'mcp',
      sourceName: 'demo',
      tool: 'make_thing',
      argumentsJson: '{}',
      status: 'ok',
      latencyMs: 42,
      requestBytes: 120,
      responseBytes: 2048,
      resultPreview: '',
      truncated: false,
      ...record,
    },
    ...(result ? { result } : {}),
    truncated: false,
    verdict: { verdict: 'allow', reasons: [], rules: [] },
    ...overrides,
  };
}
