import { z } from 'zod';
import { AppCallToolInput, OpenAppInput } from '../../shared/apps';
import { watch } from '../platform/AsyncQueue';
import { procedure, router } from './trpc';

const byApp = z.object({ appId: z.string().min(1).max(128) });

/** MCP Apps: what the host bridge in the console page asks for an app it frames. */
export const appsRouter = router({
  open: procedure.input(OpenAppInput).mutation(({ ctx, input }) => ctx.core.apps.open(input)),
  /** The app's tools/call, through the invocation pipeline (policy, history); tools of its own server only. */
  callTool: procedure.input(AppCallToolInput).mutation(({ ctx, input }) => ctx.core.apps.callTool(input)),
  readResource: procedure.input(byApp.extend({ uri: z.string().min(1).max(4096) })).mutation(({ ctx, input }) => ctx.core.apps.readResource(input.appId, input.uri)),
  /** What the browser blocked for the app (its CSP reports), again after every report. */
  watch: procedure.input(byApp).subscription(async function* ({ ctx, input, signal }) {
    yield* watch((notify) => ctx.core.apps.onChange((appId) => appId === input.appId && notify()), () => ctx.core.apps.activity(input.appId), signal, 50);
  }),
  close: procedure.input(byApp).mutation(({ ctx, input }) => ctx.core.apps.close(input.appId)),
});
