import { z } from 'zod';
import { ServerName } from '../../shared/mcp';
import { SetOAuthClientInput } from '../../shared/oauth';
import { watch } from '../platform/AsyncQueue';
import { procedure, router } from './trpc';

const byServer = z.object({ server: ServerName });

/** MCP authorization of saved HTTP servers: status and step log, sign-in, sign-out, client settings. */
export const oauthRouter = router({
  status: procedure.input(byServer).query(({ ctx, input }) => ctx.core.mcp.oauth.status(input.server)),
  /** The status again after every step, so the panel shows each one as it happens. */
  watch: procedure.input(byServer).subscription(async function* ({ ctx, input, signal }) {
    const changes = watch((notify) => ctx.core.mcp.oauth.onChange((server) => server === input.server && notify()), () => input.server, signal, 50);
    for await (const server of changes) yield await ctx.core.mcp.oauth.status(server);
  }),
  /** Starts a sign-in: returns the authorization URL for the UI to open (or `authorized` when no browser is needed). */
  login: procedure.input(byServer).mutation(({ ctx, input }) => ctx.core.mcp.oauth.login(input.server)),
  /**
   * The loopback listener takes the browser's redirect by itself; this finishes a sign-in with a
   * redirect URL the user pasted instead (a browser on another machine, a blocked port).
   */
  completeLogin: procedure
    .input(byServer.extend({ callbackUrl: z.url({ protocol: /^https?$/ }) }))
    .mutation(({ ctx, input }) => ctx.core.mcp.oauth.completeLogin(input.server, input.callbackUrl)),
  logout: procedure.input(byServer).mutation(({ ctx, input }) => ctx.core.mcp.oauth.logout(input.server)),
  /** Pre-registered client id and secret (the secret goes to the secret store), scopes, grant. */
  setClient: procedure.input(SetOAuthClientInput).mutation(({ ctx, input }) => ctx.core.mcp.oauth.setClient(input)),
});
