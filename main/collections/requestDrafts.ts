import type { Assertion, SavedRequestInput } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import type { InvocationRecord } from '../../shared/invocation';
import { parseToolName } from '../registry/InvocationPipeline';

/**
 * A request draft from a call made in the invoke panel: registry name and arguments become target,
 * tool and arguments, expecting `status: ok`. The operator names it and adds checks before saving.
 */
export function requestFromCall(call: { name: string; arguments?: Record<string, unknown>; timeoutMs?: number }): SavedRequestInput {
  const { sourceKind, sourceName, tool } = parseToolName(call.name);
  if (sourceKind === 'http') throw new AppError('InvalidInput', `Only MCP tools, A2A skills and gRPC tools can be saved in a collection; ${call.name} is an ${sourceKind} tool`);
  return {
    name: tool,
    target: `${sourceKind}:${sourceName}`,
    tool,
    arguments: call.arguments ?? {},
    ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
    assertions: [{ status: 'ok' }],
  };
}

/**
 * A request draft from a recorded call: its arguments as history kept them, expecting the status
 * the call had — a regression check. Masked secret values stay masked here; saving turns them into
 * `{{secret:NAME}}` references (see moveLiteralSecrets).
 */
export function requestFromHistory(record: InvocationRecord): SavedRequestInput {
  let args: unknown;
  try {
    args = JSON.parse(record.argumentsJson);
  } catch {
    throw new AppError('InvalidInput', 'The recorded arguments are not JSON; this call cannot be saved');
  }
  if (!args || typeof args !== 'object' || Array.isArray(args) || '_truncated' in args) {
    throw new AppError('InvalidInput', 'The recorded arguments were cut to size, so the call cannot be saved exactly');
  }
  const draft = requestFromCall({ name: `${record.sourceKind}:${record.sourceName}.${record.tool}`, arguments: args as Record<string, unknown> });
  return { ...draft, assertions: [expectedStatus(record)] };
}

function expectedStatus(record: InvocationRecord): Assertion {
  if (record.isError) return { status: 'isError' };
  if (record.status === 'ok') return { status: 'ok' };
  return record.errorCode ? { status: 'error', code: record.errorCode } : { status: 'error' };
}
