import { type Command, InvalidArgumentError, Option } from 'commander';
import { isPostgresUrl, redactedArgv } from '../../main/store/historyUrl';
import { parseReplicaName } from '../../main/store/replicaName';
import { CliExit, ExitCode, type CliContext } from './CliContext';
import { parseAge } from './options';

export const HISTORY_URL_ENV = 'TOOLDECK_HISTORY_URL';

const DAY_MS = 86_400_000;

/** The commands that record or read calls for a fleet: `gateway`, `serve`, `history` (and its `export`), `metrics`, `bus bridge`. */
const HISTORY_COMMANDS = [['gateway'], ['serve'], ['history'], ['history', 'export'], ['metrics'], ['bus', 'bridge']] as const;

function replicaName(value: string): string {
  try {
    return parseReplicaName(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function findCommand(program: Command, path: readonly string[]): Command | undefined {
  let command: Command | undefined = program;
  for (const name of path) command = command?.commands.find((c) => c.name() === name);
  return command;
}

/**
 * Adds `--history-url`, `--replica-name` and `--history-retention` to the fleet's commands (those
 * registered for this argv) and hands what they say, or TOOLDECK_HISTORY_URL, to the context
 * before the command opens the core. The URL is checked here rather than by commander, whose
 * message would repeat the value, password and all.
 */
export function addHistoryOptions(program: Command, ctx: CliContext, env: NodeJS.ProcessEnv, argv: readonly string[]): void {
  for (const path of HISTORY_COMMANDS) {
    const command = findCommand(program, path);
    if (!command) continue;
    command
      .addOption(new Option('--history-url <url>', `keep history in this PostgreSQL, shared by every replica: postgres://user:password@host:5432/db (env ${HISTORY_URL_ENV})`))
      .option('--replica-name <name>', "this process's name on the records it writes (default: the pod's name in a cluster, else the host's)", replicaName)
      .option('--history-retention <age>', 'delete calls older than this: 30d, 12w', parseAge);
  }
  program.hook('preAction', (_program, action) => {
    // With globals: `history export --history-url …` hands the option to `history`, which declares it too.
    const options = action.optsWithGlobals<{ historyUrl?: string; replicaName?: string; historyRetention?: number }>();
    const url = options.historyUrl ?? env[HISTORY_URL_ENV];
    if (url !== undefined && url !== '') {
      if (!isPostgresUrl(url)) throw new CliExit(ExitCode.Usage, `The history URL must be a PostgreSQL URL (postgres://user:password@host:5432/database); ${options.historyUrl !== undefined ? '--history-url' : HISTORY_URL_ENV} is not one.`);
      // What `ps` shows: the command line with the password masked (the environment variable keeps it out of argv altogether).
      if (options.historyUrl !== undefined) process.title = ['tooldeck', ...redactedArgv(argv)].join(' ');
    }
    ctx.useHistory({
      ...(url ? { historyUrl: url } : {}),
      ...(options.replicaName ? { replicaName: options.replicaName } : {}),
      ...(options.historyRetention ? { historyRetentionDays: options.historyRetention / DAY_MS } : {}),
      // The console shows every replica's calls as they land.
      ...(action.name() === 'serve' ? { historyLive: true } : {}),
    });
  });
}
