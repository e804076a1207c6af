import { z } from 'zod';
import type { BusOverview } from '../../shared/bus';
import { CallerAgentName } from '../../shared/caller';
import { watch } from '../platform/AsyncQueue';
import type { Core } from '../core';
import { procedure, router } from './trpc';

function overview(core: Core): BusOverview {
  return { status: core.bus.status(), recent: core.bus.traffic.recent(), perAgent: core.bus.traffic.perAgent(), peers: core.bus.peers() };
}

const StartInput = z.object({
  /** The broker, with its credentials: used to connect, never returned or shown unmasked. */
  url: z.string().min(1).max(2048),
  agent: CallerAgentName,
  /** Discover other bridges on the bus and offer their tools as `bus:<agent>.<tool>` entries (default true). */
  discover: z.boolean().optional(),
  /** Take a request without the broker-validated user_id as the agent its rb-source claims (default false). */
  trustRbSource: z.boolean().optional(),
});

/**
 * The console's Bus section: start and stop the RockBot MCP bridge on RabbitMQ, and watch RockBot
 * agents' requests and replies as they pass. Its calls are in History too (`via: bus`).
 */
export const busRouter = router({
  status: procedure.query(({ ctx }) => ctx.core.bus.status()),
  start: procedure.input(StartInput).mutation(({ ctx, input }) => ctx.core.bus.start({ url: input.url, agent: input.agent, ...(input.discover !== undefined ? { discover: input.discover } : {}), ...(input.trustRbSource !== undefined ? { trustRbSource: input.trustRbSource } : {}) })),
  stop: procedure.mutation(async ({ ctx }) => {
    await ctx.core.bus.stop();
    return ctx.core.bus.status();
  }),
  /** The requests waiting in the bridge's dead-letter queues, read without taking them. */
  deadLetters: procedure.query(({ ctx }) => ctx.core.bus.deadLetters()),
  /** Publishes dead-lettered requests again on their topic (all, or those with these message ids). */
  replayDeadLetters: procedure.input(z.object({ messageIds: z.array(z.string().min(1).max(200)).max(1000).optional() })).mutation(async ({ ctx, input }) => ({ replayed: await ctx.core.bus.replayDeadLetters(input.messageIds) })),
  purgeDeadLetters: procedure.mutation(async ({ ctx }) => ({ purged: await ctx.core.bus.purgeDeadLetters() })),
  /** The bridge's state and traffic now, then again as it changes. */
  watch: procedure.subscription(async function* ({ ctx, signal }) {
    yield* watch(
      (notify) => {
        const stops = [ctx.core.bus.onStatusChange(notify), ctx.core.bus.traffic.onChange(notify), ctx.core.bus.onPeersChange(notify)];
        return () => stops.forEach((stop) => stop());
      },
      () => overview(ctx.core),
      signal,
      100,
    );
  }),
});
