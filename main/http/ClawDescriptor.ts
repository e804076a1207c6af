import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { HttpMethod } from '../../shared/registry';

const trimmed = z.string().trim();

const ToolHttp = z.object({
  method: trimmed.toUpperCase().pipe(HttpMethod),
  path: trimmed.min(1, 'is required').startsWith('/', "must start with '/'"),
  body: trimmed.toLowerCase().pipe(z.literal('json')).optional(),
  body_key: trimmed.optional(),
});

const ToolDescriptor = z.object({
  name: trimmed.min(1, 'is required'),
  description: trimmed.min(1, 'is required'),
  inputSchema: z.looseObject({ type: z.literal('object', 'must be "object"') }),
  http: ToolHttp.optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A `claw.describe` service descriptor (Clawdapus). Version 2 adds MCP-shaped `tools[]`; each tool
 * carries `http` execution metadata unless the service speaks MCP (`mcp` set), and `auth` names the
 * environment variable that holds the service's bearer token.
 */
export const ClawDescriptor = z
  .looseObject({
    version: z.union([z.literal(1), z.literal(2)], 'must be 1 or 2'),
    description: trimmed.optional(),
    mcp: z.object({ transport: trimmed.optional(), path: trimmed.optional() }).optional(),
    tools: z.array(ToolDescriptor).optional(),
    auth: z.object({ type: trimmed.toLowerCase().pipe(z.enum(['bearer', 'header', 'none'])), env: trimmed.optional() }).optional(),
  })
  .superRefine((descriptor, ctx) => {
    const tools = descriptor.tools ?? [];
    if (descriptor.version === 1 && tools.length > 0) ctx.addIssue({ code: 'custom', path: ['tools'], message: 'needs descriptor version 2' });
    const seen = new Set<string>();
    tools.forEach((tool, index) => {
      if (seen.has(tool.name)) ctx.addIssue({ code: 'custom', path: ['tools', index, 'name'], message: `duplicates the tool name "${tool.name}"` });
      seen.add(tool.name);
      if (descriptor.mcp && tool.http) ctx.addIssue({ code: 'custom', path: ['tools', index, 'http'], message: 'must not be set when the descriptor sets mcp' });
      if (!descriptor.mcp && !tool.http) ctx.addIssue({ code: 'custom', path: ['tools', index, 'http'], message: 'is required' });
      if (tool.http?.body_key && !['POST', 'PUT', 'PATCH'].includes(tool.http.method)) {
        ctx.addIssue({ code: 'custom', path: ['tools', index, 'http', 'body_key'], message: 'needs POST, PUT or PATCH' });
      }
    });
  });
export type ClawDescriptor = z.infer<typeof ClawDescriptor>;
export type ClawToolDescriptor = z.infer<typeof ToolDescriptor>;

/** Validates a parsed descriptor; InvalidInput lists every problem by path, e.g. `tools[1].http.method`. */
export function parseClawDescriptor(value: unknown, location: string): ClawDescriptor {
  const parsed = ClawDescriptor.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${formatPath(issue.path) || '(descriptor)'}: ${issue.message}`);
  throw new AppError('InvalidInput', `Invalid claw.describe descriptor ${location}: ${problems.join('; ')}.`);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}
