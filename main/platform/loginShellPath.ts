import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { delimiter as pathDelimiter } from 'node:path';
import { userInfo } from 'node:os';

export interface LoginShellPathOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** The shell to ask; default `$SHELL`, else the account's login shell, else /bin/sh. */
  shell?: string;
  /** A shell whose profile hangs must not hold the app back (default 5 s). */
  timeoutMs?: number;
}

export interface LoginShellPath {
  /** The PATH to use: the login shell's entries first, then the inherited ones it lacks. */
  path: string;
  source: 'login-shell' | 'inherited';
  /** Why the inherited PATH was kept (timeout, no shell, Windows). */
  reason?: string;
  /** Entries the login shell added to the inherited PATH. */
  added: string[];
}

/**
 * The PATH the user's terminal has. An app started from Finder, the Dock or a desktop launcher
 * inherits a bare PATH (`/usr/bin:/bin:/usr/sbin:/sbin` on macOS), without Homebrew, nvm, ~/.local/bin
 * or Docker Desktop, so `npx`, `uvx`, `docker` and kubeconfig exec plugins are "not found". Asked
 * once at start, as terminals and editors do: an interactive login shell (`-ilc`, so both profile
 * and rc files run) prints PATH between two random markers, which keeps banners and prompts that
 * profiles print out of the answer. Windows GUI apps inherit the user's PATH and are left alone.
 */
export async function resolveLoginShellPath(options: LoginShellPathOptions = {}): Promise<LoginShellPath> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const inherited = env.PATH ?? '';
  const keep = (reason: string): LoginShellPath => ({ path: inherited, source: 'inherited', reason, added: [] });
  if (platform === 'win32') return keep('Windows apps inherit the user PATH');
  const shell = options.shell ?? env.SHELL ?? accountShell() ?? '/bin/sh';
  const marker = `__TOOLDECK_PATH_${randomUUID().replaceAll('-', '')}__`;
  let output: string;
  try {
    output = await runShell(shell, ['-ilc', `printf '%s' '${marker}'; printenv PATH; printf '%s' '${marker}'`], env, options.timeoutMs ?? 5_000, marker);
  } catch (error) {
    return keep((error as Error).message);
  }
  const match = output.split(marker);
  const fromShell = match.length >= 3 ? match[1]!.trim() : '';
  if (!fromShell) return keep(`${shell} printed no PATH`);
  const path = mergePathLists(fromShell, inherited, ':');
  const before = new Set(inherited.split(':'));
  return { path, source: 'login-shell', added: path.split(':').filter((entry) => !before.has(entry)) };
}

/** Entries of `first`, then those of `second` not already present; empty entries (the current directory) are dropped. */
export function mergePathLists(first: string, second: string, delimiter: string = pathDelimiter): string {
  const seen = new Set<string>();
  const merged: string[] = [];
  for (const entry of [...first.split(delimiter), ...second.split(delimiter)]) {
    if (!entry || seen.has(entry)) continue;
    seen.add(entry);
    merged.push(entry);
  }
  return merged.join(delimiter);
}

function accountShell(): string | undefined {
  try {
    return userInfo().shell ?? undefined;
  } catch {
    return undefined;
  }
}

function runShell(shell: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, marker: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Its own process group, so helpers a profile starts (ssh-agent, tmux) are ended with it.
    const child = spawn(shell, args, {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
      // Frameworks that update themselves or start tmux from the profile are told not to.
      env: { ...env, DISABLE_AUTO_UPDATE: 'true', ZSH_TMUX_AUTOSTART: 'false', ZSH_TMUX_AUTOSTARTED: 'true' },
    });
    let output = '';
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child.pid);
      settle();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`${shell} did not answer within ${timeoutMs} ms`))), timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      // A profile that floods stdout is cut off; PATH is never this long.
      if (output.length < 1_000_000) output += chunk;
      // The answer is complete at the second marker: a background helper holding stdout open must not delay it.
      if (output.split(marker).length >= 3) finish(() => resolve(output));
    });
    child.on('error', (error) => finish(() => reject(new Error(`${shell} could not be started: ${error.message}`))));
    child.on('close', () => finish(() => resolve(output)));
  });
}

function killGroup(pid: number | undefined) {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
