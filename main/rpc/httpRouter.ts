import { z } from 'zod';
import { HttpServiceInput } from '../../shared/httpServices';
import { procedure, router } from './trpc';

export const httpRouter = router({
  list: procedure.query(({ ctx }) => ctx.core.http.list()),
  add: procedure.input(HttpServiceInput).mutation(({ ctx, input }) => ctx.core.http.add(input)),
  remove: procedure.input(z.object({ service: z.string() })).mutation(({ ctx, input }) => ctx.core.http.remove(input.service)),
});
