import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { defaultDataDir } from '../../main/platform/dataDir';
import { CONFIRM_LAUNCH_STEP, isAppError, reasonOf } from '../../shared/errors';
import { issuesSentence, validationIssues } from '../../shared/issuesSentence';
import { APP_VERSION } from '../common/appVersion';
import { CliContext, CliExit, ExitCode, type CliIo } from './CliContext';
import { addHistoryOptions } from './historyOptions';
import { parseFolder } from './options';
import { terminalMessage, terminalSafeIo } from './terminalText';

type RegisterCommands = (program: Command, ctx: CliContext) => void;
type CommandModule = () => Promise<RegisterCommands>;

// Each command's module (and what it imports: the schemas, clients and services it uses) is
// loaded only when that command runs: a short command's start-up is mostly loading modules.
const info: CommandModule = async () => (await import('./commands/info')).registerInfo;
const serve: CommandModule = async () => (await import('./commands/serve')).registerServe;
const mcp: CommandModule = async () => (await import('./commands/mcp')).registerMcp;
const grpc: CommandModule = async () => (await import('./commands/grpc')).registerGrpc;
const call: CommandModule = async () => (await import('./commands/call')).registerCall;
const search: CommandModule = async () => (await import('./commands/search')).registerSearch;
const compile: CommandModule = async () => (await import('./commands/compile')).registerCompile;
const a2a: CommandModule = async () => (await import('./commands/a2a')).registerA2a;
const kube: CommandModule = async () => (await import('./commands/kube')).registerKube;
const operator: CommandModule = async () => (await import('./commands/operator')).registerOperator;
const history: CommandModule = async () => (await import('./commands/history')).registerHistory;
const run: CommandModule = async () => (await import('./commands/run')).registerRun;
const resources: CommandModule = async () => (await import('./commands/resources')).registerResources;
const lock: CommandModule = async () => (await import('./commands/lock')).registerLock;
const lint: CommandModule = async () => (await import('./commands/lint')).registerLint;
const gateway: CommandModule = async () => (await import('./commands/gateway')).registerGateway;
const bus: CommandModule = async () => (await import('./commands/bus')).registerBus;
const approvals: CommandModule = async () => (await import('./commands/approvals')).registerApprovals;
const providers: CommandModule = async () => (await import('./commands/providers')).registerProviders;
const agents: CommandModule = async () => (await import('./commands/agents')).registerAgents;
const evalSuites: CommandModule = async () => (await import('./commands/eval')).registerEval;
const registry: CommandModule = async () => (await import('./commands/registry')).registerRegistry;

/** Every command module, in the order `tooldeck --help` lists their commands. */
const COMMAND_MODULES: readonly CommandModule[] = [info, serve, gateway, agents, bus, approvals, providers, evalSuites, mcp, registry, grpc, call, search, compile, a2a, kube, operator, history, run, resources, lock, lint];

/** The module registering each top-level command (program.test.ts checks it against what they register). */
export const COMMAND_MODULE_OF: Readonly<Record<string, CommandModule>> = {
  info,
  serve,
  gateway,
  agents,
  bus,
  mcp,
  registry,
  grpc,
  call,
  search,
  compile,
  a2a,
  kube,
  operator,
  history,
  metrics: history,
  run,
  validate: resources,
  apply: resources,
  reconcile: resources,
  lock,
  lint,
  approvals,
  providers,
  eval: evalSuites,
};

/**
 * The command modules `argv` needs: the one registering the command it names; none for a bare
 * `--version`; all of them otherwise (help, which lists every command, and a mistyped name, which
 * gets a suggestion).
 */
export function commandModulesFor(argv: readonly string[]): readonly CommandModule[] {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--data-dir') i++;
    else if (!word.startsWith('-')) return Object.hasOwn(COMMAND_MODULE_OF, word) ? [COMMAND_MODULE_OF[word]!] : COMMAND_MODULES;
  }
  return argv.length > 0 && argv.every((word) => word === '--version' || word === '-v') ? [] : COMMAND_MODULES;
}

/** The first word of argv that is not an option (nor --data-dir's value): the command. */
function commandWordOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data-dir') i++;
    else if (!argv[i]!.startsWith('-')) return argv[i];
  }
  return undefined;
}

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
    const code = await runProgram(program, ctx, argv, io, env);
    // A service (the operator) ends on a signal by design; its own exit code says how it went.
    return interruptedBy && !ctx.isService ? (SIGNAL_EXIT[interruptedBy] ?? 1) : code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function runProgram(program: Command, ctx: CliContext, argv: string[], io: CliIo, env: NodeJS.ProcessEnv): Promise<number> {
  program
    .description('Operations console for agent tools')
    .version(APP_VERSION, '-v, --version')
    .option('--data-dir <dir>', 'data directory (env TOOLDECK_DATA_DIR)', parseFolder)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run with --help for usage)');
  for (const register of await Promise.all(commandModulesFor(argv).map((load) => load()))) register(program, ctx);
  addHistoryOptions(program, ctx, env, argv);
  // `registry show|install --version V` names a server's version: for that command the program's own
  // options (--version, --data-dir) are read before the command name only, so the two never meet.
  if (commandWordOf(argv) === 'registry') program.enablePositionalOptions();

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
