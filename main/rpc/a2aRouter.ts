import { z } from 'zod';
import { A2aAgentInput, A2aAgentName, A2aOutgoingMessage, type A2aEvent } from '../../shared/a2a';
import type { Caller } from '../../shared/caller';
import type { A2aTurnOptions } from '../a2a/A2aTurns';
import { procedure, router } from './trpc';

const byAgent = z.object({ agent: z.string().min(1) });
const sendInput = byAgent.extend({
  message: A2aOutgoingMessage,
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
  /** The sender confirmed a turn whose policy verdict is `confirm`. */
  confirmed: z.boolean().optional(),
});

/** A turn's options from its input; the caller is whoever sent it, its way in A2A. */
function turnOptions(caller: Caller, input: z.infer<typeof sendInput>, signal: AbortSignal | undefined): A2aTurnOptions {
  return { caller, contextId: input.contextId, taskId: input.taskId, timeoutMs: input.timeoutMs, confirmed: input.confirmed, signal };
}

export const a2aRouter = router({
  list: procedure.query(({ ctx }) => ctx.core.a2a.list()),
  get: procedure.input(z.object({ name: A2aAgentName })).query(({ ctx, input }) => ctx.core.a2a.get(input.name)),
  save: procedure.input(A2aAgentInput).mutation(async ({ ctx, input }) => {
    const saved = await ctx.core.a2a.save(input);
    ctx.core.a2a.reconnect(saved.name);
    await ctx.core.a2aSkills.sync(saved.name);
    return saved;
  }),
  remove: procedure.input(z.object({ name: A2aAgentName })).mutation(async ({ ctx, input }) => {
    await ctx.core.a2a.remove(input.name);
    await ctx.core.a2aSkills.sync(input.name);
  }),
  /** The card (by saved name, base URL or card URL) and its validation report. */
  inspect: procedure.input(z.object({ target: z.string().min(1) })).query(({ ctx, input, signal }) => ctx.core.a2a.inspect(input.target, signal)),
  connectionInfo: procedure.input(byAgent).query(({ ctx, input }) => ctx.core.a2a.connectionInfo(input.agent)),
  /** One turn: a call of the agent's turn entry through the pipeline (policy, history, metrics), as for every host. */
  send: procedure.input(sendInput).mutation(({ ctx, input, signal }) => ctx.core.a2aTurns.send(input.agent, input.message, turnOptions(ctx.caller, input, signal))),
  /** Streamed updates of one turn; unsubscribing cancels the task at the agent. */
  stream: procedure.input(sendInput).subscription(async function* ({ ctx, input, signal }): AsyncGenerator<A2aEvent> {
    yield* ctx.core.a2aTurns.stream(input.agent, input.message, turnOptions(ctx.caller, input, signal));
  }),
  /** Reattach to a task's updates after a dropped stream (falls back to polling where the agent refuses). */
  resubscribe: procedure.input(byAgent.extend({ taskId: z.string() })).subscription(async function* ({ ctx, input, signal }): AsyncGenerator<A2aEvent> {
    yield* ctx.core.a2a.resubscribe(input.agent, input.taskId, signal);
  }),
  getTask: procedure.input(byAgent.extend({ taskId: z.string() })).query(({ ctx, input, signal }) => ctx.core.a2a.getTask(input.agent, input.taskId, { signal })),
  cancelTask: procedure.input(byAgent.extend({ taskId: z.string() })).mutation(({ ctx, input, signal }) => ctx.core.a2a.cancelTask(input.agent, input.taskId, { signal })),
  supportsListTasks: procedure.input(byAgent).query(({ ctx, input }) => ctx.core.a2a.supportsListTasks(input.agent)),
  listTasks: procedure
    .input(byAgent.extend({ contextId: z.string().optional(), pageSize: z.number().int().min(1).max(100).optional(), pageToken: z.string().optional() }))
    .query(({ ctx, input, signal }) => ctx.core.a2a.listTasks(input.agent, { contextId: input.contextId, pageSize: input.pageSize, pageToken: input.pageToken, signal })),
  threads: procedure.input(z.object({ agent: z.string().optional() })).query(({ ctx, input }) => ctx.core.a2a.threads(input.agent)),
  transcript: procedure.input(byAgent).query(({ ctx, input }) => ctx.core.a2a.transcriptOf(input.agent)),
});
