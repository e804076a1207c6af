import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv'];
let setprivPath: string | null | undefined;

function findSetpriv(): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = process.platform === 'linux' ? (SETPRIV_CANDIDATES.find(isExecutable) ?? null) : null;
  return setprivPath;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `command` would be found, the way a shell's PATH lookup finds it; undefined when nowhere. */
export function resolveExecutable(command: string, pathVariable: string | undefined, cwd?: string): string | undefined {
  if (command.includes('/')) {
    const path = isAbsolute(command) || !cwd ? command : join(cwd, command);
    return isExecutable(path) ? path : undefined;
  }
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/**
 * The argv that starts `command` so the kernel ends it when Tooldeck dies, even by SIGKILL (Linux:
 * util-linux `setpriv --pdeathsig KILL`, which then execs the command in its own place, same pid).
 * Node has no API for a parent-death signal. Elsewhere, or when setpriv is missing or the command
 * cannot be found (so the spawn error stays "command not found"), the command runs as it is: a
 * graceful exit still ends it, SIGKILL cannot (README, "Processes").
 */
export function withParentDeathSignal(command: string, args: readonly string[], pathVariable: string | undefined, cwd?: string): { command: string; args: string[] } {
  const setpriv = findSetpriv();
  const resolved = setpriv ? resolveExecutable(command, pathVariable, cwd) : undefined;
  if (!setpriv || !resolved) return { command, args: [...args] };
  return { command: setpriv, args: ['--pdeathsig', 'KILL', '--', resolved, ...args] };
}
