import { z } from 'zod';

/**
 * How a call came into the invocation pipeline. Each way in names itself; the pipeline, history,
 * metrics and traces read it. `gateway` (MCP gateway for agents), `mediation` (model mediation) and
 * `bus` (RabbitMQ bridge for RockBot agents) are the ways in that come next; they are listed now so
 * records and filters already know them. `playground` and `eval` are the console's Playground and
 * eval suites (`tooldeck eval`, the Evals view), both on the mediation engine.
 */
export const CallerVia = z.enum(['ui', 'cli', 'run', 'app', 'replay', 'a2a', 'gateway', 'mediation', 'bus', 'playground', 'eval']);
export type CallerVia = z.infer<typeof CallerVia>;

/** An agent's name as a caller: bounded, since it becomes a history column and a metric label. */
export const CallerAgentName = z.string().trim().min(1).max(200);

/** Who made the call: the operator (the person at the console, CLI or UI), or an agent by name. */
export const CallerWho = z.union([z.literal('operator'), z.object({ agent: CallerAgentName })]);
export type CallerWho = z.infer<typeof CallerWho>;

/**
 * Who called and how: every way into the pipeline hands one over (it is a required part of every
 * request, so no way in can leave it out). `runId` is the collection or load run the call is part
 * of; `sessionId` the conversation or session an agent's call belongs to.
 */
export const Caller = z.object({
  who: CallerWho,
  via: CallerVia,
  runId: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
});
export type Caller = z.infer<typeof Caller>;

/** The operator's call through one way in. */
export function operatorCaller(via: CallerVia, ids: Pick<Caller, 'runId' | 'sessionId'> = {}): Caller {
  return { who: 'operator', via, ...(ids.runId !== undefined ? { runId: ids.runId } : {}), ...(ids.sessionId !== undefined ? { sessionId: ids.sessionId } : {}) };
}

/** An agent's call through one way in. */
export function agentCaller(agent: string, via: CallerVia, ids: Pick<Caller, 'runId' | 'sessionId'> = {}): Caller {
  return { ...operatorCaller(via, ids), who: { agent } };
}

/** The calling agent's name; undefined when the operator called. */
export function callerAgent(caller: Caller): string | undefined {
  return caller.who === 'operator' ? undefined : caller.who.agent;
}
