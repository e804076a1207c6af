import { z } from 'zod';
import { HeartbeatInput } from '../../shared/system';
import { procedure, router } from './trpc';

export const systemRouter = router({
  info: procedure.query(({ ctx }) => ctx.core.system.info()),
  heartbeat: procedure.input(HeartbeatInput).subscription(async function* ({ ctx, input, signal }) {
    yield* ctx.core.system.heartbeat(input.intervalMs, signal);
  }),
  /** The first-run guide's state (the Start here panel), kept in the settings file. */
  guide: procedure.query(({ ctx }) => ctx.core.settings.get().guide),
  setGuide: procedure.input(z.object({ startHereDismissed: z.boolean() })).mutation(async ({ ctx, input }) => (await ctx.core.settings.update((s) => ({ ...s, guide: input }))).guide),
});
