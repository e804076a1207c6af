import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APP_DIR_NAME, defaultDataDir } from '../../main/platform/dataDir';
import pkg from '../../package.json' with { type: 'json' };
import { desktopDataDir } from './desktopPaths';

/**
 * Electron's documented rule for `app.getPath('userData')`: the appData folder (%APPDATA% on
 * Windows, $XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on macOS) joined
 * with the app's name, which is package.json's productName when it has one, else its name.
 */
function electronUserData(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string {
  const name = (pkg as { productName?: string }).productName ?? pkg.name;
  const appData =
    platform === 'win32'
      ? (env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'))
      : platform === 'darwin'
        ? join(homedir(), 'Library', 'Application Support')
        : (env.XDG_CONFIG_HOME ?? join(homedir(), '.config'));
  return join(appData, name);
}

const builder = parse(readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8')) as { productName: string };

describe('the desktop app and the CLI use one data folder', () => {
  it('names the app Tooldeck everywhere Electron and the CLI take the folder name from', () => {
    expect((pkg as { productName?: string }).productName).toBe(APP_DIR_NAME);
    expect(builder.productName).toBe(APP_DIR_NAME);
  });

  it.each([
    ['linux', {}],
    ['linux', { XDG_CONFIG_HOME: '/home/me/cfg' }],
    ['darwin', {}],
    ['win32', { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }],
  ] as Array<[NodeJS.Platform, NodeJS.ProcessEnv]>)('by default (%s, %j)', (platform, env) => {
    const app = desktopDataDir(['/opt/Tooldeck/tooldeck'], env, electronUserData(platform, env));
    expect(app).toEqual({ dir: defaultDataDir(env, platform), source: 'default' });
  });

  it('with TOOLDECK_DATA_DIR, and with --data-dir (either spelling), which wins over it', () => {
    const env = { TOOLDECK_DATA_DIR: 'relative/data' };
    expect(desktopDataDir(['tooldeck'], env, '/unused').dir).toBe(defaultDataDir(env));
    for (const argv of [['tooldeck', '--data-dir', '/srv/td'], ['tooldeck', '--data-dir=/srv/td']]) {
      expect(desktopDataDir(argv, env, '/unused')).toEqual({ dir: defaultDataDir({ TOOLDECK_DATA_DIR: '/srv/td' }), source: 'flag' });
    }
    expect(desktopDataDir(['tooldeck', '--data-dir'], {}, '/electron/userData')).toEqual({ dir: '/electron/userData', source: 'default' });
    expect(desktopDataDir(['tooldeck', '--data-dir', 'here'], {}, '/x', '/work')).toEqual({ dir: resolve('/work', 'here'), source: 'flag' });
  });
});
