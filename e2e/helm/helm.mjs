// Builds (once, cached) the real `helm` command from its Go module, pinned in go.mod beside this
// file, and runs it. Helm's own binaries are downloaded from a host CI cannot reach and Debian
// packages no helm; the Go module proxy is reachable, as for the kube test bed.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureGoBinary, goBinaryPath, toolCacheDir } from '../support/goModuleBinary.mjs';

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

const buildSpec = { name: 'helm', moduleDir: helmDir, binary: 'helm', buildArgs, get cacheDir() { return toolCacheDir('helm', 'HELM_CACHE_DIR'); } };

/** Path of the cached binary for go.mod + go.sum + tools.go. */
export function helmBinaryPath() {
  return goBinaryPath(buildSpec);
}

/** Builds helm unless cached (about 90 s on 2 cores with a warm module cache); resolves to its path. Concurrent callers share one build. */
export function ensureHelm(options = {}) {
  return ensureGoBinary(buildSpec, { ...options, what: helmVersion() });
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
