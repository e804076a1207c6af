import { status as Status } from '@grpc/grpc-js';
import { AppError } from '../../shared/errors';
import type { ToolEntry, ToolResult } from '../../shared/registry';
import type { ExecutionContext, ToolExecutor } from '../registry/types';
import { GrpcCallError } from './GrpcChannel';
import type { GrpcConnection } from './GrpcConnection';
import { ToolServerClient } from './ToolServerClient';

const INCOMPATIBLE = /incompatible version/i;

/**
 * Runs `grpc:<source>.<tool>` entries of a tools.v1 server: ExecuteTool with the version the entry
 * pins (its own unless pinned), the JSON arguments, the deadline the pipeline's effective timeout
 * gives and the source's metadata. A non-empty `error` is ExecutionFailed; "incompatible version",
 * in `error` or as FAILED_PRECONDITION, is reported as a version refusal naming both sides.
 */
export class ToolServerExecutor implements ToolExecutor {
  private readonly client: ToolServerClient;

  constructor(private readonly connection: GrpcConnection) {
    this.client = new ToolServerClient(connection.channel);
  }

  async execute(entry: ToolEntry, args: Record<string, unknown>, ctx: ExecutionContext): Promise<ToolResult> {
    const version = entry.grpc?.callVersion ?? entry.grpc?.version ?? '';
    let response;
    try {
      response = await this.client.executeTool(entry.toolName, version, args, await this.connection.options(ctx.timeoutMs, ctx.signal));
    } catch (error) {
      if (error instanceof GrpcCallError && error.code === Status.FAILED_PRECONDITION && INCOMPATIBLE.test(error.details)) throw versionRefused(entry, version, error.details);
      throw await this.connection.failure(error, entry.name, ctx.signal);
    }
    if (response.error) {
      if (INCOMPATIBLE.test(response.error)) throw versionRefused(entry, version, response.error);
      throw new AppError('ExecutionFailed', `${entry.name}: ${response.error}`, { step: 'tool' });
    }
    return toolResult(response.result);
  }
}

function versionRefused(entry: ToolEntry, version: string, said: string): AppError {
  const listed = entry.grpc?.version ? ` The server lists it at ${entry.grpc.version}${entry.grpc.compatibleVersions?.length ? `, accepting ${entry.grpc.compatibleVersions.join(', ')}` : ''}.` : '';
  return new AppError('ExecutionFailed', `${entry.name}: incompatible version — the server refuses version "${version}" (${said}).${listed} Pin a version it accepts.`, { step: 'version' });
}

/** `result` holds JSON: an object becomes structuredContent, anything else is shown as text. */
export function toolResult(bytes: Uint8Array): ToolResult {
  if (bytes.byteLength === 0) return { content: [] };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { content: [{ type: 'text', text }] };
  }
  const result: ToolResult = { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) result.structuredContent = value;
  return result;
}
