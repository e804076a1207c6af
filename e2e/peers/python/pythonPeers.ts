import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const requirements = join(import.meta.dirname, 'requirements.txt');

/**
 * A virtualenv with the Python peers pinned in requirements.txt, built once and cached under
 * ~/.cache/tooldeck (keyed by the requirements' hash). Returns the venv's bin directory.
 */
export function ensurePythonPeers(): string {
  const hash = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 16);
  const venv = join(process.env.TOOLDECK_CACHE_DIR || join(homedir(), '.cache', 'tooldeck'), 'python-peers', hash);
  const bin = join(venv, 'bin');
  const stamp = join(venv, '.installed');
  if (existsSync(stamp)) return bin;
  // Test files run in parallel workers: one builds, the others wait for its stamp.
  const lock = `${venv}.lock`;
  mkdirSync(dirname(venv), { recursive: true });
  while (!tryLock(lock)) {
    if (existsSync(stamp)) return bin;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  }
  try {
    if (existsSync(stamp)) return bin;
    build(venv, bin, stamp);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return bin;
}

/** Takes the build lock (an atomic mkdir); a lock left by a build that died 20 minutes ago is taken over. */
function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > 20 * 60_000) rmSync(lock, { recursive: true, force: true });
    } catch {
      // Gone meanwhile: the next try takes it.
    }
    return false;
  }
}

function build(venv: string, bin: string, stamp: string) {
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(venv, { recursive: true });
  const python = process.env.PYTHON ?? 'python3';
  const steps: Array<[string, string[]]> = [
    [python, ['-m', 'venv', venv]],
    [join(bin, 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', requirements]],
  ];
  for (const [command, args] of steps) {
    const run = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000 });
    if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr || run.error?.message}`);
  }
  writeFileSync(stamp, new Date().toISOString());
}
