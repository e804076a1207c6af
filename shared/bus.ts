import { z } from 'zod';

/** The RockBot bus bridge's connection to RabbitMQ. */
export const BusConnectionState = z.enum(['stopped', 'connecting', 'connected', 'reconnecting']);
export type BusConnectionState = z.infer<typeof BusConnectionState>;

export const BusStatus = z.object({
  state: BusConnectionState,
  /** The broker URL, its password masked: the console never receives it unmasked. */
  url: z.string().optional(),
  /** The bridge's name on the bus (its queues are `rockbot.mcp-bridge.{agent}…`). */
  agent: z.string().optional(),
  /** The queue of ToolInvokeRequests it consumes. */
  queue: z.string().optional(),
  /** The last connection problem, while not connected. */
  error: z.string().optional(),
  /** Whether other bridges' tools are discovered and offered as `bus:<agent>.<tool>` entries. */
  discovery: z.boolean().optional(),
  /** Whether a request without the broker-validated `user_id` is taken as the agent its `rb-source` claims (`--trust-rb-source`). */
  trustRbSource: z.boolean().optional(),
});
export type BusStatus = z.infer<typeof BusStatus>;

/** How one bus request ended: a result, a RockBot ToolError code, answered again from the recent replies, or dead-lettered. */
export const BusOutcome = z.enum(['ok', 'tool_error', 'tool_not_found', 'execution_failed', 'timeout', 'invalid_arguments', 'replayed', 'dead_lettered']);
export type BusOutcome = z.infer<typeof BusOutcome>;

/** One request a RockBot agent sent over the bus and, once answered, its reply. */
export const BusExchangeView = z.object({
  id: z.number(),
  messageId: z.string(),
  /** The calling agent, when the bridge could establish it (the broker-validated `user_id`, or `rb-source` when trusted). */
  agent: z.string().optional(),
  tool: z.string().optional(),
  server: z.string().optional(),
  startedAt: z.number(),
  latencyMs: z.number().optional(),
  outcome: BusOutcome.optional(),
  /** The history record of the call, when it reached the pipeline. */
  recordId: z.string().optional(),
});
export type BusExchangeView = z.infer<typeof BusExchangeView>;

export const BusAgentTotals = z.object({ agent: z.string(), requests: z.number(), errors: z.number() });
export type BusAgentTotals = z.infer<typeof BusAgentTotals>;

/** Another RockBot MCP bridge on the bus, from its McpServersIndexed: its tools are `bus:<agent>.<tool>` entries. */
export const BusPeerView = z.object({
  agent: z.string(),
  /** Epoch milliseconds of its latest announcement. */
  lastSeenAt: z.number(),
  servers: z.array(z.object({ serverName: z.string(), displayName: z.string().optional(), summary: z.string().optional(), tools: z.array(z.string()) })),
});
export type BusPeerView = z.infer<typeof BusPeerView>;

/** What the console's Bus section shows. */
export interface BusOverview {
  status: BusStatus;
  /** The latest requests, oldest first. */
  recent: BusExchangeView[];
  perAgent: BusAgentTotals[];
  /** Other bridges on the bus and their tools (empty while discovery is off). */
  peers: BusPeerView[];
}

/** A request the bridge (or the broker) dead-lettered, as the console inspects it. */
export const BusDeadLetterView = z.object({
  /** The dead-letter queue it waits in (`rockbot.mcp-bridge.{agent}.dlq`, `….refresh.dlq`, `….manage.dlq`). */
  queue: z.string(),
  messageId: z.string(),
  type: z.string(),
  source: z.string().optional(),
  correlationId: z.string().optional(),
  replyTo: z.string().optional(),
  /** Why the broker dead-lettered it (`rejected`: the bridge refused it, `expired`, `maxlen`). */
  reason: z.string().optional(),
  /** Why this bridge refused it, when this process did (e.g. it has no reply_to); unknown after a restart. */
  bridgeReason: z.string().optional(),
  /** The body as text, cut at BUS_DEAD_LETTER_PREVIEW_CHARS. */
  bodyPreview: z.string(),
});
export type BusDeadLetterView = z.infer<typeof BusDeadLetterView>;

export const BUS_DEAD_LETTER_PREVIEW_CHARS = 2000;
/** At most this many dead letters per queue are read for the console. */
export const BUS_DEAD_LETTERS_SHOWN = 50;
