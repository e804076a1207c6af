import { z } from 'zod';
import { GatewaySessionView } from './gateway';
import { InvocationRecord } from './invocation';

export { RESERVED_AGENT_NAMES } from './gateway';

/** Orloj's words for a verdict, used in every view, card, CLI line and doc (`confirm` is Orloj's `approval_required`). */
export const OrlojVerdict = z.enum(['allow', 'approval_required', 'deny']);
export type OrlojVerdict = z.infer<typeof OrlojVerdict>;

/** Tooldeck's verdict in Orloj's words. */
export function orlojVerdict(verdict: 'allow' | 'confirm' | 'deny'): OrlojVerdict {
  return verdict === 'confirm' ? 'approval_required' : verdict;
}

/**
 * Where a grant comes from: a Clawdapus pod file (an agent's `x-claw.tools`), an Orloj
 * ToolPermission (`apply_mode: scoped` with the agent in `target_agents`) or a Language Operator
 * LanguageAgent (`spec.tools`). `file` is the workspace file, or `cluster:<namespace>/<name>` for
 * a cluster's object; `rule` quotes the part of it that grants.
 */
export const GrantOrigin = z.object({
  kind: z.enum(['ClawPod', 'ToolPermission', 'LanguageAgent']),
  file: z.string().optional(),
  rule: z.string(),
});
export type GrantOrigin = z.infer<typeof GrantOrigin>;

/** One tool an agent is granted, why, and what policy says of it for that agent. */
export const AgentToolView = z.object({
  /** The registry name, `<kind>:<source>.<tool>`. */
  name: z.string(),
  grantedBy: z.array(GrantOrigin),
  /** The verdict policy gives this tool for this agent's calls. */
  verdict: OrlojVerdict,
  /** Why the agent is not offered it although granted: the lock holds its definition, or policy denies it. */
  withheld: z.string().optional(),
});
export type AgentToolView = z.infer<typeof AgentToolView>;

/** The ways an agent is known to come in: its gateway credential, a cluster's LanguageAgent, a broker user on the bus. */
export const AgentDoors = z.object({
  credential: z.object({ createdAt: z.string(), revokedAt: z.string().optional() }).optional(),
  cluster: z.boolean().optional(),
  /** The agent called over RockBot's bus (as the broker-validated user) since this console started. */
  bus: z.boolean().optional(),
});
export type AgentDoors = z.infer<typeof AgentDoors>;

/** "What may agent X do, and why?": one answer, the same in the CLI, the console and every door. */
export const AgentView = z.object({
  name: z.string(),
  doors: AgentDoors,
  tools: z.array(AgentToolView),
  /** `<provider>/<model>` patterns the agent may use through mediation (deny by default: none). */
  models: z.array(z.string()),
  /** Tokens per day the agent may spend through mediation; absent: no budget. */
  dailyTokenBudget: z.number().int().positive().optional(),
  tokensToday: z.number().int().min(0).optional(),
  sessions: z.array(GatewaySessionView),
  recentCalls: z.array(InvocationRecord),
});
export type AgentView = z.infer<typeof AgentView>;

export const AgentListItem = AgentView.pick({ name: true, doors: true, models: true }).extend({
  toolCount: z.number().int().min(0),
});
export type AgentListItem = z.infer<typeof AgentListItem>;

/** Whether `model` (`<provider>/<model>`) matches a granted pattern: `*` stands for any run of characters, nothing else is special. */
export function modelPatternMatches(pattern: string, model: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === model;
  if (!model.startsWith(parts[0]!) || !model.endsWith(parts.at(-1)!)) return false;
  let at = parts[0]!.length;
  const end = model.length - parts.at(-1)!.length;
  for (const part of parts.slice(1, -1)) {
    const found = model.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return at <= end;
}

/** A model pattern as stored: `<provider>/<model>` with `*` wildcards, printable, bounded. */
export const ModelPattern = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9*][A-Za-z0-9._:@*/-]*$/, 'a model pattern is <provider>/<model> in letters, digits, . _ : @ - / and * wildcards');
