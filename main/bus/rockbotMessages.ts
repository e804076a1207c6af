import { z } from 'zod';
import { AppError, type ErrorCode } from '../../shared/errors';
import type { ContentBlock, InvocationOutcome, ToolResult } from '../../shared/registry';

/**
 * RockBot's bus messages (RockBot.Tools, RockBot.Tools.Mcp): their CLR type names (the AMQP `type`
 * property) and their camelCase bodies, nulls written as RockBot's serializer writes them.
 */
export const ROCKBOT_TYPES = {
  toolInvokeRequest: 'RockBot.Tools.ToolInvokeRequest',
  toolInvokeResponse: 'RockBot.Tools.ToolInvokeResponse',
  toolError: 'RockBot.Tools.ToolError',
  serversIndexed: 'RockBot.Tools.Mcp.McpServersIndexed',
  metadataRefreshRequest: 'RockBot.Tools.Mcp.McpMetadataRefreshRequest',
  serviceDetailsRequest: 'RockBot.Tools.Mcp.McpGetServiceDetailsRequest',
  serviceDetailsResponse: 'RockBot.Tools.Mcp.McpGetServiceDetailsResponse',
  registerServerRequest: 'RockBot.Tools.Mcp.McpRegisterServerRequest',
  registerServerResponse: 'RockBot.Tools.Mcp.McpRegisterServerResponse',
  unregisterServerRequest: 'RockBot.Tools.Mcp.McpUnregisterServerRequest',
  unregisterServerResponse: 'RockBot.Tools.Mcp.McpUnregisterServerResponse',
} as const;

/** The topics (routing keys on the `rockbot` exchange) an MCP bridge serves and publishes on. */
export const ROCKBOT_TOPICS = {
  invoke: 'tool.invoke.mcp',
  refresh: 'tool.meta.mcp.refresh',
  manage: 'mcp.manage',
  /** Where a bridge announces its servers: `tool.meta.mcp.{agent}`. */
  serversIndexed: (agent: string) => `tool.meta.mcp.${agent}`,
} as const;

/** RockBot's MCP server header: routes a call to that server (else the first one that has the tool). */
export const MCP_SERVER_HEADER = 'rb-mcp-server';
/** The caller's timeout for one call, in milliseconds. */
export const TIMEOUT_HEADER = 'rb-timeout-ms';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_TIMEOUT_MS = 120_000;

export const ToolInvokeRequest = z.object({
  toolCallId: z.string(),
  toolName: z.string().min(1),
  /** The tool's arguments as a JSON string (an object), or null for none. */
  arguments: z.string().nullish(),
  sessionId: z.string().nullish(),
  batchId: z.string().nullish(),
});
export type ToolInvokeRequest = z.infer<typeof ToolInvokeRequest>;

export type ToolErrorCode = 'tool_not_found' | 'execution_failed' | 'timeout' | 'invalid_arguments';

export interface ToolError {
  toolCallId: string;
  toolName: string;
  code: ToolErrorCode;
  message: string;
  isRetryable: boolean;
}

export interface ToolContentBlock {
  type: 'text' | 'image' | 'audio' | 'resource';
  text: string | null;
  data: string | null;
  mimeType: string | null;
  uri: string | null;
}

export interface ToolInvokeResponse {
  toolCallId: string;
  toolName: string;
  /** The text blocks joined by newlines, as RockBot's bridge builds it. */
  content: string | null;
  isError: boolean;
  contentBlocks: ToolContentBlock[];
}

export interface McpServerSummary {
  serverName: string;
  displayName: string | null;
  summary: string | null;
  toolCount: number;
  toolNames: string[];
}

export interface McpServersIndexed {
  servers: McpServerSummary[];
  removedServers: string[];
}

export const McpMetadataRefreshRequest = z.object({ serverName: z.string().nullish() });
export const McpGetServiceDetailsRequest = z.object({ serverName: z.string().min(1) });
export const McpRegisterServerRequest = z.object({ serverName: z.string().min(1) }).loose();
export const McpUnregisterServerRequest = z.object({ serverName: z.string().min(1) });

export interface McpToolDefinition {
  name: string;
  description: string;
  /** The tool's input JSON Schema, as a JSON string. */
  parametersSchema: string | null;
}

/** The caller's timeout header, capped at MAX_TIMEOUT_MS; DEFAULT_TIMEOUT_MS when absent or not a positive number. */
export function requestTimeoutMs(header: string | undefined): number {
  const value = header === undefined ? NaN : Number(header.trim());
  if (!Number.isFinite(value) || value <= 0) return DEFAULT_TIMEOUT_MS;
  return Math.min(Math.floor(value), MAX_TIMEOUT_MS) || 1;
}

