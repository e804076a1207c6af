import { z } from 'zod';
import { SECRET_PLACEHOLDER, shellQuote } from './secrets';

/** Names are used in namespaced tool names (`<server>.<tool>`) and file names: keep them tame. */
export const ServerName = z
  .string()
  .min(1, 'Name is required')
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'Use letters, digits, "-" and "_" (starting with a letter or digit)');

const KeyValues = z.record(z.string(), z.string());

export const McpTimeouts = z.object({
  /** Per request, reset on progress when `resetOnProgress` is on. */
  requestMs: z.number().int().positive().default(60_000),
  resetOnProgress: z.boolean().default(true),
  maxTotalMs: z.number().int().positive().default(600_000),
});
export type McpTimeouts = z.infer<typeof McpTimeouts>;

const common = {
  name: ServerName,
  enabled: z.boolean().default(true),
  description: z.string().optional(),
};

export const StdioServerConfig = z.object({
  ...common,
  transport: z.literal('stdio'),
  command: z.string().min(1, 'Command is required'),
  args: z.array(z.string()).default([]),
  env: KeyValues.default({}),
  /** Env vars whose values live in the secret store (API keys…); `env` holds no value for them. */
  secretEnv: z.array(z.string()).default([]),
  /**
   * Env vars whose values a registry supplied (installPlan.ts): they stay in `env`, readable in the
   * server's detail and `mcp list`, instead of being sealed like the values a user types.
   */
  plainEnv: z.array(z.string()).optional(),
  cwd: z.string().optional(),
});
export type StdioServerConfig = z.infer<typeof StdioServerConfig>;

export const HttpServerConfig = z.object({
  ...common,
  /** `http` is Streamable HTTP; `sse` is the legacy HTTP+SSE transport. */
  transport: z.enum(['http', 'sse']),
  /** As stored and shown: a password or credential query value stands as `***`, its value sealed. */
  url: z.url({ protocol: /^https?$/, message: 'Enter an http:// or https:// URL' }),
  /** Plain headers; credential headers (Authorization, Cookie, X-Api-Key…) are named in secretHeaders. */
  headers: KeyValues.default({}),
  /** Headers whose values live in the secret store; `headers` holds no value for them. */
  secretHeaders: z.array(z.string()).default([]),
  /** Headers whose values a registry supplied: kept in `headers`, readable, not sealed. */
  plainHeaders: z.array(z.string()).optional(),
  /** Parts of `url` whose values live in the secret store: `password`, `query:<name>`. */
  urlSecrets: z.array(z.string()).default([]),
  /** A bearer token is kept in the secret store; the config only says one exists. */
  hasBearerToken: z.boolean().default(false),
});

export const McpServerConfig = z.discriminatedUnion('transport', [StdioServerConfig, HttpServerConfig]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;
export type McpServerConfigInput = z.input<typeof McpServerConfig>;

/**
 * The exact launch of a stdio server as a shell line: working directory, environment (sealed
 * values as `***`) and argv. Browser mode shows it for confirmation before anything is spawned,
 * and the server compares the confirmed line with the one it would run.
 */
export function stdioLaunchLine(config: Pick<StdioServerConfig, 'command' | 'args' | 'env' | 'secretEnv' | 'cwd'>): string {
  const env = [
    ...Object.entries(config.env ?? {}).map(([name, value]) => `${name}=${shellQuote(value)}`),
    ...(config.secretEnv ?? []).filter((name) => !(name in (config.env ?? {}))).map((name) => `${name}=${SECRET_PLACEHOLDER}`),
  ];
  const line = [...env, ...[config.command, ...(config.args ?? [])].map(shellQuote)].join(' ');
  return config.cwd ? `cd ${shellQuote(config.cwd)} && ${line}` : line;
}

/** What the UI sends to add or edit a server: the config plus secrets that go to the secret store. */
export const SaveServerInput = z.object({
  config: McpServerConfig,
  /** undefined keeps the stored token, '' removes it. */
  bearerToken: z.string().optional(),
  /** Values for `config.secretEnv` keys; a key left out keeps its stored value. */
  secretEnvValues: z.record(z.string(), z.string()).optional(),
  /** When renaming, the old name. */
  previousName: ServerName.optional(),
  /**
   * Browser mode: the launch line (stdioLaunchLine of the config as it will be stored) the operator
   * saw and confirmed. A stdio server whose launch would change is refused without it.
   */
  confirmedLaunchLine: z.string().optional(),
});
export type SaveServerInput = z.infer<typeof SaveServerInput>;

/** The step of connecting that failed: the doctor names it instead of "connection failed". */
export const ConnectStep = z.enum(['spawn', 'transport', 'negotiation', 'auth', 'listing']);
export type ConnectStep = z.infer<typeof ConnectStep>;

export const ConnectionStatus = z.enum(['connecting', 'ready', 'error', 'closed']);
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

export const ConnectionState = z.object({
  status: ConnectionStatus,
  since: z.number(),
  step: ConnectStep.optional(),
  message: z.string().optional(),
  /** Reconnect attempt count since the last ready state. */
  attempt: z.number().int().default(0),
  nextRetryAt: z.number().optional(),
  /** Connected, and the tool list (with resources and prompts) is still being read. */
  listing: z.boolean().optional(),
});
export type ConnectionState = z.infer<typeof ConnectionState>;

export const ToolAnnotations = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .loose();
export type ToolAnnotations = z.infer<typeof ToolAnnotations>;

export const McpTool = z
  .object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    // The spec requires an object schema (arguments are always a JSON object): a tool whose
    // inputSchema is anything else cannot be called as described, so it is left out as unusable
    // (see main/mcp/acceptToolList.ts) instead of being offered with a form that cannot fit.
    // Only `type` is checked; the rest of the schema stays as loose as servers write it.
    inputSchema: z.object({ type: z.literal('object') }).loose(),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    annotations: ToolAnnotations.optional(),
    execution: z.object({ taskSupport: z.string().optional() }).loose().optional(),
  })
  .loose();
