import type { Command } from 'commander';
import { reasonOf } from '../../../shared/errors';
import type { CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { positiveInteger } from '../options';
import { excerpt, jsonForTerminal, safeForTerminal } from '../terminalText';

export function registerSearch(program: Command, ctx: CliContext) {
  program
    .command('search <query>')
    .description('Search every registry entry — MCP tools, gRPC tools and methods, A2A skills, HTTP tools — and agents; MCP servers from their last discovery')
    .option('--limit <n>', 'at most this many results', positiveInteger, 10)
    .option('--refresh', "connect to every MCP server (saved and enabled, and the workspace's) and rediscover, list every gRPC source and read every A2A agent's card first")
    .option('--json', 'print JSON')
    .action(async (query: string, options: { limit: number; refresh?: boolean; json?: boolean }) => {
      const core = await ctx.getCore();
      const servers = core.servers.list();
      const report = (name: string, reason: string) => ctx.io.stderr(`${safeForTerminal(name, 100)}: ${excerpt(reason, 400)}\n`);
      if (options.refresh) {
        const refreshed = servers.filter((server) => server.origin.kind === 'workspace' || server.config?.enabled);
        const [mcpResults] = await Promise.all([
          Promise.allSettled(refreshed.map((server) => core.servers.connect(server.name))),
          // gRPC sources and A2A agents register their entries in the registry once listed.
          core.grpc.refreshAll(),
          core.a2aSkills.syncAll(),
        ]);
        mcpResults.forEach((r, i) => r.status === 'rejected' && report(refreshed[i]!.name, reasonOf(r.reason)));
        for (const source of core.grpc.list()) if (source.error) report(`grpc:${source.name}`, source.error.message);
        await Promise.all(refreshed.map((server) => core.mcp.disconnect(server.name)));
      }
      // A one-shot command connects no MCP server unless --refresh (and ends those it did): their
      // tools are searched from their last discovery, beside what the registry holds.
      const { mcpToolEntry } = await import('../../../main/mcp/McpToolSource');
      const { toolDocument } = await import('../../../main/registry/search/ToolSearchIndex');
      let undiscovered = 0;
      for (const server of servers) {
        if (core.catalog.list({ source: `mcp:${server.name}` }).length > 0) continue;
        const cached = await core.mcp.toolCache.read(server.name);
        if (!cached) undiscovered++;
        for (const tool of cached?.tools ?? []) core.search.upsert(toolDocument(mcpToolEntry(server.name, tool)));
      }
      // The same search as the console's palette (tools.search), over the contract.
      const hits = await (await contractFor(core)).tools.search({ query, limit: options.limit });
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(hits)}\n`);
      if (undiscovered) ctx.io.stderr(`${undiscovered} server(s) have never been discovered; run with --refresh.\n`);
      const unlisted = core.grpc.list().filter((source) => source.state === 'pending').length;
      if (unlisted) ctx.io.stderr(`${unlisted} gRPC source(s) not listed in this run; run with --refresh.\n`);
      if (hits.length === 0) return ctx.io.stdout(`No tools match "${safeForTerminal(query, 200)}".\n`);
      for (const hit of hits) ctx.io.stdout(`${hit.score.toFixed(2)}  ${safeForTerminal(hit.id, 200).padEnd(40)}  ${safeForTerminal((hit.description ?? '').split('\n')[0]!, 80)}\n`);
    });
}
