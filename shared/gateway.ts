import { z } from 'zod';
import { InvocationStatus } from './invocation';

/**
 * An agent's name as its credential carries it (`Bearer NAME:SECRET`, split on the first colon as
 * Clawdapus's cllama does): no colon, no slash, no control characters, and short, since it becomes
 * a history column, a metric label and part of approval names.
 */
/** Names the console keeps for the operator's own turns (Playground, eval suites): never an agent's. */
export const RESERVED_AGENT_NAMES: readonly string[] = ['playground', 'eval', 'evals'];

export const GatewayAgentName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'an agent name is 1–64 letters, digits, dots, dashes or underscores, starting with a letter or digit')
  // The console files the operator's Playground and eval turns under these: an agent so named would read them.
  .refine((name) => !RESERVED_AGENT_NAMES.includes(name.toLowerCase()), 'playground, eval and evals are kept for the operator’s own turns');
export type GatewayAgentName = z.infer<typeof GatewayAgentName>;

/** An agent's open MCP session with the gateway (2025-11-25 era), or its latest stateless requests (2026-07-28). */
export const GatewaySessionView = z.object({
  id: z.string(),
  agent: z.string(),
  era: z.enum(['2025-11-25', '2026-07-28', 'stdio']),
  clientName: z.string().optional(),
  openedAt: z.number(),
  lastActiveAt: z.number(),
  calls: z.number(),
});
export type GatewaySessionView = z.infer<typeof GatewaySessionView>;

/** A call an agent made through the gateway, as it happens. */
export const GatewayCallView = z.object({
  id: z.string(),
  agent: z.string(),
  /** The door the call came through (`gateway`, `mediation`, `bus`). */
  via: z.string().optional(),
  sessionId: z.string().optional(),
  /** The registry name (`mcp:everything.echo`). */
  tool: z.string(),
  startedAt: z.number(),
  state: z.enum(['running', 'held', 'done']),
  /** The approval it waits on (or waited on). */
  approval: z.string().optional(),
  status: InvocationStatus.optional(),
  latencyMs: z.number().optional(),
  error: z.string().optional(),
  /** The history record, once the call is recorded. */
  recordId: z.string().optional(),
});
export type GatewayCallView = z.infer<typeof GatewayCallView>;

export const GatewayAgentView = z.object({
  name: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().optional(),
});
export type GatewayAgentView = z.infer<typeof GatewayAgentView>;

export const GatewayStatus = z.object({
  running: z.boolean(),
  url: z.string().optional(),
  host: z.string().optional(),
  port: z.number().optional(),
  /** Where Prometheus metrics are served (`--metrics-port`), when they are. */
  metricsUrl: z.string().optional(),
  error: z.string().optional(),
});
export type GatewayStatus = z.infer<typeof GatewayStatus>;

/** The gateway's port when none is given: near the console's own ports, easy to type. */
export const DEFAULT_GATEWAY_PORT = 7411;
/** Where a gateway in a cluster serves /metrics (the container port named `metrics`): next to its own. */
export const DEFAULT_GATEWAY_METRICS_PORT = 7412;

/** One tool an agent is granted: the name it calls it by and the registry entry behind it. */
export interface GatewayGrantedTool {
  /** As the agent sees it in `tools/list` (`everything.echo`). */
  name: string;
  /** The registry name (`mcp:everything.echo`). */
  entry: string;
}

/** An agent as the console's Gateway section lists it: its credential, what it may call now, its open sessions. */
export interface GatewayAgentOverview extends GatewayAgentView {
  granted: GatewayGrantedTool[];
  sessions: number;
}