export type McpTool = z.infer<typeof McpTool>;

export const McpResource = z.object({ uri: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() }).loose();
export type McpResource = z.infer<typeof McpResource>;
export const McpResourceTemplate = z
  .object({ uriTemplate: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() })
  .loose();
export type McpResourceTemplate = z.infer<typeof McpResourceTemplate>;
export const McpPrompt = z
  .object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() })).optional(),
  })
  .loose();
export type McpPrompt = z.infer<typeof McpPrompt>;

export const ToolChange = z.object({ name: z.string(), fields: z.array(z.string()) });
export const ToolListDiff = z.object({
  at: z.number(),
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(ToolChange),
});
export type ToolListDiff = z.infer<typeof ToolListDiff>;

/**
 * Where a server is declared: saved (`mcp add`, the Servers view), an McpServer resource in a
 * workspace file, or provided by a running source of the process (`by`: e.g. a cluster's
 * LanguageTool for `gateway --agent-namespace`), held in memory only.
 */
export const ServerOrigin = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('saved') }),
  z.object({ kind: z.literal('workspace'), file: z.string() }),
  z.object({ kind: z.literal('provided'), by: z.string() }),
]);
export type ServerOrigin = z.infer<typeof ServerOrigin>;

export const ServerSnapshot = z.object({
  config: McpServerConfig,
  origin: ServerOrigin.optional(),
  /** Listed tools kept out of the registry, each with why (e.g. an McpServer's tool_filter.include) and the file that says so. */
  excludedTools: z.record(z.string(), z.object({ reason: z.string(), file: z.string().optional() })).optional(),
  state: ConnectionState,
  serverInfo: z.object({ name: z.string(), version: z.string(), title: z.string().optional() }).loose().optional(),
  protocolVersion: z.string().optional(),
  era: z.enum(['legacy', 'modern']).optional(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  instructions: z.string().optional(),
  tools: z.array(McpTool),
  resources: z.array(McpResource),
  resourceTemplates: z.array(McpResourceTemplate),
  prompts: z.array(McpPrompt),
  lastDiff: ToolListDiff.optional(),
  /** What the server got wrong that costs only part of it: tools listed twice, unusable tool definitions. */
  problems: z.array(z.string()).default([]),
  pid: z.number().optional(),
});
export type ServerSnapshot = z.infer<typeof ServerSnapshot>;

export const TranscriptEntry = z.object({
  seq: z.number().int(),
  at: z.number(),
  direction: z.enum(['out', 'in', 'local']),
  kind: z.enum(['request', 'response', 'error', 'notification', 'stderr', 'event']),
  method: z.string().optional(),
  id: z.union([z.string(), z.number()]).optional(),
  latencyMs: z.number().optional(),
  bytes: z.number().int(),
  /** The message, masked (secrets replaced) and truncated for display. */
  text: z.string(),
});
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;

/** A request a server sent to the client that the operator answers. */
export const PendingInteraction = z.discriminatedUnion('kind', [
  z.object({
    id: z.string(),
    server: z.string(),
    at: z.number(),
    kind: z.literal('elicitation'),
    mode: z.enum(['form', 'url']),
    message: z.string(),
    requestedSchema: z.record(z.string(), z.unknown()).optional(),
    url: z.string().optional(),
    /** URL mode (SEP-1036): the server's id for the flow, which its notifications/elicitation/complete names. */
    elicitationId: z.string().optional(),
    /** The task this request belongs to (a task waiting for input, or one Tooldeck runs for the server). */
    relatedTaskId: z.string().optional(),
  }),
  z.object({
    id: z.string(),
    server: z.string(),
    at: z.number(),
    kind: z.literal('sampling'),
    messages: z.array(z.unknown()),
    systemPrompt: z.string().optional(),
    maxTokens: z.number().optional(),
    /** Sampling with tools (SEP-1577): the tools the model may call, and how it must choose. */
    tools: z.array(z.object({ name: z.string(), description: z.string().optional(), inputSchema: z.record(z.string(), z.unknown()).optional() }).loose()).optional(),
    toolChoice: z.object({ mode: z.string().optional() }).loose().optional(),
    relatedTaskId: z.string().optional(),
  }),
]);
export type PendingInteraction = z.infer<typeof PendingInteraction>;

export const InteractionAnswer = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('elicitation'), action: z.enum(['accept', 'decline', 'cancel']), content: z.record(z.string(), z.unknown()).optional() }),
  z.object({
    kind: z.literal('sampling'),
    action: z.enum(['reply', 'reject']),
    text: z.string().default(''),
    model: z.string().default('operator'),
    /** Answer as a tool call instead of text (sampling with tools, SEP-1577). */
    toolUse: z.object({ name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) }).optional(),
  }),
]);
export type InteractionAnswer = z.infer<typeof InteractionAnswer>;

/**
 * The step an error carries when a tool call needs the operator to open pages first (MCP
 * URL-mode elicitation, error path -32042); its `details` are the URLs, and the call is retried after.
 */
export const URL_ELICITATION_STEP = 'url-elicitation';

export const Root = z.object({ uri: z.string().startsWith('file://', 'Roots are file:// URIs'), name: z.string().optional() });
export type Root = z.infer<typeof Root>;
