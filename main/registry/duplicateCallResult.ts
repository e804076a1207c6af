import type { ToolResult } from '../../shared/registry';
import type { FirstCall } from './RunCallLedger';

/**
 * Clawdapus: "later duplicates are skipped and returned to the model as a structured
 * `duplicate_tool_call` tool result, with `tool_trace` metadata showing the original round and
 * duplicate count", and "duplicate managed tool calls are treated as structured tool errors". The
 * Clawdapus gives no JSON for it; this follows its words and the `{ok: false, error: {code, message}}`
 * shape its mediator uses for tool errors.
 */
export function duplicateCallResult(name: string, first: FirstCall): ToolResult {
  const structured = {
    ok: false,
    error: {
      code: 'duplicate_tool_call',
      message: `${name} already ran with these arguments in this run (call ${first.round}); it was not executed again. Use that result.`,
    },
    tool_trace: { original_round: first.round, duplicate_count: first.duplicates },
  };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true };
}
