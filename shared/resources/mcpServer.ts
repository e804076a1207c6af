import { z } from 'zod';
import { durationSchema, stringListSchema, type JsonSchema } from './jsonSchema';
import { orlojObjectSchema } from './meta';
import { toolRuntimeSchema } from './orlojTool';

export const McpTransportKind = z.enum(['stdio', 'http']);
export type McpTransportKind = z.infer<typeof McpTransportKind>;

export const McpServerAuthProfile = z.enum(['bearer', 'api_key_header']);

/** Orloj McpServer defaults: `reconnect` 3 attempts, 2s apart; `idle_timeout` 0 (never evict). */
export const MCP_RECONNECT_DEFAULTS = { max_attempts: 3, backoff: '2s' } as const;
export const MCP_IDLE_TIMEOUT_DEFAULT = '0';

export const McpServerEnvVar = z.object({
  name: z.string(),
  value: z.string().optional(),
  secretRef: z.string().optional(),
  mountPath: z.string().optional(),
});
export type McpServerEnvVar = z.infer<typeof McpServerEnvVar>;

/** `default_tool_runtime` as written: only the fields given; each generated Tool fills the rest. */
export const PartialToolRuntime = z.object({
  timeout: z.string().optional(),
  isolation_mode: z.string().optional(),
  retry: z
    .object({ max_attempts: z.number().optional(), backoff: z.string().optional(), max_backoff: z.string().optional(), jitter: z.string().optional() })
    .optional(),
});
export type PartialToolRuntime = z.infer<typeof PartialToolRuntime>;

/** An Orloj `McpServer` spec as stored, defaults applied. */
export const McpServerSpec = z.object({
  transport: McpTransportKind,
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.array(McpServerEnvVar).optional(),
  image: z.string().optional(),
  image_pull_secret: z.string().optional(),
  idle_timeout: z.string(),
  endpoint: z.string().optional(),
  auth: z.object({ secretRef: z.string().optional(), profile: McpServerAuthProfile }).optional(),
  tool_filter: z.object({ include: z.array(z.string()) }).optional(),
  reconnect: z.object({ max_attempts: z.number().int().min(1), backoff: z.string() }),
  default_tool_runtime: PartialToolRuntime.optional(),
});
export type McpServerSpec = z.infer<typeof McpServerSpec>;

export const McpServerPhase = z.enum(['Pending', 'Connecting', 'Ready', 'Error']);
export type McpServerPhase = z.infer<typeof McpServerPhase>;

/** Orloj's McpServer status fields, kept in memory by the local target (never written into the user's files). */
export const McpServerStatus = z.object({
  phase: McpServerPhase,
  /** Every tool name the server's tools/list returned, filter or not. */
  discoveredTools: z.array(z.string()),
  /** Names of the Tool resources generated for it: `<server>--<tool>`, after `tool_filter.include`. */
  generatedTools: z.array(z.string()),
  /** RFC 3339 time of the last successful tool sync. */
  lastSyncedAt: z.string().optional(),
  lastError: z.string().optional(),
  observedGeneration: z.number().int(),
  /** Failed connection attempts in the current round of the reconnect policy. */
  attempts: z.number().int(),
  /** RFC 3339 time of the next connection attempt, while one is scheduled. */
  nextAttemptAt: z.string().optional(),
  /** Not started: this exact command line is not confirmed for the workspace folder (the console offers to confirm it). */
  unconfirmedLaunch: z.string().optional(),
});
export type McpServerStatus = z.infer<typeof McpServerStatus>;

const envVarSchema: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    value: { type: 'string', description: 'Literal value.' },
    secretRef: { type: 'string', description: 'Resolve the value from a secret. Mutually exclusive with value.' },
    mountPath: { type: 'string', description: 'Write the value to this absolute path in the container (needs image).' },
  },
  not: { required: ['value', 'secretRef'] },
};

export const mcpServerSpecSchema: JsonSchema = {
  type: 'object',
  required: ['transport'],
  properties: {
    transport: { type: 'string', enum: McpTransportKind.options, description: 'stdio spawns a process; http connects to a running server.' },
    command: { type: 'string', description: 'stdio: the command to spawn. Required unless image is set.' },
    args: stringListSchema('stdio: command arguments.'),
    env: { type: 'array', description: 'stdio: environment variables of the process.', items: envVarSchema },
    image: { type: 'string', description: 'stdio: run the server in this container image.' },
    image_pull_secret: { type: 'string', description: 'Registry credentials for image.' },
    idle_timeout: durationSchema('Shut an idle session down after this long. Defaults to 0 (never).', MCP_IDLE_TIMEOUT_DEFAULT),
    endpoint: { type: 'string', description: 'http: the MCP server URL.', format: 'uri' },
    auth: {
      type: 'object',
      description: 'http: authentication.',
      properties: {
        secretRef: { type: 'string' },
        profile: { type: 'string', enum: McpServerAuthProfile.options, default: 'bearer' },
      },
    },
    tool_filter: {
      type: 'object',
      properties: { include: stringListSchema('Only these tools are generated; all when empty.') },
    },
    reconnect: {
      type: 'object',
      properties: {
        max_attempts: { type: 'integer', minimum: 0, default: MCP_RECONNECT_DEFAULTS.max_attempts, description: 'Defaults to 3.' },
        backoff: durationSchema('Delay between attempts. Defaults to 2s.', MCP_RECONNECT_DEFAULTS.backoff),
      },
    },
    default_tool_runtime: { ...toolRuntimeSchema, description: 'Runtime policy every generated Tool inherits.' },
  },
  allOf: [
    { if: { properties: { transport: { const: 'stdio' } }, required: ['transport'], not: { required: ['image'] } }, then: { required: ['command'] } },
    { if: { properties: { transport: { const: 'http' } }, required: ['transport'] }, then: { required: ['endpoint'] } },
  ],
};

export const mcpServerSchema: JsonSchema = orlojObjectSchema(
  'McpServer',
  'An Orloj McpServer: a connection to an MCP server whose tools become generated Tool resources named <server>--<tool>.',
  mcpServerSpecSchema,
);
