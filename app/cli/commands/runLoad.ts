import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { Collection } from '../../../shared/collections';
import { LoadOptions, type LatencyFigures, type LoadSummary, type LoadTick } from '../../../shared/loadRuns';
import type { Core } from '../../../main/core';
import { writeFileAtomic } from '../../../main/platform/atomicWrite';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { jsonForTerminal, safeForTerminal } from '../terminalText';

export type Reporter = 'pretty' | 'json' | 'junit';

export interface LoadCommandOptions {
  rps: number;
  duration: number;
  rampUp?: number;
  concurrency?: number;
  threshold?: string[];
  reporter: Reporter;
  output?: string;
  perReplica?: boolean;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** The operator confirms the requests the collection marks `confirmed: true`. */
  yes?: boolean;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `30s`, `2m`, `500ms`, `1h`, or a bare number of seconds → ms. */
export function parseDurationOption(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('a duration such as 30s, 2m, 500ms or 1h');
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's']!);
}

export function parseRps(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a rate above 0 (requests per second), e.g. 50 or 0.5');
  return n;
}

/** A usage error for the first thing wrong with the load settings, in the flags' own terms. */
function loadSettings(options: LoadCommandOptions, environment: Record<string, unknown>): LoadOptions {
  const parsed = LoadOptions.safeParse({
    rps: options.rps,
    durationMs: options.duration,
    rampUpMs: options.rampUp ?? 0,
    concurrency: options.concurrency,
    thresholds: options.threshold ?? [],
    environment,
    confirm: options.yes === true,
  });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const flag = { rps: '--rps', durationMs: '--duration', rampUpMs: '--ramp-up', concurrency: '--concurrency', thresholds: '--threshold' }[String(issue.path[0])] ?? 'load settings';
  const bounds = { '--rps': 'at most 10000', '--duration': 'from 1s to 1h', '--concurrency': 'from 1 to 1000' }[flag];
  throw new CliExit(ExitCode.Usage, `${flag}: ${issue.code === 'too_big' || issue.code === 'too_small' ? bounds : issue.message}`);
}

/** `tooldeck run <collection> --load …`: exit 0 when every threshold holds, 1 when one fails, 3 when a target cannot be connected. */
export async function runLoad(ctx: CliContext, collection: Collection, core: Core, environment: Record<string, unknown>, options: LoadCommandOptions): Promise<void> {
  const settings = loadSettings(options, environment);
  const showProgress = options.reporter === 'pretty' || options.output !== undefined;
  const say = (line: string) => {
    if (showProgress) ctx.io.stdout(`${line}\n`);
  };
  let release: (() => void) | undefined;
  let replicas: Parameters<Core['collections']['load']>[1]['replicas'];
  if (options.perReplica) {
    const { connectKubeTarget } = await import('../connectKubeTarget');
    const { replicaResolver } = await import('../../../main/collections/load/kubeReplicas');
    const connection = await connectKubeTarget({ kubeconfig: options.kubeconfig, context: options.context, namespace: options.namespace });
    release = () => connection.close();
    replicas = replicaResolver({ catalog: core.catalog, rest: connection.rest, namespace: options.namespace ?? connection.namespace, clientInfo: { name: 'tooldeck', version: core.deps.appVersion } });
  }
  try {
    const run = core.collections.load(collection, { ...settings, replicas });
    // SIGINT/SIGTERM stop the sending; the summary of what was sent still prints.
    const stopOnSignal = () => run.cancel();
    ctx.interrupted.addEventListener('abort', stopOnSignal, { once: true });
    say(
      `${safeForTerminal(collection.name, 200)} — ${collection.requests.length} request${collection.requests.length === 1 ? '' : 's'} at ${settings.rps}/s for ${formatSeconds(settings.durationMs)}${settings.rampUpMs ? ` (ramping up over ${formatSeconds(settings.rampUpMs)})` : ''}, at most ${settings.concurrency} in flight`,
    );
    try {
      for await (const event of run) {
        if (event.type === 'load-started' && event.replicas) say(`Replicas: ${event.replicas.map((replica) => safeForTerminal(replica, 200)).join(', ')}`);
        if (event.type === 'load-tick' && shouldPrint(event.tick, settings.durationMs)) say(tickLine(event.tick));
      }
    } finally {
      ctx.interrupted.removeEventListener('abort', stopOnSignal);
    }
    const summary = await run.summary;
    for (const line of prettyLoadSummary(summary)) say(line);

    const text = await loadReport(summary, options.reporter);
    if (options.output) {
      await mkdir(dirname(resolve(options.output)), { recursive: true });
      await writeFileAtomic(options.output, text);
    } else if (options.reporter !== 'pretty') {
      ctx.io.stdout(text);
      ctx.io.stderr(`${headline(summary)}\n`);
    }
    if (summary.connectFailures.length) throw new CliExit(ExitCode.CannotConnect, `Cannot connect: ${summary.connectFailures.map((f) => `${safeForTerminal(f.target, 200)} (${safeForTerminal(f.error.message, 400)})`).join(', ')}`);
    const failed = summary.thresholds.filter((t) => !t.passed);
    if (failed.length) throw new CliExit(ExitCode.Failed, `${failed.length} of ${summary.thresholds.length} thresholds failed: ${failed.map((t) => safeForTerminal(t.expression, 100)).join(', ')}`);
    if (summary.replicaDifferences?.length) throw new CliExit(ExitCode.Failed, `Replicas answered ${summary.replicaDifferences.length} request${summary.replicaDifferences.length === 1 ? '' : 's'} differently`);
    if (summary.canceled) throw new CliExit(ExitCode.Failed, 'The load run was stopped');
  } finally {
    release?.();
  }
}

