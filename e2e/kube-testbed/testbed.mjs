// Dependency-free helpers to build (once, cached) and run the kube-testbed Go binary:
// embedded etcd + in-process kube-apiserver on 127.0.0.1. Works on Node 20 and 22.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export const testbedDir = path.dirname(fileURLToPath(import.meta.url));

const BINARY_NAME = 'kube-testbed';

/** Root of the binary cache (override with KUBE_TESTBED_CACHE_DIR). */
export function cacheRoot() {
  return process.env.KUBE_TESTBED_CACHE_DIR || path.join(os.homedir(), '.cache', 'tooldeck', 'kube-testbed');
}

/**
 * `go build` flags. The k8s.io/kubernetes version from go.mod is stamped into
 * k8s.io/component-base/version so /version reports e.g. gitVersion "v1.35.0"
 * (a plain module build would report "v0.0.0-master+$Format:%H$").
 */
function ldflags() {
  const gomod = fs.readFileSync(path.join(testbedDir, 'go.mod'), 'utf8');
  const m = gomod.match(/^\s*k8s\.io\/kubernetes\s+v(\d+)\.(\d+)\.(\d+)\S*/m);
  const flags = ['-s', '-w'];
  if (m) {
    const pkg = 'k8s.io/component-base/version';
    const ver = m[0].trim().split(/\s+/)[1];
    flags.push(
      `-X ${pkg}.gitVersion=${ver}`,
      `-X ${pkg}.gitMajor=${m[1]}`,
      `-X ${pkg}.gitMinor=${m[2]}`,
      `-X ${pkg}.gitTreeState=clean`,
      `-X ${pkg}.gitCommit=`,
    );
  }
  return flags.join(' ');
}

function goBuildArgs(out) {
  return ['build', '-v', '-trimpath', '-ldflags', ldflags(), '-o', out, '.'];
}

/**
 * sha256 over go.mod, go.sum and every *.go file of this folder (names + contents),
 * plus platform/arch and the go build flags.
 */
export function sourceHash() {
  const files = fs
    .readdirSync(testbedDir)
    .filter((f) => f === 'go.mod' || f === 'go.sum' || f.endsWith('.go'))
    .sort();
  const h = createHash('sha256');
  h.update(`${process.platform}/${process.arch}\0${goBuildArgs('OUT').join(' ')}\0`);
  for (const f of files) {
    h.update(`${f}\0`);
    h.update(fs.readFileSync(path.join(testbedDir, f)));
    h.update('\0');
  }
  return h.digest('hex');
}

/** Path the cached binary for the current sources lives at (it may not exist yet). */
export function binaryPath() {
  return path.join(cacheRoot(), sourceHash(), BINARY_NAME);
}

