import { type Command, InvalidArgumentError } from 'commander';
import { InvocationStatus } from '../../../shared/invocation';
import type { InvocationRecord } from '../../../shared/invocation';
import type { CliContext } from '../CliContext';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `15m`, `1h`, `24h`, `7d` → milliseconds. */
export function parseSince(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('use a number and a unit: 30s, 15m, 1h, 7d');
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

function parseStatus(value: string, previous: InvocationStatus[] = []): InvocationStatus[] {
  const parsed = InvocationStatus.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`one of ${InvocationStatus.options.join(', ')}`);
  return [...previous, parsed.data];
}

const fmtMs = (ms: number | null) => (ms === null ? '—' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);

function row(r: InvocationRecord): string {
  const when = new Date(r.startedAt).toISOString().replace('T', ' ').slice(0, 19);
  const status = r.isError ? 'isError' : r.status;
  return `${when}  ${status.padEnd(8)} ${fmtMs(r.latencyMs).padStart(9)}  ${`${r.sourceKind}:${r.sourceName}`.padEnd(22)} ${r.tool}${r.errorCode ? `  ${r.errorCode}` : ''}`;
}

export function registerHistory(program: Command, ctx: CliContext) {
  program
    .command('history')
    .description('Recorded calls, newest first')
    .option('--tool <name>', 'only this tool')
    .option('--status <status>', 'only this status (repeatable): ok, error, timeout, canceled, denied', parseStatus)
    .option('--since <age>', 'only calls newer than this: 15m, 1h, 7d', parseSince)
    .option('--limit <n>', 'at most this many rows', (v) => Number(v), 50)
    .option('--json', 'print JSON')
    .action(async (options: { tool?: string; status?: InvocationStatus[]; since?: number; limit: number; json?: boolean }) => {
      const core = await ctx.getCore();
      const page = core.history.list({
        tool: options.tool,
        status: options.status,
        since: options.since ? Date.now() - options.since : undefined,
        limit: Math.min(1000, Math.max(1, options.limit)),
      });
      if (options.json) return ctx.io.stdout(`${JSON.stringify(page.items, null, 2)}\n`);
      if (page.items.length === 0) return ctx.io.stdout('No recorded calls match.\n');
      ctx.io.stdout(`${page.items.map(row).join('\n')}\n`);
    });

  program
    .command('metrics')
    .description('Call count, error rate and latency percentiles per tool or server')
    .option('--since <age>', 'window: 15m, 1h, 24h, 7d', parseSince, 3_600_000)
    .option('--by <group>', 'tool or server', 'tool')
    .option('--json', 'print JSON')
    .action(async (options: { since: number; by: string; json?: boolean }) => {
      if (options.by !== 'tool' && options.by !== 'server') throw new InvalidArgumentError('--by takes tool or server');
      const core = await ctx.getCore();
      const until = Date.now();
      const groups = core.history.breakdown({ since: until - options.since, until, by: options.by === 'tool' ? 'tool' : 'source' });
      if (options.json) return ctx.io.stdout(`${JSON.stringify(groups, null, 2)}\n`);
      if (groups.length === 0) return ctx.io.stdout('No calls in that window.\n');
      ctx.io.stdout(`${'group'.padEnd(44)} ${'calls'.padStart(7)} ${'errors'.padStart(7)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'p99'.padStart(9)}\n`);
      for (const g of groups) {
        ctx.io.stdout(`${g.group.key.padEnd(44)} ${String(g.count).padStart(7)} ${`${(g.errorRate * 100).toFixed(1)}%`.padStart(7)} ${fmtMs(g.p50).padStart(9)} ${fmtMs(g.p95).padStart(9)} ${fmtMs(g.p99).padStart(9)}\n`);
      }
    });
}
