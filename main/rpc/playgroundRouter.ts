import { z } from 'zod';
import { AppErrorShape } from '../../shared/errors';
import { EvalMessage } from '../../shared/evals';
import { classifyError } from '../registry/classifyError';
import { startCancellableRun } from '../platform/CancellableRun';
import type { PlaygroundEvent } from '../evals/Playground';
import { PlaygroundConversation } from '../evals/PlaygroundConversations';
import { declaredAgents } from './gatewayRouter';
import { procedure, router } from './trpc';

const TurnInput = z.object({
  model: z.string().trim().min(3).max(300),
  system: z.string().max(100_000).optional(),
  messages: z.array(EvalMessage).min(1).max(200),
  agent: z.string().trim().min(1).max(200).optional(),
  tools: z.array(z.string().min(1).max(1000)).max(200).optional(),
  execute: z.boolean().optional(),
  conversationId: z.string().min(1).max(100),
});

type TurnEvent = PlaygroundEvent | { type: 'failed'; error: AppErrorShape };

/**
 * The console's Playground: a turn with a model over a tool set on the mediation engine, its
 * rounds as they finish (tool cards) then the answer; leaving the view cancels the turn. Calls go
 * through the pipeline as the operator via `playground`.
 */
export const playgroundRouter = router({
  /** Agents the workspace declares, whose grants can be the tool set. */
  agents: procedure.query(({ ctx }) => declaredAgents(ctx.core)),
  turn: procedure.input(TurnInput).subscription(async function* ({ ctx, input, signal }): AsyncGenerator<TurnEvent> {
    const run = startCancellableRun<TurnEvent, void>(
      async ({ signal: turnSignal, emit }) => {
        try {
          await ctx.core.playground.turn(input, emit, turnSignal);
        } catch (error) {
          emit({ type: 'failed', error: AppErrorShape.parse(classifyError(error).toShape()) });
        }
      },
      { signal },
    );
    yield* run;
  }),
  /** Approves or denies a call a turn holds for the operator (its approval event's id). */
  decide: procedure.input(z.object({ id: z.string().uuid(), approve: z.boolean() })).mutation(({ ctx, input }) => ctx.core.playground.decide(input.id, input.approve)),
  /** Saved conversations, newest first (summaries). */
  conversations: procedure.query(({ ctx }) => ctx.core.playground.conversations.list()),
  conversation: procedure.input(z.object({ id: z.string().min(1).max(100) })).query(({ ctx, input }) => ctx.core.playground.conversations.get(input.id)),
  /** Saves (or replaces) a conversation with its setup; the newest 50 are kept. */
  saveConversation: procedure
    .input(PlaygroundConversation.omit({ updatedAt: true }))
    .mutation(({ ctx, input }) => ctx.core.playground.conversations.save(input)),
  deleteConversation: procedure.input(z.object({ id: z.string().min(1).max(100) })).mutation(({ ctx, input }) => ctx.core.playground.conversations.remove(input.id)),
  /** The last turn as a case of an eval suite in the workspace's evals/ folder. */
  saveCase: procedure
    .input(
      z.object({
        file: z.string().min(1).max(1000),
        caseName: z.string().trim().min(1).max(200),
        prompt: z.string().min(1).max(100_000),
        toolCalls: z.array(z.object({ tool: z.string(), name: z.string(), service: z.string().optional(), arguments: z.record(z.string(), z.unknown()) })).max(100),
        agent: z.string().optional(),
        tools: z.array(z.string()).optional(),
      }),
    )
    .mutation(({ ctx, input }) => ctx.core.playground.saveCase(input)),
});
