import { resolve } from 'node:path';

export interface DesktopDataDir {
  dir: string;
  /** `flag` (--data-dir), `env` (TOOLDECK_DATA_DIR) or `default` (Electron's userData: ~/.config/Tooldeck, …). */
  source: 'flag' | 'env' | 'default';
}

/**
 * The data folder, chosen as the CLI chooses it (main/platform/dataDir.ts): `--data-dir DIR`, then
 * TOOLDECK_DATA_DIR, then the platform's app-data folder — which is Electron's `userData`, because
 * productName is Tooldeck in package.json and electron-builder.yml alike. An explicit folder also
 * becomes userData, so Chromium's own files, the single-instance lock and the logs go there too.
 */
export function desktopDataDir(argv: readonly string[], env: NodeJS.ProcessEnv, userData: string, cwd: string = process.cwd()): DesktopDataDir {
  const flag = dataDirFlag(argv);
  if (flag) return { dir: resolve(cwd, flag), source: 'flag' };
  if (env.TOOLDECK_DATA_DIR) return { dir: resolve(cwd, env.TOOLDECK_DATA_DIR), source: 'env' };
  return { dir: userData, source: 'default' };
}

function dataDirFlag(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--data-dir') return argv[i + 1] || undefined;
    if (arg.startsWith('--data-dir=')) return arg.slice('--data-dir='.length) || undefined;
  }
  return undefined;
}

/** DevTools, Reload and a stderr copy of the log: in a checkout, or with --debug / TOOLDECK_DEBUG=1. */
export function debugEnabled(argv: readonly string[], env: NodeJS.ProcessEnv, packaged: boolean): boolean {
  return !packaged || argv.includes('--debug') || env.TOOLDECK_DEBUG === '1';
}
