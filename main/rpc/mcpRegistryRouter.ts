import { z } from 'zod';
import { InstallRequest } from '../../shared/mcpRegistry';
import { procedure, router } from './trpc';

const Name = z.string().min(1).max(200);
const RegistryUrl = z.string().min(1).max(2_000);

/** MCP registries: the Discover section and `tooldeck registry …`. */
export const mcpRegistryRouter = router({
  sources: procedure.query(({ ctx }) => ctx.core.mcpRegistry.sources.list()),
  addSource: procedure.input(z.object({ url: RegistryUrl })).mutation(({ ctx, input }) => ctx.core.mcpRegistry.sources.add(input.url)),
  removeSource: procedure.input(z.object({ url: RegistryUrl })).mutation(({ ctx, input }) => ctx.core.mcpRegistry.sources.remove(input.url)),
  setSourceEnabled: procedure.input(z.object({ url: RegistryUrl, enabled: z.boolean() })).mutation(({ ctx, input }) => ctx.core.mcpRegistry.sources.setEnabled(input.url, input.enabled)),
  search: procedure
    .input(z.object({ registry: RegistryUrl.optional(), search: z.string().max(200).optional(), cursor: z.string().max(2_000).optional(), limit: z.number().int().min(1).max(100).optional() }))
    .query(({ ctx, input }) => ctx.core.mcpRegistry.search(input)),
  show: procedure.input(z.object({ name: Name, registry: RegistryUrl.optional(), version: z.string().max(255).optional() })).query(({ ctx, input }) => ctx.core.mcpRegistry.show(input.name, input)),
  /** What an install would save and launch; nothing is saved or started. */
  preview: procedure.input(InstallRequest).mutation(({ ctx, input }) => ctx.core.mcpRegistry.preview(input)),
  install: procedure.input(InstallRequest).mutation(async ({ ctx, input }) => (await ctx.core.mcpRegistry.install(input, ctx.core.mcp)).preview),
  /** Saved servers installed from a registry whose registry now has another latest version. */
  updates: procedure.query(async ({ ctx }) => ctx.core.mcpRegistry.updates(ctx.core.mcp.list().map((snapshot) => ({ name: snapshot.config.name, config: snapshot.config })))),
});
