import { z } from 'zod';
import { GrpcSourceInput, GrpcSourceName, GrpcTarget } from '../../shared/grpc';
import { watch } from '../platform/AsyncQueue';
import { procedure, router } from './trpc';

const bySource = z.object({ name: GrpcSourceName });

export const grpcRouter = router({
  list: procedure.query(({ ctx }) => ctx.core.grpc.list()),
  watch: procedure.subscription(async function* ({ ctx, signal }) {
    yield* watch((notify) => ctx.core.grpc.onChange(notify), () => ctx.core.grpc.list(), signal, 100);
  }),
  get: procedure.input(bySource).query(({ ctx, input }) => ctx.core.grpc.get(input.name)),
  /** Saves a tools.v1 server or a reflected service after listing it; nothing is saved when it cannot be listed. */
  add: procedure.input(GrpcSourceInput).mutation(({ ctx, input }) => ctx.core.grpc.add(input)),
  remove: procedure.input(bySource).mutation(({ ctx, input }) => ctx.core.grpc.remove(input.name)),
  refresh: procedure.input(bySource).mutation(async ({ ctx, input }) => {
    await ctx.core.grpc.refresh(input.name).catch(() => undefined);
    return ctx.core.grpc.get(input.name);
  }),
  setMetadata: procedure.input(bySource.extend({ metadata: GrpcTarget.shape.metadata })).mutation(({ ctx, input }) => ctx.core.grpc.setMetadata(input.name, input.metadata)),
  /** Pins the version calls of a tool carry; no version unpins it. */
  pin: procedure
    .input(bySource.extend({ tool: z.string().min(1), version: z.string().optional() }))
    .mutation(({ ctx, input }) => ctx.core.grpc.pin(input.name, input.tool, input.version)),
  /** Services and methods of any server through reflection, nothing saved. */
  explore: procedure.input(GrpcTarget).query(({ ctx, input }) => ctx.core.grpc.explore(input)),
});
