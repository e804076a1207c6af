import { z } from 'zod';

/** The task states of A2A 1.0; 0.3's lowercase names (`input-required`, …) are normalized to these. */
export const A2aTaskState = z.enum(['SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'AUTH_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELED', 'REJECTED']);
export type A2aTaskState = z.infer<typeof A2aTaskState>;

/** States after which the agent does no more work on the task. */
export const A2A_TERMINAL_STATES: readonly A2aTaskState[] = ['COMPLETED', 'FAILED', 'CANCELED', 'REJECTED'];
/** States in which the agent waits for the caller; the task continues when the caller answers. */
export const A2A_INTERRUPTED_STATES: readonly A2aTaskState[] = ['INPUT_REQUIRED', 'AUTH_REQUIRED'];

export function isTerminalA2aState(state: A2aTaskState | undefined): boolean {
  return state !== undefined && A2A_TERMINAL_STATES.includes(state);
}

/** A stream ends on a terminal state and also on an interrupted one: the next turn is the caller's. */
export function isFinalA2aState(state: A2aTaskState | undefined): boolean {
  return state !== undefined && (A2A_TERMINAL_STATES.includes(state) || A2A_INTERRUPTED_STATES.includes(state));
}

export const A2aProtocolVersion = z.enum(['1.0', '0.3']);
export type A2aProtocolVersion = z.infer<typeof A2aProtocolVersion>;

export const A2aPart = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), mediaType: z.string().optional() }),
  z.object({ kind: z.literal('data'), data: z.unknown(), mediaType: z.string().optional() }),
  z.object({
    kind: z.literal('file'),
    url: z.string().optional(),
    /** Inline bytes, base64; capped by the service like every other payload. */
    bytesBase64: z.string().optional(),
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  }),
]);
export type A2aPart = z.infer<typeof A2aPart>;

export const A2aArtifact = z.object({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(A2aPart),
});
export type A2aArtifact = z.infer<typeof A2aArtifact>;

export const A2aRole = z.enum(['user', 'agent']);
export type A2aRole = z.infer<typeof A2aRole>;

export const A2aMessageView = z.object({
  messageId: z.string(),
  role: A2aRole,
  parts: z.array(A2aPart),
  /** The text parts joined, for display. */
  text: z.string(),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
});
export type A2aMessageView = z.infer<typeof A2aMessageView>;

export const A2aTaskView = z.object({
  id: z.string(),
  contextId: z.string(),
  state: A2aTaskState.optional(),
  /** Text of the status message (e.g. the question of an INPUT_REQUIRED task). */
  statusText: z.string().optional(),
  updatedAt: z.string().optional(),
  artifacts: z.array(A2aArtifact),
  history: z.array(A2aMessageView),
});
export type A2aTaskView = z.infer<typeof A2aTaskView>;

/**
 * One streamed update, normalized across 1.0 and 0.3 peers. A direct message reply has no task, so
 * `taskId` is absent then. `final` marks the last event of a turn (terminal or interrupted state).
 */
export const A2aEvent = z.object({
  kind: z.enum(['task', 'status', 'artifact', 'message']),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
  state: A2aTaskState.optional(),
  text: z.string().optional(),
  artifact: A2aArtifact.optional(),
  /** Artifact chunking as the agent sent it. */
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  final: z.boolean().optional(),
  /** Epoch milliseconds when the event arrived. */
  at: z.number(),
});
export type A2aEvent = z.infer<typeof A2aEvent>;

export const A2aSendResult = z.object({
  kind: z.enum(['task', 'message']),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
  state: A2aTaskState.optional(),
  /** The agent's reply for display: the message text, or the status text and text artifacts of the task. */
  text: z.string(),
  artifacts: z.array(A2aArtifact),
  task: A2aTaskView.optional(),
  message: A2aMessageView.optional(),
});
export type A2aSendResult = z.infer<typeof A2aSendResult>;

export const A2aOutgoingMessage = z.union([
  z.string(),
  z.object({
    parts: z.array(A2aPart).min(1),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type A2aOutgoingMessage = z.infer<typeof A2aOutgoingMessage>;

/** Names double as secret-key segments and tool namespaces, so they stay plain. */
export const A2aAgentName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, dot, dash and underscore; up to 64 characters');

export const A2aHeaderConfig = z.object({
  name: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name'),
  /** Only for non-secret headers; a secret header's value lives in the SecretStore. */
  value: z.string().optional(),
  secret: z.boolean(),
});
export type A2aHeaderConfig = z.infer<typeof A2aHeaderConfig>;

/**
 * Saved auth: never holds a secret value. `scheme` names the card's securitySchemes entry it satisfies;
 * fields left out are taken from that scheme (API key location and name, OAuth token URL).
 */
export const A2aAuthConfig = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('bearer'), scheme: z.string().optional() }),
  z.object({
    kind: z.literal('apiKey'),
    scheme: z.string().optional(),
    in: z.enum(['header', 'query']).optional(),
    name: z.string().optional(),
  }),
  z.object({
    kind: z.literal('oauth2ClientCredentials'),
    scheme: z.string().optional(),
    tokenUrl: z.string().optional(),
    clientId: z.string().min(1),
    scopes: z.array(z.string()).optional(),
  }),
]);
export type A2aAuthConfig = z.infer<typeof A2aAuthConfig>;

/**
 * Credentials go only to the origin of the agent URL; a card whose interface lives on another origin
 * is used with them only once the user saved that origin here (the confirmation).
 */
const InterfaceOrigin = z.string().url();

