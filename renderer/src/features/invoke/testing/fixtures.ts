import type { InvocationOutcome, ToolResult } from '../../../../../shared/registry';
import type { ToolView } from '../types';

export function toolView(overrides: Partial<ToolView> = {}): ToolView {
  return {
    name: 'mcp:demo.make_thing',
    source: { kind: 'mcp', name: 'demo' },
    toolName: 'make_thing',
    inputSchema: { type: 'object', properties: {} },
    runtime: { timeoutMs: 30_000, isolationMode: 'none', retry: { maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0, jitter: 'none' } },
    policy: { riskLevel: 'low', operationClasses: ['read'] },
    verdict: { verdict: 'allow', reasons: ['no permission rule covers read; allowed by default'] },
    ...overrides,
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
    verdict: { verdict: 'allow', reasons: [] },
    ...overrides,
  };
}
