import type { InvocationOutcome, ToolResult } from '../../../shared/registry';
import { CliExit, ExitCode } from '../CliContext';
import { safeLines } from '../terminalText';

// How every command that calls a tool (mcp call, call, grpc call, mcp tasks) reads its --args and
// prints its result and exit code: one home, so the commands agree and none imports another.

export function renderResult(result: ToolResult): string {
  const lines: string[] = [];
  for (const block of result.content) {
    if (block.type === 'text') lines.push(block.text);
    else if (block.type === 'image' || block.type === 'audio') lines.push(`[${block.type} ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes]`);
    else if (block.type === 'resource_link') lines.push(`[resource link ${block.uri}${block.title ? ` — ${block.title}` : ''}]`);
    else if (block.type === 'resource') lines.push('text' in block.resource ? String(block.resource.text) : `[embedded resource ${block.resource.uri}]`);
  }
  if (result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent, null, 2));
  if (result.truncated) lines.push('(result truncated to the size cap)');
  return safeLines(lines.join('\n'));
}

export function parseArgs(text: string | undefined, flag = '--args'): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliExit(ExitCode.Usage, `${flag} is not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new CliExit(ExitCode.Usage, `${flag} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Exit codes of `mcp call`: 0 ok, 1 tool error or isError, 2 invalid arguments, 3 cannot connect. */
export function exitCodeFor(outcome: InvocationOutcome): number {
  if (outcome.error) {
    if (outcome.error.code === 'InvalidArguments') return ExitCode.Usage;
    if (outcome.error.code === 'ConnectionFailed') return ExitCode.CannotConnect;
    return ExitCode.Failed;
  }
  return outcome.result?.isError ? ExitCode.Failed : ExitCode.Ok;
}
