// Builds (once, cached) the real `helm` command from its Go module, pinned in go.mod beside this
// file, and runs it. Helm's own binaries are downloaded from a host CI cannot reach and Debian
// packages no helm; the Go module proxy is reachable, as for the kube test bed.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const helmDir = path.dirname(fileURLToPath(import.meta.url));

function helmVersion() {
  const m = fs.readFileSync(path.join(helmDir, 'go.mod'), 'utf8').match(/^\s*(?:require\s+)?helm\.sh\/helm\/v3\s+(v\S+)/m);
  if (!m) throw new Error('e2e/helm/go.mod does not require helm.sh/helm/v3');
  return m[1];
}

function buildArgs(out) {
  const v = helmVersion();
  return ['build', '-trimpath', '-ldflags', `-s -w -X helm.sh/helm/v3/internal/version.version=${v}`, '-o', out, 'helm.sh/helm/v3/cmd/helm'];
}

/** Path of the cached binary for go.mod + go.sum + tools.go. */
export function helmBinaryPath() {
  const h = createHash('sha256');
  h.update(`${process.platform}/${process.arch}\0${buildArgs('OUT').join(' ')}\0`);
  for (const f of ['go.mod', 'go.sum', 'tools.go']) h.update(fs.readFileSync(path.join(helmDir, f)));
  const root = process.env.HELM_CACHE_DIR || path.join(os.homedir(), '.cache', 'tooldeck', 'helm');
  return path.join(root, h.digest('hex'), 'helm');
}

/** Builds helm unless cached (about 90 s on 2 cores with a warm module cache); resolves to its path. Concurrent callers share one build. */
export async function ensureHelm({ log = (s) => process.stderr.write(s) } = {}) {
  const bin = helmBinaryPath();
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
    log(`helm: building ${helmVersion()} from its Go module into ${bin}\n`);
    const child = spawn('go', buildArgs(tmp), { cwd: helmDir, env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: [process.env.GOFLAGS, '-mod=mod'].filter(Boolean).join(' ') }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => log(String(d)));
    child.stderr.on('data', (d) => log(String(d)));
    const [code] = await once(child, 'close');
    if (code !== 0) throw new Error(`helm: go build failed (exit ${code})`);
    fs.renameSync(tmp, bin);
    return bin;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Runs helm with argv; resolves with stdout, rejects with stderr on a non-zero exit. */
export async function runHelm(args, { log } = {}) {
  const bin = await ensureHelm(log ? { log } : {});
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'helm-home-'));
  try {
    return await new Promise((resolve, reject) => {
      execFile(bin, args, { env: { PATH: process.env.PATH, HOME: home, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        error ? reject(new Error(`helm ${args[0]} failed: ${stderr || error.message}`)) : resolve(stdout),
      );
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

// `node e2e/helm/helm.mjs --build-only`: fill the cache (CI warm-up), print the binary's path.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]) && process.argv.includes('--build-only')) {
  ensureHelm().then(
    (bin) => process.stdout.write(`${bin}\n`),
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
