// One Go command built from its module (pinned in a go.mod beside its caller) and cached under
// ~/.cache/tooldeck: the binary's path is a hash of the platform, the build arguments and
// go.mod/go.sum/tools.go, so a pin that moves builds anew. Concurrent callers (parallel test files)
// share one build through a lock folder; a lock left by a build that died 15 minutes ago is taken over.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * @param {{ name: string, moduleDir: string, cacheDir: string, binary: string, buildArgs: (out: string) => string[] }} spec
 *   `name` prefixes log lines and errors; `cacheDir` is the cache folder's absolute path.
 */
export function goBinaryPath(spec) {
  const h = createHash('sha256');
  h.update(`${process.platform}/${process.arch}\0${spec.buildArgs('OUT').join(' ')}\0`);
  for (const f of ['go.mod', 'go.sum', 'tools.go']) h.update(fs.readFileSync(path.join(spec.moduleDir, f)));
  return path.join(spec.cacheDir, h.digest('hex'), spec.binary);
}

/** Builds the binary unless cached; resolves to its path. */
export async function ensureGoBinary(spec, { log = (s) => process.stderr.write(s), what = spec.name } = {}) {
  const bin = goBinaryPath(spec);
  if (fs.existsSync(bin)) return bin;
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  const lock = `${bin}.lock`;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      if (Date.now() - fs.statSync(lock).mtimeMs > 15 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 1_000));
      if (fs.existsSync(bin)) return bin;
    }
  }
  try {
    if (fs.existsSync(bin)) return bin;
    const tmp = `${bin}.tmp-${process.pid}`;
    log(`${spec.name}: building ${what} from its Go module into ${bin}\n`);
    const child = spawn('go', spec.buildArgs(tmp), { cwd: spec.moduleDir, env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: [process.env.GOFLAGS, '-mod=mod'].filter(Boolean).join(' ') }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => log(String(d)));
    child.stderr.on('data', (d) => log(String(d)));
    const [code] = await once(child, 'close');
    if (code !== 0) throw new Error(`${spec.name}: go build failed (exit ${code})`);
    fs.renameSync(tmp, bin);
    return bin;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** ~/.cache/tooldeck/<name>, or the folder an environment variable names. */
export function toolCacheDir(name, envVar) {
  return process.env[envVar] || path.join(os.homedir(), '.cache', 'tooldeck', name);
}
