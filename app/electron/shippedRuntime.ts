import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, isAbsolute } from 'node:path';
import type { PlaceholderContext } from '../../main/resources/commandPlaceholders';

/**
 * What `${node}` and `${module:…}` mean in the desktop app. Never `node` from PATH (many users have
 * none, and an app started from Finder gets a bare PATH), never a file inside the asar (no other
 * process can read it).
 *
 * Packaged: the Node.js runtime and the bundled servers in the resources folder, outside the asar
 * (scripts/desktopResources.mjs lays them out). A shipped Node rather than Electron's
 * utilityProcess: a stdio MCP server needs stdin, which a utility process does not get, so it would
 * need a second, Electron-only transport beside the stdio one; a real Node keeps one stdio path for
 * every host, and a server the app saved runs the same from the `tooldeck` CLI sharing the data folder.
 */
export function shippedPlaceholderContext(resourcesDir: string, platform: NodeJS.Platform = process.platform): PlaceholderContext {
  const modulesDir = join(resourcesDir, 'modules');
  return {
    node: platform === 'win32' ? join(resourcesDir, 'node', 'node.exe') : join(resourcesDir, 'node', 'bin', 'node'),
    resolveModule(specifier) {
      const file = join(modulesDir, ...specifier.split('/'));
      const inside = relative(modulesDir, file);
      if (!inside || inside.startsWith('..') || isAbsolute(inside) || !existsSync(file)) {
        throw new Error(`${specifier} is not one of the servers shipped with the desktop app`);
      }
      return file;
    },
  };
}

/** Run from a checkout (`npm start` with Electron installed): the project's own Node 22 and its node_modules. */
export function checkoutPlaceholderContext(appDir: string): PlaceholderContext {
  const require = createRequire(join(appDir, 'package.json'));
  const candidates = ['bin/node', 'bin/node.exe', 'node.exe'].map((file) => join(appDir, 'node_modules', 'node', file));
  return {
    node: candidates.find((file) => existsSync(file)) ?? candidates[0]!,
    resolveModule: (specifier) => require.resolve(specifier),
  };
}
