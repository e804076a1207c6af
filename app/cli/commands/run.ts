import { statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { Collection, RequestResult, RunSummary } from '../../../shared/collections';
import { isAppError } from '../../../shared/errors';
import type { Core } from '../../../main/core';
import { writeFileAtomic } from '../../../main/platform/atomicWrite';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { integerIn } from '../options';
import { jsonForTerminal, safeForTerminal } from '../terminalText';
import { parseDurationOption, parseRps, runLoad, type LoadCommandOptions, type Reporter } from './runLoad';

interface RunCommandOptions extends Partial<Omit<LoadCommandOptions, 'reporter'>> {
  env?: string;
  reporter: Reporter;
  bail?: boolean;
  output?: string;
  load?: boolean;
}

/** Up to 64 for a pass through the collection, up to 1,000 for a load run: the mode's limit is checked in checkMode. */
const parseConcurrency = integerIn(1, 1_000);

const collect = (value: string, previous: string[] = []) => [...previous, value];

const LOAD_ONLY = { rps: '--rps', duration: '--duration', rampUp: '--ramp-up', threshold: '--threshold', perReplica: '--per-replica', kubeconfig: '--kubeconfig', context: '--context', namespace: '--namespace' } as const;

/** Flags of the other mode are usage errors rather than silently ignored. */
function checkMode(options: RunCommandOptions) {
  if (!options.load) {
    const stray = Object.entries(LOAD_ONLY).find(([key]) => options[key as keyof RunCommandOptions] !== undefined);
    if (stray) throw new CliExit(ExitCode.Usage, `${stray[1]} goes with --load`);
    if (options.concurrency !== undefined && options.concurrency > 64) throw new CliExit(ExitCode.Usage, '--concurrency: a whole number from 1 to 64 (up to 1000 with --load)');
    return;
  }
  if (options.bail) throw new CliExit(ExitCode.Usage, '--bail does not go with --load: a load run sends every request it scheduled');
  if (options.rps === undefined || options.duration === undefined) throw new CliExit(ExitCode.Usage, '--load needs --rps and --duration, e.g. --load --rps 50 --duration 30s');
  if (!options.perReplica && (options.kubeconfig || options.context || options.namespace)) throw new CliExit(ExitCode.Usage, '--kubeconfig, --context and --namespace go with --per-replica');
}

/** A path (has a separator or a collection file extension, or exists) is read as a file; anything else is a saved collection's name. */
function looksLikeFile(arg: string): boolean {
  return /[\\/]/.test(arg) || /\.(ya?ml|json)$/i.test(arg) || statSync(arg, { throwIfNoEntry: false })?.isFile() === true;
}

/** The collection modules (YAML, JSONPath, the runner) load only when `run` runs, not for every command. */
const collectionModules = () =>
  Promise.all([import('../../../main/collections/loadCollectionFile'), import('../../../main/collections/loadEnvironmentFile')]).then(([collectionFile, environmentFile]) => ({
    ...collectionFile,
    ...environmentFile,
  }));

async function loadCollection(ctx: CliContext, arg: string): Promise<{ collection: Collection; core: Core }> {
  const { loadCollectionFile } = await collectionModules();
  try {
    // A file is read before the core is built, so a bad file never touches the data dir.
    if (looksLikeFile(arg)) {
      const collection = await loadCollectionFile(resolve(arg));
      return { collection, core: await ctx.getCore() };
    }
    const core = await ctx.getCore();
    return { collection: (await core.collections.store.read(arg)).collection, core };
  } catch (error) {
    if (isAppError(error) && (error.code === 'NotFound' || error.code === 'InvalidInput')) throw new CliExit(ExitCode.Usage, error.message);
    throw error;
  }
}

const mark: Record<RequestResult['status'], string> = { passed: '✓', failed: '✗', errored: '!', skipped: '-' };

function prettyResult(result: RequestResult): string {
  const head = `  ${mark[result.status]} ${safeForTerminal(result.name, 200)}`;
  if (result.status === 'skipped') return `${head} — skipped: ${safeForTerminal(result.reason ?? 'not run', 400)}`;
  const lines = [`${head}  ${formatMs(result.durationMs)}${result.duplicate ? '  (duplicate call)' : ''}`];
  if (result.error) lines.push(`      ${result.error.code}: ${safeForTerminal(result.error.message, 400)}`);
  for (const a of result.assertions) {
    if (a.passed) continue;
    lines.push(`      ✗ ${safeForTerminal(a.description, 200)} — ${safeForTerminal(a.message, 400)}`);
    if (a.actual !== undefined) lines.push(`        actual: ${safeForTerminal(JSON.stringify(a.actual) ?? 'undefined', 400)}`);
  }
  return lines.join('\n');
}

function prettySummary(summary: RunSummary): string {
  const r = summary.requests;
  const a = summary.assertions;
  return [
    `Requests: ${r.passed} passed, ${r.failed} failed, ${r.errored} errored, ${r.skipped} skipped of ${r.total}`,
    `Assertions: ${a.passed} of ${a.total} passed`,
    `Run ${summary.runId} in ${formatMs(summary.durationMs)}${summary.canceled ? ' (canceled)' : ''}`,
  ].join('\n');
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

async function report(summary: RunSummary, reporter: Reporter, pretty: string[]): Promise<string> {
  if (reporter === 'junit') return (await import('../../../main/collections/junitReport')).junitReport([summary]);
  if (reporter === 'json') return `${jsonForTerminal(summary)}\n`;
  return `${pretty.join('\n')}\n`;
}

/** `tooldeck run <collection>`: exit 0 when every assertion passes, 1 otherwise, 2 usage, 3 cannot connect. */
export function registerRun(program: Command, ctx: CliContext) {
  program
    .command('run <collection>')
    .description('Run a collection (a YAML/JSON file or a saved collection name) through the invocation pipeline')
    .option('--env <file>', 'environment file (YAML or JSON key/values) overriding the collection variables')
    .addOption(new Option('--reporter <kind>', 'report format').choices(['pretty', 'json', 'junit']).default('pretty'))
    .option('--bail', 'stop at the first request that does not pass')
    .option('--yes', 'confirm, for this run, the requests the collection marks confirmed: true (the file alone confirms nothing)')
    .option('--concurrency <n>', 'requests in flight at once (default 1; with --load, 100): captures still wait for their source', parseConcurrency)
    .option('--output <file>', 'write the report to this file; progress still prints')
    .option('--load', 'a load run: send the requests (in turn) at a constant rate; latency from each intended send time')
    .option('--rps <n>', 'with --load: arrivals per second', parseRps)
    .option('--duration <time>', 'with --load: how long to send, e.g. 30s, 2m', parseDurationOption)
    .option('--ramp-up <time>', 'with --load: climb linearly to --rps over this first part of the duration', parseDurationOption)
    .option('--threshold <expr>', 'with --load: e.g. "p95<200ms", "p99.9<1s", "error_rate<1%", "rps>=45" (repeatable); exit 1 when one fails', collect)
    .option('--per-replica', 'with --load: send the load to each ready pod of each LanguageTool the requests target (mcp:<tool>), through the API server')
    .option('--kubeconfig <file>', 'with --per-replica: kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'with --per-replica: kubeconfig context')
    .option('-n, --namespace <name>', "with --per-replica: the LanguageTools' namespace (default: the context's)")
    .action(async (arg: string, options: RunCommandOptions) => {
      checkMode(options);
      const { loadEnvironmentFile } = await collectionModules();
      const environment = options.env ? await loadEnvironmentFile(options.env).catch((error: Error) => Promise.reject(new CliExit(ExitCode.Usage, error.message))) : {};
      const { collection, core } = await loadCollection(ctx, arg);
      const marked = collection.requests.filter((request) => request.confirmed === true).length;
      if (marked > 0 && !options.yes) {
        ctx.io.stderr(`note: ${marked} request${marked === 1 ? ' is' : 's are'} marked confirmed: true; the file alone confirms nothing — pass --yes to confirm ${marked === 1 ? 'it' : 'them'} for this run.\n`);
      }
      if (options.load) return runLoad(ctx, collection, core, environment, options as LoadCommandOptions);
      // Progress goes to stdout unless stdout carries a machine-readable report.
      const showProgress = options.reporter === 'pretty' || options.output !== undefined;
      const pretty: string[] = [];
      const say = (line: string) => {
        pretty.push(line);
        if (showProgress) ctx.io.stdout(`${line}\n`);
      };

      const run = core.collections.run(collection, { environment, concurrency: options.concurrency ?? 1, bail: options.bail ?? false, confirm: options.yes === true });
      ctx.interrupted.addEventListener('abort', () => run.cancel(), { once: true });
      say(`${safeForTerminal(collection.name, 200)} — ${collection.requests.length} request${collection.requests.length === 1 ? '' : 's'}`);
      for await (const event of run) {
        if (event.type === 'request-finished') say(prettyResult(event.result));
      }
      const summary = await run.summary;
      for (const failure of summary.connectFailures) say(`Cannot connect ${safeForTerminal(failure.target, 200)}: ${failure.error.code}: ${safeForTerminal(failure.error.message, 400)}`);
      say(prettySummary(summary));

      const text = await report(summary, options.reporter, pretty);
      if (options.output) {
        await mkdir(dirname(resolve(options.output)), { recursive: true });
        await writeFileAtomic(options.output, text);
      } else if (options.reporter !== 'pretty') {
        ctx.io.stdout(text);
        ctx.io.stderr(`${prettySummary(summary)}\n`);
      }

      if (summary.connectFailures.length) throw new CliExit(ExitCode.CannotConnect, `Cannot connect: ${summary.connectFailures.map((f) => safeForTerminal(f.target, 200)).join(', ')}`);
      if (!summary.ok) throw new CliExit(ExitCode.Failed, `${summary.requests.total - summary.requests.passed} of ${summary.requests.total} requests did not pass`);
    });
}
