import { z } from 'zod';
import { ServerName } from '../../shared/mcp';
import { watch } from '../platform/AsyncQueue';
import { procedure, router } from './trpc';

const byServer = z.object({ server: ServerName });
const byTask = byServer.extend({ taskId: z.string().min(1).max(512) });

/** MCP tasks of a saved server: the Tasks tab and `tooldeck mcp task`. */
export const tasksRouter = router({
  list: procedure.input(byServer).query(({ ctx, input, signal }) => ctx.core.mcp.tasks.list(input.server, signal)),
  /** The list again whenever a remembered task changes, a status notification arrives or the server (dis)connects. */
  watch: procedure.input(byServer).subscription(async function* ({ ctx, input, signal }) {
    const changes = watch((notify) => ctx.core.mcp.tasks.onChange((server) => server === input.server && notify()), () => input.server, signal, 250);
    for await (const server of changes) yield await ctx.core.mcp.tasks.list(server, signal);
  }),
  get: procedure.input(byTask).query(({ ctx, input }) => ctx.core.mcp.tasks.get(input.server, input.taskId)),
  /** tasks/result: may wait until the task ends; the operator answers any input it asks for meanwhile. */
  result: procedure.input(byTask).mutation(({ ctx, input, signal }) => ctx.core.mcp.tasks.result(input.server, input.taskId, signal)),
  cancel: procedure.input(byTask).mutation(({ ctx, input }) => ctx.core.mcp.tasks.cancel(input.server, input.taskId)),
  forget: procedure.input(byTask).mutation(({ ctx, input }) => ctx.core.mcp.tasks.forget(input.server, input.taskId)),
});
