import type { Command } from 'commander';
import type { CliContext } from '../CliContext';
import { jsonForTerminal, safeForTerminal } from '../terminalText';
import { operatorCaller } from '../../../shared/caller';

export function registerInfo(program: Command, ctx: CliContext) {
  program
    .command('info')
    .description('Show versions, host and data directory')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { createCaller } = await import('../../../main/rpc/router');
      const core = await ctx.getCore();
      const info = await createCaller({ core, caller: operatorCaller('cli') }).system.info();
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(info)}\n`);
      const rows: Array<[string, string]> = [
        ['Tooldeck', info.appVersion],
        ['Host', info.host],
        ['Data dir', safeForTerminal(info.dataDir)],
        // A PostgreSQL URL is shown with its password masked (HistoryStore.location).
        ['History', `${core.history.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'} ${safeForTerminal(core.history.location)}`],
        ['Node', info.versions.node],
        ['V8', info.versions.v8],
        ['SQLite', info.versions.sqlite ?? '-'],
        ['Platform', `${info.platform}/${info.arch}`],
      ];
      ctx.io.stdout(rows.map(([k, v]) => `${k.padEnd(10)} ${v}`).join('\n') + '\n');
    });
}