function isExecutable(p) {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Returns the path of an up-to-date binary, running `go build` first if the cache
 * entry for the current source hash is missing. Build output (`go build -v`, one
 * package per line) is streamed to `log` (default: process.stderr). Concurrent
 * callers (parallel test workers) share one build through a lock directory.
 */
export async function ensureBinary({ log = (s) => process.stderr.write(s), signal } = {}) {
  const bin = binaryPath();
  if (isExecutable(bin)) return bin;
  const dir = path.dirname(bin);
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, '.build-lock');

  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    // Someone else is building: wait for them, or take over a stale lock.
    let owner = NaN;
    try {
      owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
    } catch {
      // The lock holder has not written its pid yet; treat the owner as unknown and wait.
    }
    if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) {
      fs.rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (isExecutable(bin)) return bin;
    if (signal?.aborted) throw new Error('aborted');
    await sleep(1000);
  }

  try {
    if (isExecutable(bin)) return bin;
    const tmp = `${bin}.tmp-${process.pid}`;
    const goflags = [process.env.GOFLAGS, '-mod=mod'].filter(Boolean).join(' ');
    const args = goBuildArgs(tmp);
    log(`kube-testbed: building ${bin}\nkube-testbed: (a cold build of kube-apiserver + etcd takes ~5-6 min on 2 cores)\n`);
    const started = Date.now();
    const child = spawn('go', args, {
      cwd: testbedDir,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: goflags },
      stdio: ['ignore', 'pipe', 'pipe'],
      signal,
    });
    child.stdout.on('data', (d) => log(String(d)));
    child.stderr.on('data', (d) => log(String(d)));
    const [code, sig] = await once(child, 'close').catch((e) => {
      throw new Error(`kube-testbed: cannot run go build: ${e.message}`);
    });
    if (code !== 0) {
      fs.rmSync(tmp, { force: true });
      throw new Error(`kube-testbed: go build failed (${sig ?? `exit ${code}`})`);
    }
    fs.renameSync(tmp, bin);
    log(`kube-testbed: built in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
    return bin;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

function parseKubeconfig(text) {
  const pick = (key) => {
    const m = text.match(new RegExp(`^\\s*${key}:\\s*(\\S+)\\s*$`, 'm'));
    if (!m) throw new Error(`kube-testbed: kubeconfig has no ${key}`);
    return m[1];
  };
  return { server: pick('server'), caData: pick('certificate-authority-data'), token: pick('token') };
}

/**
 * Builds (if needed) and starts the test bed; resolves once it printed `ready`.
 * @param {import('./testbed.d.mts').StartTestbedOptions} [opts]
 * @returns {Promise<import('./testbed.d.mts').Testbed>}
 */
export async function startTestbed(opts = {}) {
  const {
    kubeconfigOut,
    port = 0,
    dataDir,
    logFile,
    apiserverArgs = [],
    readyTimeoutMs = 180_000,
    stderr = 'inherit',
    buildLog,
  } = opts;
  const bin = await ensureBinary(buildLog ? { log: buildLog } : {});

  let tmpDir;
  let kubeconfigPath;
  if (kubeconfigOut) {
    kubeconfigPath = path.resolve(kubeconfigOut);
  } else {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-testbed-kc-'));
    kubeconfigPath = path.join(tmpDir, 'kubeconfig');
  }
  const args = ['--kubeconfig-out', kubeconfigPath, '--port', String(port)];
  if (dataDir) args.push('--data-dir', dataDir);
  if (logFile) args.push('--log-file', logFile);
  if (apiserverArgs.length) args.push('--', ...apiserverArgs);

  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stderrTail = [];
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 50) stderrTail.shift();
    if (stderr === 'inherit') process.stderr.write(`${line}\n`);
    else if (typeof stderr === 'function') stderr(line);
  });

  const exited = new Promise((resolve) => child.once('close', (code, sig) => resolve({ code, signal: sig })));
  exited.then(() => {
    process.removeListener('exit', killOnExit);
    if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  let version;
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`kube-testbed: not ready after ${readyTimeoutMs} ms\n${stderrTail.join('\n')}`));
    }, readyTimeoutMs);
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('version ')) {
        try {
          version = JSON.parse(line.slice('version '.length));
        } catch {
          // A malformed version line only loses the version, not the test bed.
        }
      } else if (line === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    exited.then(({ code, signal: sig }) => {
      clearTimeout(timer);
      reject(new Error(`kube-testbed exited before ready (${sig ?? `exit ${code}`})\n${stderrTail.join('\n')}`));
    });
  });
  await ready;

  const { server, caData, token } = parseKubeconfig(fs.readFileSync(kubeconfigPath, 'utf8'));
  const ca = Buffer.from(caData, 'base64').toString('utf8');
  let stopping;
  return {
    serviceAccountKubeconfig: (saOpts) => serviceAccountKubeconfig({ server, ca, caData, adminToken: token }, saOpts),
    kubeconfigPath,
    server,
    token,
    caData,
    ca,
    version,
    pid: child.pid,
    exited: exited.then((r) => r),
    stop(timeoutMs = 60_000) {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          await exited;
          clearTimeout(t);
        }
        await exited;
      })();
      return stopping;
    },
  };
}

/**
 * Service-account token authentication: the apiserver signs TokenRequest tokens with the test
 * bed's service-account key and accepts them as `system:serviceaccount:<ns>:<name>`. Creates the
 * ServiceAccount if missing, asks for a token and writes a kubeconfig whose user is that account.
 */
async function serviceAccountKubeconfig({ server, ca, caData, adminToken }, { namespace, name, path: out, expirationSeconds = 3600 }) {
  const call = (method, p, body) =>
    new Promise((resolve, reject) => {
      const req = https.request(`${server}${p}`, { method, ca, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', accept: 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined }));
      });
      req.once('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const sa = await call('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`kube-testbed: cannot create ServiceAccount ${namespace}/${name}: ${sa.body?.message ?? sa.status}`);
  const tr = await call('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds },
  });
  if (tr.status !== 201) throw new Error(`kube-testbed: TokenRequest for ${namespace}/${name} failed: ${tr.body?.message ?? tr.status}`);
  const user = `system:serviceaccount:${namespace}:${name}`;
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kube-testbed',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${caData}`,
    'users:',
    `- name: ${user}`,
    '  user:',
    `    token: ${tr.body.status.token}`,
    'contexts:',
    `- name: ${name}`,
    `  context: {cluster: kube-testbed, user: "${user}", namespace: ${namespace}}`,
    `current-context: ${name}`,
    '',
  ].join('\n');
  fs.writeFileSync(out, text, { mode: 0o600 });
  return { kubeconfigPath: out, token: tr.body.status.token, user };
}
