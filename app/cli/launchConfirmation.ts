import { createInterface } from 'node:readline/promises';
import type { LaunchConfirmer } from '../../main/resources/LocalReconciler';
import type { CliIo } from './CliIo';
import { safeForTerminal } from './terminalText';

export interface LaunchQuestionOptions {
  io: CliIo;
  /** `--yes` was given to the command that runs. */
  assumeYes: () => boolean;
  /** Where the answer is read from: asked only when it is a terminal. */
  input: NodeJS.ReadableStream & { isTTY?: boolean };
}

/**
 * How the command line decides on a workspace command line the user has not confirmed for its
 * folder: `--yes` confirms it, a terminal is asked (y/N), and otherwise it is not started (the
 * command then ends with exit code 2 and the exact line). Questions are asked one at a time.
 */
export function askToLaunch({ io, assumeYes, input }: LaunchQuestionOptions): LaunchConfirmer {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const answer = queue.then(async () => {
      if (assumeYes()) return true;
      if (!input.isTTY) return false;
      io.stderr(
        `McpServer ${safeForTerminal(request.server, 200)} of ${safeForTerminal(request.folder)} starts a command not confirmed for that folder:\n  ${safeForTerminal(request.line)}\nRun it, now and whenever this folder starts it (y/N)? `,
      );
      const rl = createInterface({ input, terminal: false });
      try {
        return /^\s*y(es)?\s*$/i.test(await rl.question(''));
      } finally {
        rl.close();
      }
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
}
