import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { isAppError } from '../../../shared/errors';
import { EvalReport } from '../../../shared/evals';
import { writeFileAtomic } from '../../../main/platform/atomicWrite';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { excerpt, safeForTerminal } from '../terminalText';

interface EvalFlags {
  model: string[];
  iterations?: number;
  threshold: number;
  reporter: 'pretty' | 'json' | 'junit';
  out?: string;
  baseline?: string;
  execute: boolean;
  workspace?: string;
  yes?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function parseIterations(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 100) throw new InvalidArgumentError('--iterations must be a whole number from 1 to 100.');
  return number;
}

function parseThreshold(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1) throw new InvalidArgumentError('--threshold must be a pass rate from 0 to 1 (e.g. 0.8).');
  return number;
}

/**
 * `tooldeck eval FILE`: an eval suite run case × model × iteration through the mediation engine
 * (tool calls through the pipeline as the operator via `eval`, or answered with a placeholder with
 * `--no-execute`). Exit 0 when every case reaches the threshold, 1 when one does not, 2 on bad input.
 */
export function registerEval(program: Command, ctx: CliContext) {
  program
    .command('eval <file>')
    .description('Run an eval suite (evals/*.yml): does each model pick the right tool? Exit 1 when a case’s pass rate is below the threshold')
    .option('--model <provider/model>', 'a model to evaluate (repeat for several); its provider from tooldeck providers', collect)
    .option('--iterations <n>', 'runs of each case per model (default: the suite’s)', parseIterations)
    .option('--threshold <rate>', 'a case passes when its pass rate reaches this (0–1)', parseThreshold, 1)
    .addOption(new Option('--reporter <reporter>', 'pretty, json (accuracy and cases[]) or junit (XML for CI)').choices(['pretty', 'json', 'junit']).default('pretty'))
    .option('--out <file>', 'write the report to this file (the summary still goes to standard output)')
    .option('--baseline <file>', 'an earlier JSON report: print each case’s change against it')
    .option('--no-execute', 'answer tool calls with a placeholder instead of running them (for destructive tools)')
    .option('--workspace <dir>', 'the workspace whose agents and servers the suite uses (default: the folder holding evals/, else the console’s)')
    .option('--yes', 'start the workspace’s servers without asking to confirm their command lines')
    .action(async (file: string, flags: EvalFlags) => {
      const path = resolve(file);
      if (!flags.model || flags.model.length === 0) throw new CliExit(ExitCode.Usage, 'Name at least one model to evaluate: --model provider/model (providers: tooldeck providers list).');
      const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new CliExit(ExitCode.Usage, `Cannot read ${safeForTerminal(path)}: ${error.code === 'ENOENT' ? 'no such file' : (error.code ?? error.message)}.`);
      });
      const { loadEvalSuite } = await import('../../../main/evals/loadEvalSuite');
      const suite = usage(() => loadEvalSuite(text, file));
      const baseline = flags.baseline ? await readBaseline(resolve(flags.baseline)) : undefined;
      const workspace = flags.workspace ?? (basename(dirname(path)) === 'evals' ? dirname(dirname(path)) : undefined);
      if (workspace) ctx.useWorkspace(workspace);
      if (flags.yes) ctx.confirmLaunchesWithoutAsking();
      const core = await ctx.getCore();
      const { runEvalSuite } = await import('../../../main/evals/EvalRunner');
      const { baselineChanges, prettyReport, renderReport } = await import('../../../main/evals/evalReporters');
      const report = await runEvalSuite(core.evals.runnerDeps, suite, {
        models: flags.model,
        ...(flags.iterations ? { iterations: flags.iterations } : {}),
        threshold: flags.threshold,
        execute: flags.execute,
        signal: ctx.interrupted,
        // Every source was connected first (a bounded wait); the run goes on with the tools of those that did.
        onNotConnected: (sources, sentence) => ctx.io.stderr(`${excerpt(sentence, 2000)}${confirmHint(sources.flatMap((source) => source.launchLines ?? []), flags)}\n`),
        onRun: ({ case: name, model, run }) => ctx.io.stderr(`${run.passed ? 'pass' : 'FAIL'} ${safeForTerminal(name, 200)} [${safeForTerminal(model, 200)}] run ${run.iteration}${run.error ? `: ${excerpt(run.error, 300)}` : ''}\n`),
      }).catch((error: unknown) => {
        if (isAppError(error) && error.code === 'InvalidInput') throw new CliExit(ExitCode.Usage, `${error.message}${confirmHint(error.details ?? [], flags)}`);
        throw error;
      });
      const rendered = renderReport(report, flags.reporter);
      if (flags.out) {
        const out = resolve(flags.out);
        await writeFileAtomic(out, rendered, 0o644).catch((error: NodeJS.ErrnoException) => {
          throw new CliExit(ExitCode.Failed, `Cannot write ${safeForTerminal(out)}: ${error.code ?? error.message}`);
        });
        ctx.io.stdout(prettyReport(report));
        ctx.io.stderr(`report written to ${safeForTerminal(out)}\n`);
      } else ctx.io.stdout(rendered);
      // With a JSON or JUnit report on standard output, the comparison goes to standard error so the report stays parseable.
      if (baseline) (flags.out || flags.reporter === 'pretty' ? ctx.io.stdout : ctx.io.stderr)(baselineChanges(report, baseline));
      if (report.cases.some((result) => !result.passed)) throw new CliExit(ExitCode.Failed, '');
    });
}

function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (isAppError(error) && error.code === 'InvalidInput') throw new CliExit(ExitCode.Usage, error.message);
    throw error;
  }
}

async function readBaseline(path: string): Promise<EvalReport> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliExit(ExitCode.Usage, `Cannot read the baseline ${safeForTerminal(path)}: ${error.code === 'ENOENT' ? 'no such file' : (error.code ?? error.message)}.`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliExit(ExitCode.Usage, `The baseline ${safeForTerminal(path)} is not JSON: write it with --reporter json --out FILE.`);
  }
  const parsed = EvalReport.safeParse(json);
  if (!parsed.success) throw new CliExit(ExitCode.Usage, `The baseline ${safeForTerminal(path)} is not an eval report (${parsed.error.issues[0]!.path.join('.') || 'value'}: ${parsed.error.issues[0]!.message}): write it with --reporter json --out FILE.`);
  return parsed.data;
}

/** Workspace servers held back because their command lines are not confirmed for the folder: the way on. */
function confirmHint(lines: readonly string[], flags: EvalFlags): string {
  if (lines.length === 0 || flags.yes) return '';
  return ` Run with --yes to start ${lines.length === 1 ? 'that server' : 'those servers'} (${lines.length === 1 ? 'its command line is' : 'their command lines are'} then confirmed for the folder), or confirm in Resources.`;
}
