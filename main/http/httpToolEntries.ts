import type { ToolSource } from '../../shared/invocation';
import type { HttpMethod, ToolAnnotations, ToolEntry } from '../../shared/registry';
import { createToolEntry, type ToolConfig } from '../registry/createToolEntry';
import type { ClawDescriptor } from './ClawDescriptor';

export interface HttpServiceOptions {
  /** The service name: entries are `http:<service>.<tool>`. */
  service: string;
  /** Where the service answers, e.g. `http://trading-api:4000`. */
  baseUrl: string;
  /** Operator settings per tool name (risk, operation classes, runtime). */
  config?: Record<string, ToolConfig>;
  tags?: string[];
}

/**
 * Entries for a descriptor's HTTP tools. Tools of a service that speaks MCP (descriptor `mcp` set)
 * are left to the MCP connection, which discovers them itself.
 */
export function httpToolEntries(descriptor: ClawDescriptor, options: HttpServiceOptions): ToolEntry[] {
  const source: ToolSource = { kind: 'http', name: options.service };
  const auth = descriptor.auth ? { type: descriptor.auth.type, ...(descriptor.auth.env ? { env: descriptor.auth.env } : {}) } : undefined;
  return (descriptor.tools ?? []).flatMap((tool) => {
    if (!tool.http) return [];
    return [
      createToolEntry({
        source,
        tool: { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations: mcpAnnotations(tool.annotations, tool.http.method) },
        config: options.config?.[tool.name],
        tags: options.tags,
        http: {
          baseUrl: options.baseUrl,
          method: tool.http.method,
          path: tool.http.path,
          ...(tool.http.body ? { body: tool.http.body } : {}),
          ...(tool.http.body_key ? { bodyKey: tool.http.body_key } : {}),
          ...(auth ? { auth } : {}),
        },
      }),
    ];
  });
}

/**
 * Descriptor annotations in Clawdapus words (`readOnly`) or MCP words (`readOnlyHint`), as MCP hints.
 * Clawdapus knows no "destructive": its `readOnly: false` means side-effecting. Read with MCP's
 * default (destructive unless said otherwise) every such tool would count as a delete, so unless
 * the descriptor says, only a DELETE endpoint is taken as destructive.
 */
export function mcpAnnotations(annotations: Record<string, unknown> | undefined, method: HttpMethod): ToolAnnotations | undefined {
  if (!annotations) return undefined;
  const flag = (short: string, hint: string) => {
    const value = annotations[hint] ?? annotations[short];
    return typeof value === 'boolean' ? value : undefined;
  };
  const mapped: ToolAnnotations = {};
  if (typeof annotations.title === 'string') mapped.title = annotations.title;
  const readOnly = flag('readOnly', 'readOnlyHint');
  const destructive = flag('destructive', 'destructiveHint');
  const idempotent = flag('idempotent', 'idempotentHint');
  const openWorld = flag('openWorld', 'openWorldHint');
  if (readOnly !== undefined) mapped.readOnlyHint = readOnly;
  if (destructive !== undefined) mapped.destructiveHint = destructive;
  else if (readOnly === false) mapped.destructiveHint = method === 'DELETE';
  if (idempotent !== undefined) mapped.idempotentHint = idempotent;
  if (openWorld !== undefined) mapped.openWorldHint = openWorld;
  return Object.keys(mapped).length > 0 ? mapped : undefined;
}
