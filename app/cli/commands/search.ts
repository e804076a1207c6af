import type { Command } from 'commander';
import type { CliContext } from '../CliContext';
import { positiveInteger } from '../options';
import { excerpt, jsonForTerminal, safeForTerminal } from '../terminalText';

export function registerSearch(program: Command, ctx: CliContext) {
  program
    .command('search <query>')
    .description("Search every server's tools — saved and workspace servers — from their last discovery")
    .option('--limit <n>', 'at most this many results', positiveInteger, 10)
    .option('--refresh', 'connect to every server (saved and enabled, and the workspace\'s) and rediscover first')
    .option('--json', 'print JSON')
    .action(async (query: string, options: { limit: number; refresh?: boolean; json?: boolean }) => {
      const core = await ctx.getCore();
      const servers = core.servers.list();
      if (options.refresh) {
        const refreshed = servers.filter((server) => server.origin.kind === 'workspace' || server.config?.enabled);
        const results = await Promise.allSettled(refreshed.map((server) => core.servers.connect(server.name)));
        results.forEach((r, i) => r.status === 'rejected' && ctx.io.stderr(`${safeForTerminal(refreshed[i]!.name, 100)}: ${excerpt((r.reason as Error).message, 400)}\n`));
        await Promise.all(refreshed.map((server) => core.mcp.disconnect(server.name)));
      }
      const [{ mcpToolEntry }, { ToolSearchIndex, toolDocument }] = await Promise.all([import('../../../main/mcp/McpToolSource'), import('../../../main/registry/search/ToolSearchIndex')]);
      const index = new ToolSearchIndex();
      let stale = 0;
      for (const server of servers) {
        const cached = await core.mcp.toolCache.read(server.name);
        if (!cached) stale++;
        for (const tool of cached?.tools ?? []) index.upsert(toolDocument(mcpToolEntry(server.name, tool)));
      }
      const hits = index.search(query, { limit: options.limit });
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(hits)}\n`);
      if (stale) ctx.io.stderr(`${stale} server(s) have never been discovered; run with --refresh.\n`);
      if (hits.length === 0) return ctx.io.stdout(`No tools match "${safeForTerminal(query, 200)}".\n`);
      for (const hit of hits) ctx.io.stdout(`${hit.score.toFixed(2)}  ${safeForTerminal(hit.id, 200).padEnd(40)}  ${safeForTerminal((hit.description ?? '').split('\n')[0]!, 80)}\n`);
    });
}