/** A tool's result as RockBot's ToolInvokeResponse: text blocks joined by `\n`, and every block kept. */
export function invokeResponse(request: Pick<ToolInvokeRequest, 'toolCallId' | 'toolName'>, result: NonNullable<InvocationOutcome['result']>): ToolInvokeResponse {
  const contentBlocks = result.content.map(contentBlock);
  const texts = contentBlocks.filter((block) => block.type === 'text').map((block) => block.text ?? '');
  return { toolCallId: request.toolCallId, toolName: request.toolName, content: texts.length > 0 ? texts.join('\n') : null, isError: result.isError === true, contentBlocks };
}

/** A call that ended without a result, as RockBot's ToolError (the only four codes RockBot knows). */
export function toolErrorOf(request: Pick<ToolInvokeRequest, 'toolCallId' | 'toolName'>, error: NonNullable<InvocationOutcome['error']>): ToolError {
  const code: ToolErrorCode = error.code === 'ToolNotFound' ? 'tool_not_found' : error.code === 'InvalidArguments' || error.code === 'InvalidInput' ? 'invalid_arguments' : error.code === 'Timeout' ? 'timeout' : 'execution_failed';
  return { toolCallId: request.toolCallId, toolName: request.toolName, code, message: error.message, isRetryable: code === 'timeout' || error.retryable };
}

function contentBlock(block: Record<string, unknown> & { type: string }): ToolContentBlock {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  if (block.type === 'text') return { type: 'text', text: text(block.text), data: null, mimeType: null, uri: null };
  if (block.type === 'image' || block.type === 'audio') return { type: block.type, text: null, data: text(block.data), mimeType: text(block.mimeType), uri: null };
  if (block.type === 'resource') {
    const resource = (block.resource ?? {}) as Record<string, unknown>;
    return { type: 'resource', text: text(resource.text), data: text(resource.blob), mimeType: text(resource.mimeType), uri: text(resource.uri) };
  }
  // resource_link and whatever else: a resource by its URI.
  return { type: 'resource', text: text(block.name), data: null, mimeType: text(block.mimeType), uri: text(block.uri) };
}

/**
 * Another bridge's ToolInvokeResponse as a tool result: its content blocks when it sent them (RockBot's
 * newer bridges), else its `content` text. Undefined when the body is not a ToolInvokeResponse.
 */
export function toolResultOf(value: unknown): ToolResult | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const body = value as { content?: unknown; isError?: unknown; contentBlocks?: unknown };
  const blocks = Array.isArray(body.contentBlocks) ? body.contentBlocks.flatMap((block) => mcpBlock(block)) : [];
  const content: ContentBlock[] = blocks.length > 0 ? blocks : typeof body.content === 'string' ? [{ type: 'text', text: body.content }] : [];
  return { content, ...(body.isError === true ? { isError: true } : {}) };
}

function mcpBlock(value: unknown): ContentBlock[] {
  if (!value || typeof value !== 'object') return [];
  const block = value as Partial<Record<keyof ToolContentBlock, unknown>>;
  const text = (field: unknown) => (typeof field === 'string' ? field : undefined);
  if (block.type === 'text') return [{ type: 'text', text: text(block.text) ?? '' }];
  if ((block.type === 'image' || block.type === 'audio') && text(block.data) !== undefined) return [{ type: block.type, data: text(block.data)!, mimeType: text(block.mimeType) ?? 'application/octet-stream' }];
  if (block.type === 'resource' && text(block.uri) !== undefined) {
    const uri = text(block.uri)!;
    const mimeType = text(block.mimeType);
    if (text(block.text) !== undefined) return [{ type: 'resource', resource: { uri, text: text(block.text)!, ...(mimeType ? { mimeType } : {}) } }];
    if (text(block.data) !== undefined) return [{ type: 'resource', resource: { uri, blob: text(block.data)!, ...(mimeType ? { mimeType } : {}) } }];
    return [{ type: 'resource_link', uri, name: uri, ...(mimeType ? { mimeType } : {}) }];
  }
  return [];
}

const TOOL_ERROR_CODES: Record<Exclude<ToolErrorCode, 'tool_not_found'>, ErrorCode> = { execution_failed: 'ExecutionFailed', timeout: 'Timeout', invalid_arguments: 'InvalidArguments' };

/**
 * Another bridge's ToolError as the AppError a call ends with (its code mapped back, its message
 * kept, its retryability honoured); `tool_not_found` is returned as such, since another bridge may
 * still answer; undefined when the body is not a ToolError.
 */
export function toolErrorAsAppError(value: unknown, source: string | undefined): AppError | 'tool_not_found' | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const body = value as { code?: unknown; message?: unknown; isRetryable?: unknown };
  if (body.code === 'tool_not_found') return 'tool_not_found';
  const code = typeof body.code === 'string' && Object.hasOwn(TOOL_ERROR_CODES, body.code) ? TOOL_ERROR_CODES[body.code as keyof typeof TOOL_ERROR_CODES] : 'ExecutionFailed';
  const message = typeof body.message === 'string' ? body.message.slice(0, 4000) : 'no message';
  return new AppError(code, `${source ?? 'The bridge'} answered ${typeof body.code === 'string' ? body.code.slice(0, 40) : 'an error'}: ${message}`, { retryable: body.isRetryable === true });
}
