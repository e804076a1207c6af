import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The uv release whose `uvx` runs pypi packages in the registry tests (from PyPI, as the Python peers are). */
export const UV_VERSION = '0.13.9';

/**
 * A virtualenv holding uv (and so `uvx`), built once under ~/.cache/tooldeck/uv/<version>; returns
 * its bin folder. Debian ships no uv and its installer downloads from GitHub; PyPI serves it.
 */
export function ensureUv(): string {
  const venv = join(process.env.TOOLDECK_CACHE_DIR || join(homedir(), '.cache', 'tooldeck'), 'uv', UV_VERSION);
  const bin = join(venv, 'bin');
  const stamp = join(venv, '.installed');
  if (existsSync(stamp)) return bin;
  const lock = `${venv}.lock`;
  mkdirSync(join(venv, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(stamp)) return bin;
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    if (existsSync(stamp)) return bin;
    rmSync(venv, { recursive: true, force: true });
    const python = process.env.PYTHON ?? 'python3';
    for (const [command, args] of [
      [python, ['-m', 'venv', venv]],
      [join(bin, 'pip'), ['install', '--quiet', '--disable-pip-version-check', `uv==${UV_VERSION}`]],
    ] as const) {
      const run = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000 });
      if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr || run.error?.message}`);
    }
    writeFileSync(stamp, new Date().toISOString());
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return bin;
}
