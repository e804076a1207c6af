import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { defaultDataDir } from '../../main/platform/dataDir';
import { CONFIRM_LAUNCH_STEP, isAppError, reasonOf } from '../../shared/errors';
import { issuesSentence, validationIssues } from '../../shared/issuesSentence';
import { APP_VERSION } from '../common/appVersion';
import { CliContext, CliExit, ExitCode, type CliIo } from './CliContext';
import { registerA2a } from './commands/a2a';
import { registerCall } from './commands/call';
import { registerCompile } from './commands/compile';
import { registerGrpc } from './commands/grpc';
import { registerHistory } from './commands/history';
import { registerInfo } from './commands/info';
import { registerKube } from './commands/kube';
import { registerLint } from './commands/lint';
import { registerLock } from './commands/lock';
import { registerMcp } from './commands/mcp';
import { registerOperator } from './commands/operator';
import { registerResources } from './commands/resources';
import { registerRun } from './commands/run';
import { registerSearch } from './commands/search';
import { registerServe } from './commands/serve';
import { parseFolder } from './options';
import { terminalMessage, terminalSafeIo } from './terminalText';

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Exit codes for a command ended by a signal, as shells report them (128 + the signal number). */
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Runs the CLI with argv (without node and script) and returns the exit code; calls process.exit
 * only for a second SIGINT/SIGTERM while the first is still being handled.
 */
export async function runCli(argv: string[], streams: CliIo = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // One choke point for everything any command, commander or an error handler writes: names, paths
  // and messages from lock files, workspaces and peers never reach the terminal as control
  // characters, whichever command forgot to make them safe.
  const io = terminalSafeIo(streams);
  const program = new Command('tooldeck');
  const ctx = new CliContext(io, () => {
    const dir = program.opts<{ dataDir?: string }>().dataDir;
    return dir ? defaultDataDir({ ...env, TOOLDECK_DATA_DIR: dir }) : defaultDataDir(env);
  });
  let interruptedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruptedBy) {
      io.stderr(`${signal} again: exiting now.\n`);
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    interruptedBy = signal;
    ctx.interrupt(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const code = await runProgram(program, ctx, argv, io);
    // A service (the operator) ends on a signal by design; its own exit code says how it went.
    return interruptedBy && !ctx.isService ? (SIGNAL_EXIT[interruptedBy] ?? 1) : code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function runProgram(program: Command, ctx: CliContext, argv: string[], io: CliIo): Promise<number> {
  program
    .description('Operations console for agent tools')
    .version(APP_VERSION, '-v, --version')
    .option('--data-dir <dir>', 'data directory (env TOOLDECK_DATA_DIR)', parseFolder)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run with --help for usage)');
  registerInfo(program, ctx);
  registerServe(program, ctx);
  registerMcp(program, ctx);
  registerGrpc(program, ctx);
  registerCall(program, ctx);
  registerSearch(program, ctx);
  registerCompile(program, ctx);
  registerA2a(program, ctx);
  registerKube(program, ctx);
  registerOperator(program, ctx);
  registerHistory(program, ctx);
  registerRun(program, ctx);
  registerResources(program, ctx);
  registerLock(program, ctx);
  registerLint(program, ctx);

  try {
    // An interrupted command is not waited for: whatever it still holds (a connect under way, a
    // call) is ended by closing the core below. A service is: it stops itself, gracefully.
    const command = program.parseAsync(argv, { from: 'user' });
    const interruption = whenAborted(ctx.interrupted).catch((reason: unknown) => {
      if (ctx.isService) return command;
      throw reason;
    });
    try {
      await Promise.race([command, interruption]);
    } catch (error) {
      // A call the interruption canceled says so itself, in a moment; then the core is closed.
      if (ctx.interrupted.aborted && !ctx.isService) await Promise.race([command.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 300))]);
      throw error;
    }
    return ExitCode.Ok;
  } catch (error) {
    if (ctx.interrupted.aborted && !ctx.isService) {
      io.stderr(`${(ctx.interrupted.reason as Error).message}: calls canceled, servers ended.\n`);
      return ExitCode.Failed;
    }
    if (error instanceof CommanderError) {
      // commander printed its own errors; an InvalidArgumentError thrown from an action was not.
      if (error instanceof InvalidArgumentError) io.stderr(`error: ${terminalMessage(error.message)}\n`);
      // --help and --version end through exitOverride with exit code 0.
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    if (error instanceof CliExit) {
      if (error.message) io.stderr(`${terminalMessage(error.message)}\n`);
      return error.exitCode;
    }
    if (isAppError(error) && error.step === CONFIRM_LAUNCH_STEP) {
      // Nobody could be asked (no terminal, or the answer was no): the exact lines, and how to say yes.
      io.stderr(`Not started: ${terminalMessage(error.message)}\nRun the command on a terminal to be asked, or confirm for this folder with: tooldeck reconcile --once --yes\n`);
      return ExitCode.Usage;
    }
    if (isAppError(error)) {
      io.stderr(`${error.code}: ${terminalMessage(reasonOf(error))}\n`);
      return error.code === 'ConnectionFailed' ? ExitCode.CannotConnect : error.code === 'InvalidArguments' || error.code === 'InvalidInput' ? ExitCode.Usage : ExitCode.Failed;
    }
    // Input a service refused by its schema: one line naming each field, never zod's JSON dump.
    const issues = validationIssues(error);
    if (issues) {
      io.stderr(`${terminalMessage(issuesSentence(issues))}\n`);
      return ExitCode.Usage;
    }
    io.stderr(`Error: ${terminalMessage(reasonOf(error, String(error)))}\n`);
    return ExitCode.Failed;
  } finally {
    await ctx.close();
  }
}

function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
