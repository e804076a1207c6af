// `npm start`: build when sources changed, then open the desktop app if its runtime is installed,
// else serve the same console to a browser on 127.0.0.1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const builtCli = join(root, 'out/main/cli.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function needsBuild() {
  if (!existsSync(builtCli) || !existsSync(join(root, 'out/renderer/index.html'))) return true;
  const built = statSync(builtCli).mtimeMs;
  return ['app', 'main', 'renderer', 'shared'].some((dir) => newestMtime(join(root, dir)) > built);
}

/** The Electron binary path, without triggering the package's lazy download. */
function electronBinary() {
  const pathFile = join(root, 'node_modules/electron/path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(root, 'node_modules/electron/dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

if (needsBuild()) {
  const started = Date.now();
  process.stdout.write('Building Tooldeck… ');
  // Warnings and errors only: the asset table is for `npm run build`, not for starting the app.
  const build = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const passThrough = process.argv.slice(2);
const binary = electronBinary();
const child = binary
  ? spawn(binary, [root, ...passThrough], { cwd: root, stdio: 'inherit' })
  : (console.log('The Electron desktop runtime is not installed here; starting Tooldeck in browser mode instead.'),
    spawn(process.execPath, [builtCli, 'serve', ...passThrough], { cwd: root, stdio: 'inherit' }));

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
