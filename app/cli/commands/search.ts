import type { Command } from 'commander';
import { ExitCode, CliExit, type CliContext } from '../CliContext';

export function registerSearch(program: Command, ctx: CliContext) {
  program
    .command('search <query>')
    .description("Search the saved servers' tools (from their last discovery)")
    .option('--limit <n>', 'at most this many results', (v) => Number(v), 10)
    .option('--refresh', 'connect to every enabled server and rediscover first')
    .option('--json', 'print JSON')
    .action(async (query: string, options: { limit: number; refresh?: boolean; json?: boolean }) => {
      if (!Number.isInteger(options.limit) || options.limit < 1) throw new CliExit(ExitCode.Usage, '--limit must be a positive integer');
      const core = await ctx.getCore();
      const configs = core.mcp.configs();
      if (options.refresh) {
        const results = await Promise.allSettled(configs.filter((c) => c.enabled).map((c) => core.mcp.connect(c.name)));
        results.forEach((r, i) => r.status === 'rejected' && ctx.io.stderr(`${configs[i]!.name}: ${(r.reason as Error).message}\n`));
        await Promise.all(configs.map((c) => core.mcp.disconnect(c.name)));
      }
      const [{ mcpToolEntry }, { ToolSearchIndex, toolDocument }] = await Promise.all([import('../../../main/mcp/McpToolSource'), import('../../../main/registry/search/ToolSearchIndex')]);
      const index = new ToolSearchIndex();
      let stale = 0;
      for (const config of configs) {
        const cached = await core.mcp.toolCache.read(config.name);
        if (!cached) stale++;
        for (const tool of cached?.tools ?? []) index.upsert(toolDocument(mcpToolEntry(config.name, tool)));
      }
      const hits = index.search(query, { limit: options.limit });
      if (options.json) return ctx.io.stdout(`${JSON.stringify(hits, null, 2)}\n`);
      if (stale) ctx.io.stderr(`${stale} saved server(s) have never been discovered; run with --refresh.\n`);
      if (hits.length === 0) return ctx.io.stdout(`No tools match "${query}".\n`);
      for (const hit of hits) ctx.io.stdout(`${hit.score.toFixed(2)}  ${hit.id.padEnd(40)}  ${(hit.description ?? '').split('\n')[0]!.slice(0, 80)}\n`);
    });
}
