import { type Command, InvalidArgumentError, Option } from 'commander';
import { MAX_PAGE_SIZE } from '../../../shared/history';
import { CallerAgentName, CallerVia } from '../../../shared/caller';
import { InvocationStatus, ReplicaName } from '../../../shared/invocation';
import type { InvocationRecord } from '../../../shared/invocation';
import type { CliContext } from '../CliContext';
import { CliExit, ExitCode } from '../CliContext';
import { contractFor } from '../contract';
import { clampLimit, collectChoice, parseAge, positiveInteger } from '../options';
import { jsonForTerminal, safeForTerminal } from '../terminalText';

const fmtMs = (ms: number | null) => (ms === null ? '—' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);

function row(r: InvocationRecord): string {
  const when = new Date(r.startedAt).toISOString().replace('T', ' ').slice(0, 19);
  const status = r.isError ? 'isError' : r.status;
  return `${when}  ${status.padEnd(8)} ${fmtMs(r.latencyMs).padStart(9)}  ${safeForTerminal(`${r.sourceKind}:${r.sourceName}`, 100).padEnd(22)} ${safeForTerminal(r.tool, 200)}${r.errorCode ? `  ${r.errorCode}` : ''}${callerText(r)}${r.replica ? `  on ${safeForTerminal(r.replica, 253)}` : ''}`;
}

/** Who called and how, when the record knows: `  via gateway by planner-bot`. */
function callerText(r: InvocationRecord): string {
  if (r.via === undefined) return r.agent ? `  by ${safeForTerminal(r.agent, 100)}` : '';
  return `  via ${r.via}${r.agent ? ` by ${safeForTerminal(r.agent, 100)}` : ''}`;
}

/** `--agent NAME`, checked like the history filter checks it. */
function agentName(value: string): string {
  const parsed = CallerAgentName.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError("Give an agent's name: 1 to 200 characters.");
  return parsed.data;
}

/** `--replica NAME`, checked like the history filter checks it. */
function replicaFilter(value: string): string {
  const parsed = ReplicaName.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError('Give a replica name: letters, digits, dots, dashes and underscores.');
  return parsed.data;
}

interface FilterOptions {
  tool?: string;
  status?: InvocationStatus[];
  since?: number;
  via?: CallerVia;
  agent?: string;
  operator?: boolean;
  replica?: string;
}

/** The filter options `history` and `history export` share. */
function withFilterOptions(command: Command): Command {
  return command
    .option('--tool <name>', 'only this tool')
    .option('--status <status>', 'only this status (repeatable): ok, error, timeout, canceled, denied', collectChoice(InvocationStatus.options))
    .option('--since <age>', 'only calls newer than this: 15m, 1h, 7d', parseAge)
    .addOption(new Option('--via <way>', 'only calls that came in this way').choices(CallerVia.options))
    .option('--agent <name>', 'only calls this agent made', agentName)
    .option('--operator', "only the operator's own calls (no agent's)")
    .option('--replica <name>', 'only calls this replica (Tooldeck process) recorded', replicaFilter);
}

function filterOf(options: FilterOptions) {
  if (options.agent !== undefined && options.operator) throw new CliExit(ExitCode.Usage, '--agent and --operator exclude each other: a call is either an agent\'s or the operator\'s.');
  return {
    tool: options.tool,
    status: options.status,
    since: options.since ? Date.now() - options.since : undefined,
    via: options.via,
    agent: options.operator ? null : options.agent,
    replica: options.replica,
  };
}

export function registerHistory(program: Command, ctx: CliContext) {
  const history = program
    .command('history')
    .description('Recorded calls, newest first');
  withFilterOptions(history)
    .option('--limit <n>', `at most this many rows (up to ${MAX_PAGE_SIZE.toLocaleString('en-US')})`, positiveInteger, 50)
    .option('--json', 'print JSON')
    .action(async (options: FilterOptions & { limit: number; json?: boolean }) => {
      const filter = filterOf(options);
      const contract = await contractFor(await ctx.getCore());
      const page = await contract.history.list({ ...filter, limit: clampLimit(ctx.io, options.limit, MAX_PAGE_SIZE, 'history') });
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(page.items)}\n`);
      if (page.items.length === 0) return ctx.io.stdout('No recorded calls match.\n');
      ctx.io.stdout(`${page.items.map(row).join('\n')}\n`);
    });

  withFilterOptions(history.command('export').description('Every matching call, newest first, streamed as JSON lines or CSV (no row limit)'))
    .addOption(new Option('--format <format>', 'jsonl: one JSON record per line; csv: a header row, then one row per call').choices(['jsonl', 'csv']).default('jsonl'))
    .action(async (_options: unknown, command: Command) => {
      // `history` reads the filter options wherever they stand (before or after `export`); both commands declare them.
      const options = command.optsWithGlobals<FilterOptions & { format: 'jsonl' | 'csv' }>();
      const filter = filterOf(options);
      const core = await ctx.getCore();
      for await (const chunk of core.history.exportStream(filter, options.format)) ctx.io.stdout(chunk);
    });

  program
    .command('metrics')
    .description('Call count, error rate and latency percentiles per tool or server')
    .option('--since <age>', 'window: 15m, 1h, 24h, 7d', parseAge, 3_600_000)
    .addOption(new Option('--by <group>', 'group the calls by tool, by server, or by replica (the Tooldeck process that recorded them)').choices(['tool', 'server', 'replica']).default('tool'))
    .option('--replica <name>', 'only calls this replica (Tooldeck process) recorded', replicaFilter)
    .option('--json', 'print JSON')
    .action(async (options: { since: number; by: string; replica?: string; json?: boolean }) => {
      const contract = await contractFor(await ctx.getCore());
      const until = Date.now();
      const groups = await contract.metrics.breakdown({ since: until - options.since, until, by: options.by === 'tool' ? 'tool' : options.by === 'replica' ? 'replica' : 'source', ...(options.replica ? { filter: { replica: options.replica } } : {}) });
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(groups)}\n`);
      if (groups.length === 0) return ctx.io.stdout('No calls in that window.\n');
      ctx.io.stdout(`${'group'.padEnd(44)} ${'calls'.padStart(7)} ${'errors'.padStart(7)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'p99'.padStart(9)}\n`);
      for (const g of groups) {
        ctx.io.stdout(`${safeForTerminal(g.group.key, 200).padEnd(44)} ${String(g.count).padStart(7)} ${`${(g.errorRate * 100).toFixed(1)}%`.padStart(7)} ${fmtMs(g.p50).padStart(9)} ${fmtMs(g.p95).padStart(9)} ${fmtMs(g.p99).padStart(9)}\n`);
      }
    });
}
