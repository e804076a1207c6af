import { z } from 'zod';
import { INPUT_LIMITS } from '../../shared/inputLimits';
import { InteractionAnswer, Root, SaveServerInput, ServerName } from '../../shared/mcp';
import { watch } from '../platform/AsyncQueue';
import { procedure, router } from './trpc';

const byName = z.object({ name: ServerName });
const ServersFileText = z.string().max(INPUT_LIMITS.serversFile.maxBytes, `A servers file may have at most ${INPUT_LIMITS.serversFile.maxBytes / (1024 * 1024)} MiB`);

export const mcpRouter = router({
  /** Saved servers (workspace-managed ones with their file). */
  list: procedure.query(({ ctx }) => ctx.core.servers.snapshots()),
  /** The one server inventory: saved servers and the workspace's McpServers, connected or not, with their origin (secrets sealed). */
  inventory: procedure.query(({ ctx }) => ctx.core.servers.list()),
  get: procedure.input(byName).query(({ ctx, input }) => {
    const snapshot = ctx.core.mcp.get(input.name);
    return ctx.core.servers.snapshots().find((candidate) => candidate.config.name === snapshot.config.name) ?? snapshot;
  }),
  /** The server list, again after every change (state, discovery, list_changed). */
  watch: procedure.subscription(async function* ({ ctx, signal }) {
    yield* watch((notify) => ctx.core.mcp.onChange(notify), () => ctx.core.servers.snapshots(), signal, 100);
  }),
  save: procedure.input(SaveServerInput).mutation(({ ctx, input }) => ctx.core.mcp.save(input, { requireLaunchConfirmation: ctx.fromBrowser })),
  remove: procedure.input(byName).mutation(({ ctx, input }) => ctx.core.mcp.remove(input.name)),
  connect: procedure.input(byName).mutation(({ ctx, input }) => ctx.core.mcp.connect(input.name)),
  disconnect: procedure.input(byName).mutation(({ ctx, input }) => ctx.core.mcp.disconnect(input.name)),
  refresh: procedure.input(byName).mutation(({ ctx, input }) => ctx.core.mcp.refresh(input.name)),
  /** What an import would add (launch lines of stdio servers included), before anything runs. */
  previewImport: procedure.input(z.object({ text: ServersFileText })).mutation(({ ctx, input }) => ctx.core.mcp.previewImport(input.text)),
  import: procedure
    .input(z.object({ text: ServersFileText, replace: z.boolean().default(false), confirmedLaunchLines: z.array(z.string()).default([]) }))
    .mutation(({ ctx, input }) =>
      ctx.core.mcp.importServers(input.text, { replace: input.replace, confirmedLaunchLines: input.confirmedLaunchLines, requireLaunchConfirmation: ctx.fromBrowser }),
    ),
  /** Secrets are never exported from here: placeholders stand in (the CLI's --include-secrets is the one way out). */
  export: procedure
    .input(z.object({ names: z.array(ServerName).optional() }))
    .query(({ ctx, input }) => ctx.core.mcp.exportServers(ctx.core.servers.list().flatMap((server) => (server.config && (!input.names || input.names.includes(server.name)) ? [server.config] : [])))),
  transcript: procedure.input(byName.extend({ sinceSeq: z.number().int().default(-1) })).query(({ ctx, input }) => ctx.core.mcp.transcript(input.name)?.list(input.sinceSeq) ?? []),
  exportTranscript: procedure.input(byName).query(({ ctx, input }) => ctx.core.mcp.transcript(input.name)?.export() ?? ''),
  readResource: procedure
    .input(z.object({ server: ServerName, uri: z.string() }))
    // A server that is not connected answers ConnectionFailed (the UI shows it), not an internal error.
    .mutation(({ ctx, input }) => ctx.core.mcp.requireConnection(input.server).readResource(input.uri)),
  getPrompt: procedure
    .input(z.object({ server: ServerName, name: z.string(), arguments: z.record(z.string(), z.string()).default({}) }))
    .mutation(({ ctx, input }) => ctx.core.mcp.requireConnection(input.server).getPrompt(input.name, input.arguments)),
  /** An icon as a data: URL (https icons fetched by the console from public addresses only), or null. */
  icon: procedure.input(z.object({ src: z.string().min(1).max(300_000) })).query(async ({ ctx, input }) => (await ctx.core.mcp.icons.fetch(input.src)) ?? null),
  roots: procedure.query(({ ctx }) => ctx.core.mcp.roots()),
  setRoots: procedure.input(z.array(Root)).mutation(({ ctx, input }) => ctx.core.mcp.setRoots(input)),
  /** Elicitation and sampling requests waiting for the operator. */
  pendingInteractions: procedure.subscription(async function* ({ ctx, signal }) {
    yield* watch((notify) => ctx.core.mcp.broker.onChange(notify), () => ctx.core.mcp.broker.pending(), signal, 10);
  }),
  answerInteraction: procedure
    .input(z.object({ id: z.string(), answer: InteractionAnswer }))
    .mutation(({ ctx, input }) => ctx.core.mcp.broker.answer(input.id, input.answer)),
});