export const A2aAgentConfig = z.object({
  name: A2aAgentName,
  url: z.string().url(),
  interfaceOrigin: InterfaceOrigin.optional(),
  headers: z.array(A2aHeaderConfig),
  auth: A2aAuthConfig,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type A2aAgentConfig = z.infer<typeof A2aAgentConfig>;

/**
 * What the UI/CLI submits. Secret values ride along here once and go straight to the SecretStore;
 * leaving one out on an update keeps the stored value.
 */
export const A2aAgentInput = z.object({
  name: A2aAgentName,
  url: z.string().url(),
  interfaceOrigin: InterfaceOrigin.optional(),
  headers: z.array(z.object({ name: A2aHeaderConfig.shape.name, value: z.string().optional(), secret: z.boolean().default(false) })).default([]),
  auth: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('none') }),
      z.object({ kind: z.literal('bearer'), scheme: z.string().optional(), token: z.string().min(1).optional() }),
      z.object({
        kind: z.literal('apiKey'),
        scheme: z.string().optional(),
        in: z.enum(['header', 'query']).optional(),
        name: z.string().optional(),
        key: z.string().min(1).optional(),
      }),
      z.object({
        kind: z.literal('oauth2ClientCredentials'),
        scheme: z.string().optional(),
        tokenUrl: z.string().url().optional(),
        clientId: z.string().min(1),
        clientSecret: z.string().min(1).optional(),
        scopes: z.array(z.string()).optional(),
      }),
    ])
    .default({ kind: 'none' }),
});
export type A2aAgentInput = z.input<typeof A2aAgentInput>;

export const A2aCheckStatus = z.enum(['pass', 'warn', 'fail']);
export type A2aCheckStatus = z.infer<typeof A2aCheckStatus>;

export const A2aCheckRow = z.object({
  id: z.string(),
  status: A2aCheckStatus,
  title: z.string(),
  detail: z.string(),
});
export type A2aCheckRow = z.infer<typeof A2aCheckRow>;

export const A2aInterfaceView = z.object({
  url: z.string(),
  binding: z.string(),
  protocolVersion: z.string(),
});
export type A2aInterfaceView = z.infer<typeof A2aInterfaceView>;

export const A2aSkillView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()),
});
export type A2aSkillView = z.infer<typeof A2aSkillView>;

export const A2aSecuritySchemeView = z.object({
  name: z.string(),
  type: z.enum(['http', 'apiKey', 'oauth2', 'openIdConnect', 'mutualTLS', 'unknown']),
  /** e.g. `bearer`, `header X-API-Key`, `clientCredentials https://…/token`. */
  detail: z.string(),
  /** http: the auth scheme, lowercased (`bearer`, `basic`). */
  httpScheme: z.string().optional(),
  /** apiKey: where the key goes and under which name. */
  location: z.enum(['header', 'query', 'cookie']).optional(),
  paramName: z.string().optional(),
  /** oauth2: declared flows; the client-credentials token URL and scopes when that flow is declared. */
  flows: z.array(z.string()).optional(),
  tokenUrl: z.string().optional(),
  scopes: z.array(z.string()).optional(),
});
export type A2aSecuritySchemeView = z.infer<typeof A2aSecuritySchemeView>;

/** The card as the UI shows it, the same for 1.0 and 0.3 cards. */
export const A2aCardView = z.object({
  name: z.string(),
  description: z.string(),
  version: z.string(),
  protocolVersion: A2aProtocolVersion,
  interfaces: z.array(A2aInterfaceView),
  capabilities: z.object({ streaming: z.boolean(), pushNotifications: z.boolean(), extendedAgentCard: z.boolean() }),
  skills: z.array(A2aSkillView),
  securitySchemes: z.array(A2aSecuritySchemeView),
  /** Each requirement is a set of scheme names that must all be satisfied. */
  securityRequirements: z.array(z.array(z.string())),
  signed: z.boolean(),
});
export type A2aCardView = z.infer<typeof A2aCardView>;

export const A2aCardReport = z.object({
  cardUrl: z.string(),
  protocolVersion: A2aProtocolVersion,
  card: A2aCardView,
  rows: z.array(A2aCheckRow),
  /** The card exactly as served. */
  raw: z.unknown(),
});
export type A2aCardReport = z.infer<typeof A2aCardReport>;

export const A2aTranscriptEntry = z.object({
  seq: z.number().int(),
  agent: z.string(),
  /** Epoch milliseconds. */
  at: z.number(),
  direction: z.enum(['request', 'response', 'event', 'error']),
  /** The JSON-RPC method when there is one, else the HTTP method and path. */
  method: z.string(),
  url: z.string(),
  status: z.number().int().optional(),
  /** For responses, events and errors: milliseconds since the request went out. */
  latencyMs: z.number().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Secrets masked, capped in size. */
  body: z.string().optional(),
  truncated: z.boolean().optional(),
  /** The request this entry answers. */
  requestSeq: z.number().int().optional(),
});
export type A2aTranscriptEntry = z.infer<typeof A2aTranscriptEntry>;

export const A2aTimelineEntry = z.object({ state: A2aTaskState, at: z.number(), text: z.string().optional() });
export type A2aTimelineEntry = z.infer<typeof A2aTimelineEntry>;

export const A2aThread = z.object({
  agent: z.string(),
  contextId: z.string(),
  messages: z.array(
    z.object({ role: A2aRole, text: z.string(), at: z.number(), taskId: z.string().optional(), messageId: z.string() }),
  ),
  tasks: z.array(
    z.object({
      taskId: z.string(),
      state: A2aTaskState.optional(),
      timeline: z.array(A2aTimelineEntry),
      artifacts: z.array(A2aArtifact),
    }),
  ),
  updatedAt: z.number(),
});
export type A2aThread = z.infer<typeof A2aThread>;
