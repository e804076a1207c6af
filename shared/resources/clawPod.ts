import { z } from 'zod';
import type { JsonSchema } from './jsonSchema';

/**
 * Files named `claw-pod.{yml,yaml}` or `<pod>.claw-pod.{yml,yaml}` are Clawdapus pod files
 * (Clawdapus): compose services, of which those with an `x-claw` block are agents.
 */
export const CLAW_POD_FILE = /^(?:(.+)\.)?claw-pod\.ya?ml$/;

/** `...` in an agent's tools list splices in the pod's `tools-defaults` (Clawdapus). */
export const INHERIT_DEFAULTS = '...';

/**
 * One grant of Clawdapus's `tools:` lists: a service and `allow: all` or tool names. `service` names
 * a source of the registry by its name (an HTTP service, an MCP server or an A2A agent);
 * `source` (`mcp:github`) is the explicit spelling for when two kinds of source share a name.
 */
export const ToolGrant = z.object({
  service: z.string().optional(),
  source: z.string().optional(),
  allow: z.union([z.literal('all'), z.array(z.string())]),
  /** Tooldeck's extension: the MCP server's resources (list, templates, read, subscribe), relayed by the gateway. */
  resources: z.boolean().optional(),
  /** Tooldeck's extension: the MCP server's prompts (list, get) and completion. */
  prompts: z.boolean().optional(),
});
export type ToolGrant = z.infer<typeof ToolGrant>;
export type ToolGrantItem = ToolGrant | typeof INHERIT_DEFAULTS;

/**
 * Clawdapus's mediation budget with its field names and defaults. Clawdapus says the limits are
 * "configurable in pod YAML" without naming the key; Tooldeck reads them from `x-claw.tools-policy`
 * at pod level and per agent (the agent's values win).
 */
export const ToolsPolicy = z.object({
  max_rounds: z.number().int().positive(),
  timeout_per_tool_ms: z.number().int().positive(),
  total_timeout_ms: z.number().int().positive(),
  max_tool_result_bytes: z.number().int().positive(),
  /** A repeated call (same tool, same canonical arguments) in one mediated turn: replay the earlier result (cllama's default) or reject it with `duplicate_tool_call`. */
  duplicate_tool_calls: z.enum(['replay', 'reject']).optional(),
});
export type ToolsPolicy = z.infer<typeof ToolsPolicy>;

export const DEFAULT_TOOLS_POLICY: ToolsPolicy = {
  max_rounds: 8,
  timeout_per_tool_ms: 30_000,
  total_timeout_ms: 120_000,
  max_tool_result_bytes: 16_384,
};

/** An agent of a pod file as stored: what it declared, before grants are resolved against the registry. */
export const ClawAgent = z.object({
  name: z.string(),
  /** `cllama: passthrough` (or another proxy type): without one, an agent may not declare tools. */
  cllama: z.string().optional(),
  /** Undefined: the agent inherits the pod's defaults; a list replaces them unless it holds `...`. */
  tools: z.array(z.union([z.literal(INHERIT_DEFAULTS), ToolGrant])).optional(),
  policy: ToolsPolicy.partial().optional(),
});
export type ClawAgent = z.infer<typeof ClawAgent>;

export const ClawPod = z.object({
  pod: z.string(),
  defaults: z.array(ToolGrant),
  policy: ToolsPolicy.partial().optional(),
  agents: z.array(ClawAgent),
});
export type ClawPod = z.infer<typeof ClawPod>;

const grantSchema: JsonSchema = {
  type: 'object',
  description: 'Tools of one service the agent may call; deny by default.',
  required: ['allow'],
  properties: {
    service: { type: 'string', description: 'A service of the registry by name: an HTTP service, an MCP server or an A2A agent.' },
    source: { type: 'string', pattern: '^(mcp|http|a2a):.+', description: 'The registry source, e.g. mcp:github; use it when two kinds of source share a name.' },
    allow: {
      description: '"all", or the names of the tools the agent may call.',
      oneOf: [{ const: 'all' }, { type: 'array', items: { type: 'string', minLength: 1 } }],
    },
    resources: { type: 'boolean', description: "Tooldeck: the MCP server's resources, relayed by the gateway (read, list, subscribe); deny by default." },
    prompts: { type: 'boolean', description: "Tooldeck: the MCP server's prompts and completion, relayed by the gateway; deny by default." },
  },
  additionalProperties: false,
};

const policySchema: JsonSchema = {
  type: 'object',
  description: 'Mediation budget compiled into tools.json (Clawdapus defaults: 8 rounds, 30 s per tool, 120 s in all, 16,384 result bytes).',
  properties: {
    max_rounds: { type: 'integer', minimum: 1, default: 8 },
    timeout_per_tool_ms: { type: 'integer', minimum: 1, default: 30_000 },
    total_timeout_ms: { type: 'integer', minimum: 1, default: 120_000 },
    max_tool_result_bytes: { type: 'integer', minimum: 1, default: 16_384 },
    duplicate_tool_calls: { enum: ['replay', 'reject'], default: 'replay', description: 'A repeated call in one mediated turn: replay the earlier result, or reject it (duplicate_tool_call).' },
  },
  additionalProperties: false,
};

/** A pod file: compose keys pass through untouched; the `x-claw` parts are what Tooldeck reads. */
export const clawPodSchema: JsonSchema = {
  type: 'object',
  description: 'A Clawdapus pod (claw-pod.yml): services, and per agent the tools it may call.',
  additionalProperties: true,
  properties: {
    'x-claw': {
      type: 'object',
      additionalProperties: true,
      properties: {
        pod: { type: 'string', description: 'The pod name.' },
        'tools-defaults': { type: 'array', description: 'Grants every agent inherits unless it declares its own tools (then `...` splices these in).', items: grantSchema },
        'tools-policy': policySchema,
      },
    },
    services: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: true,
        properties: {
          'x-claw': {
            type: 'object',
            additionalProperties: true,
            properties: {
              agent: { type: 'string', description: 'The behavioural contract (AGENTS.md).' },
              cllama: { type: 'string', description: 'The proxy that mediates tool calls, e.g. passthrough. Tools require one.' },
              tools: {
                type: 'array',
                description: 'The tools this agent may call; `...` inherits the pod defaults.',
                items: { oneOf: [{ const: '...' }, grantSchema] },
              },
              'tools-policy': policySchema,
            },
          },
        },
      },
    },
  },
};

/** The pod name a file implies when it does not say `x-claw.pod`: `<pod>.claw-pod.yml`, else `claw-pod`. */
export function podNameFromFile(baseName: string): string | undefined {
  const match = CLAW_POD_FILE.exec(baseName);
  return match ? (match[1] ?? 'claw-pod') : undefined;
}