async function loadReport(summary: LoadSummary, reporter: Reporter): Promise<string> {
  const { loadJsonReport, loadJunitReport } = await import('../../../main/collections/load/loadReport');
  if (reporter === 'junit') return loadJunitReport(summary);
  if (reporter === 'json') return `${jsonForTerminal(loadJsonReport(summary))}\n`;
  return `${prettyLoadSummary(summary).join('\n')}\n`;
}

/** Every second for short runs, every 5 or 10 s for longer ones. */
function shouldPrint(tick: LoadTick, durationMs: number): boolean {
  const every = durationMs <= 30_000 ? 1 : durationMs <= 300_000 ? 5 : 10;
  return tick.second % every === 0;
}

function tickLine(t: LoadTick): string {
  const errors = t.errors ? `  errors ${t.errors} (${codes(t.errorsByCode)})` : '';
  const backlog = t.waiting ? `  waiting ${t.waiting}` : '';
  return `  ${String(t.second).padStart(4)}s  ${String(t.completed).padStart(6)}/s done of ${String(t.asked).padStart(6)} asked  p50 ${ms(t.p50)}  p95 ${ms(t.p95)}  p99 ${ms(t.p99)}  in flight ${t.inFlight}${backlog}${errors}`;
}

function codes(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
}

function ms(value: number | null): string {
  if (value === null) return '—';
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  return `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)} ms`;
}

function formatSeconds(value: number): string {
  return value % 60_000 === 0 && value >= 60_000 ? `${value / 60_000} min` : `${Number((value / 1000).toFixed(1))} s`;
}

function percentiles(f: LatencyFigures): string {
  return `p50 ${ms(f.p50)}  p95 ${ms(f.p95)}  p99 ${ms(f.p99)}  p99.9 ${ms(f.p999)}  max ${ms(f.max)}`;
}

function headline(s: LoadSummary): string {
  return `${s.achievedRps}/s achieved of ${s.askedRps}/s asked · ${s.requests} calls · ${s.errors} errors · p95 ${ms(s.latency.p95)} · thresholds ${s.thresholds.filter((t) => t.passed).length}/${s.thresholds.length} held`;
}

export function prettyLoadSummary(s: LoadSummary): string[] {
  const lines: string[] = [];
  for (const f of s.connectFailures) lines.push(`Cannot connect ${safeForTerminal(f.target, 200)}: ${f.error.code}: ${safeForTerminal(f.error.message, 400)}`);
  if (s.sent === 0 && s.connectFailures.length) return lines;
  lines.push(
    `Throughput  ${s.achievedRps}/s achieved of ${s.askedRps}/s asked — ${s.requests} calls${s.dropped ? `, ${s.dropped} not sent (all ${s.settings.concurrency} slots were busy when the time ran out)` : ''}`,
    `Latency     ${percentiles(s.latency)}   (from the intended send time)`,
    `Service     ${percentiles(s.serviceTime)}   (from the actual send)`,
    `Errors      ${s.errors ? `${s.errors} (${codes(s.errorsByCode)}), ${((s.errors / Math.max(1, s.requests)) * 100).toFixed(2)}%` : 'none'}`,
  );
  if (s.perRequest.length > 1) {
    lines.push('Per request');
    const names = s.perRequest.map((r) => safeForTerminal(r.name, 80));
    const width = Math.max(...names.map((name) => name.length));
    for (const [i, r] of s.perRequest.entries()) lines.push(`  ${names[i]!.padEnd(width)}  ${String(r.requests).padStart(7)} calls  ${String(r.errors).padStart(5)} errors  p50 ${ms(r.latency.p50)}  p95 ${ms(r.latency.p95)}  p99 ${ms(r.latency.p99)}`);
  }
  if (s.replicas) {
    lines.push('Per replica');
    const replicaNames = s.replicas.map((r) => safeForTerminal(r.replica, 200));
    const width = Math.max(...replicaNames.map((name) => name.length));
    for (const [i, r] of s.replicas.entries()) lines.push(`  ${replicaNames[i]!.padEnd(width)}  ${String(r.achievedRps).padStart(7)}/s  ${String(r.errors).padStart(5)} errors  ${percentiles(r.latency)}`);
    if (s.replicaDifferences?.length) {
      lines.push('Replicas answered the same request differently');
      for (const d of s.replicaDifferences) {
        lines.push(`  ${safeForTerminal(d.request, 200)} ${safeForTerminal(JSON.stringify(d.arguments), 400)}`);
        for (const a of d.answers) lines.push(`    ${a.replicas.map((replica) => safeForTerminal(replica, 200)).join(', ')}: ${safeForTerminal(a.answer, 400)}`);
      }
    } else {
      lines.push('Every replica answered each request alike.');
    }
  }
  if (s.thresholds.length) {
    lines.push('Thresholds');
    for (const t of s.thresholds) lines.push(`  ${t.passed ? '✓' : '✗'} ${safeForTerminal(t.expression, 100).padEnd(20)} ${safeForTerminal(t.message, 400)}`);
  }
  lines.push(`Run ${s.runId} in ${formatSeconds(s.durationMs)}${s.canceled ? ' (stopped)' : ''}`);
  return lines;
}
