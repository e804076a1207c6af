import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const APP_DIR_NAME = 'Tooldeck';

/**
 * The platform's app-data folder, the same one Electron uses for `userData`, so the desktop app,
 * browser mode and the CLI share saved servers, history and secrets.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.TOOLDECK_DATA_DIR) return resolve(env.TOOLDECK_DATA_DIR);
  const home = homedir();
  switch (platform) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', APP_DIR_NAME);
    case 'win32':
      return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
    default:
      return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), APP_DIR_NAME);
  }
}
