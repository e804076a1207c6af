import { HeartbeatInput } from '../../shared/system';
import { procedure, router } from './trpc';

export const systemRouter = router({
  info: procedure.query(({ ctx }) => ctx.core.system.info()),
  heartbeat: procedure.input(HeartbeatInput).subscription(async function* ({ ctx, input, signal }) {
    yield* ctx.core.system.heartbeat(input.intervalMs, signal);
  }),
});
