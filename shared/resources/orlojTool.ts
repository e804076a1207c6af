import { z } from 'zod';
import { IsolationMode, Jitter, OperationClass, RiskLevel } from '../registry';
import { durationSchema, stringListSchema, type JsonSchema } from './jsonSchema';
import { orlojObjectSchema } from './meta';

/** Orloj: `spec.type` allowed values; unknown values are rejected, the default is http. */
export const OrlojToolType = z.enum(['http', 'external', 'grpc', 'webhook-callback', 'queue', 'mcp']);
export type OrlojToolType = z.infer<typeof OrlojToolType>;

/** Orloj: `spec.auth.profile` allowed values. */
export const ToolAuthProfile = z.enum(['bearer', 'api_key_header', 'basic', 'oauth2_client_credentials']);
export type ToolAuthProfile = z.infer<typeof ToolAuthProfile>;

export const ToolRuntimeSpec = z.object({
  timeout: z.string(),
  isolation_mode: IsolationMode,
  retry: z.object({ max_attempts: z.number().int().min(1), backoff: z.string(), max_backoff: z.string(), jitter: Jitter }),
});
export type ToolRuntimeSpec = z.infer<typeof ToolRuntimeSpec>;

export const ToolAuthSpec = z.object({
  profile: ToolAuthProfile.optional(),
  secretRef: z.string().optional(),
  headerName: z.string().optional(),
  tokenURL: z.string().optional(),
  scopes: z.array(z.string()).optional(),
});
export type ToolAuthSpec = z.infer<typeof ToolAuthSpec>;

/** An Orloj `Tool` spec as stored: every Orloj default applied. */
export const OrlojToolSpec = z.object({
  type: OrlojToolType,
  endpoint: z.string().optional(),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
  mcp_server_ref: z.string().optional(),
  mcp_tool_name: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
  operation_classes: z.array(OperationClass).min(1),
  risk_level: RiskLevel,
  runtime: ToolRuntimeSpec,
  auth: ToolAuthSpec.optional(),
});
export type OrlojToolSpec = z.infer<typeof OrlojToolSpec>;

const enumOf = (values: readonly string[], description: string, defaultValue?: string): JsonSchema => ({
  type: 'string',
  enum: values,
  description,
  ...(defaultValue !== undefined ? { default: defaultValue } : {}),
});

/** `spec.runtime`, shared with McpServer `default_tool_runtime`. */
export const toolRuntimeSchema: JsonSchema = {
  type: 'object',
  description: 'Execution policy: timeout, isolation and retries.',
  properties: {
    timeout: durationSchema('Longest a call may take. Defaults to 30s.', '30s'),
    isolation_mode: enumOf(IsolationMode.options, 'Defaults to sandboxed for high/critical risk, none otherwise.'),
    retry: {
      type: 'object',
      properties: {
        max_attempts: { type: 'integer', minimum: 0, default: 1, description: 'Attempts in total, the first included. Defaults to 1.' },
        backoff: durationSchema('Delay before the first retry, doubled per retry. Defaults to 0s.', '0s'),
        max_backoff: durationSchema('Cap on the retry delay. Defaults to 30s.', '30s'),
        jitter: enumOf(Jitter.options, 'Randomizes retry delays. Defaults to none.', 'none'),
      },
    },
  },
};

export const toolSpecSchema: JsonSchema = {
  type: 'object',
  properties: {
    type: enumOf(OrlojToolType.options, 'Tool type. Defaults to http; mcp tools are usually generated from an McpServer.', 'http'),
    endpoint: { type: 'string', description: 'Endpoint URL (host:port for grpc).' },
    description: { type: 'string', description: 'What the tool does; given to models.' },
    input_schema: { type: 'object', description: 'JSON Schema of the arguments.' },
    mcp_server_ref: { type: 'string', description: 'The McpServer that provides the tool. Required when type is mcp.' },
    mcp_tool_name: { type: 'string', description: "The tool's name in the server's tools/list. Required when type is mcp." },
    capabilities: stringListSchema('Declared operations; trimmed and deduplicated (case-insensitive).'),
    operation_classes: {
      type: 'array',
      description: 'Defaults to [read] for low/medium risk and [write] for high/critical.',
      items: { type: 'string', enum: OperationClass.options },
    },
    risk_level: enumOf(RiskLevel.options, 'Defaults to low.', 'low'),
    runtime: toolRuntimeSchema,
    auth: {
      type: 'object',
      properties: {
        profile: enumOf(ToolAuthProfile.options, 'Defaults to bearer when secretRef is set.'),
        secretRef: { type: 'string', description: 'Namespaced secret reference. Required when profile is set.' },
        headerName: { type: 'string', description: 'Required when profile is api_key_header.' },
        tokenURL: { type: 'string', description: 'OAuth2 token endpoint. Required when profile is oauth2_client_credentials.' },
        scopes: stringListSchema('OAuth2 scopes.'),
      },
      allOf: [
        { if: { properties: { profile: { const: 'api_key_header' } }, required: ['profile'] }, then: { required: ['headerName', 'secretRef'] } },
        { if: { properties: { profile: { const: 'oauth2_client_credentials' } }, required: ['profile'] }, then: { required: ['tokenURL', 'secretRef'] } },
        { if: { required: ['profile'] }, then: { required: ['secretRef'] } },
      ],
    },
  },
  allOf: [{ if: { properties: { type: { const: 'mcp' } }, required: ['type'] }, then: { required: ['mcp_server_ref', 'mcp_tool_name'] } }],
};

export const orlojToolSchema: JsonSchema = orlojObjectSchema('Tool', 'An Orloj Tool: a callable capability with risk, operation classes and a runtime policy.', toolSpecSchema);
