// The official MCP registry server (github.com/modelcontextprotocol/registry/cmd/registry), built
// once from its Go module pinned in go.mod beside this file and cached under ~/.cache/tooldeck, run
// on a private PostgreSQL cluster (its production database; Debian's postgresql 15 binaries) in a
// temporary folder on a free port, seeded with server.json entries through MCP_REGISTRY_SEED_FROM.
//
//   node e2e/mcp-registry/registry.mjs --build-only     fill the binary cache (CI warm-up), print its path
//
// Test code: `const registry = await startRegistry({ seed: [serverJson, …] }); … await registry.stop();`
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const registryDir = path.dirname(fileURLToPath(import.meta.url));
const MODULE = 'github.com/modelcontextprotocol/registry';

function registryVersion() {
  const m = fs.readFileSync(path.join(registryDir, 'go.mod'), 'utf8').match(/^\s*(?:require\s+)?github\.com\/modelcontextprotocol\/registry\s+(v\S+)/m);
  if (!m) throw new Error('e2e/mcp-registry/go.mod does not require github.com/modelcontextprotocol/registry');
  return m[1];
}

function buildArgs(out) {
  return ['build', '-trimpath', '-ldflags', `-s -w -X main.Version=${registryVersion()}`, '-o', out, `${MODULE}/cmd/registry`];
}

/** Path of the cached binary for go.mod + go.sum + tools.go (it may not exist yet). */
export function registryBinaryPath() {
  const h = createHash('sha256');
  h.update(`${process.platform}/${process.arch}\0${buildArgs('OUT').join(' ')}\0`);
  for (const f of ['go.mod', 'go.sum', 'tools.go']) h.update(fs.readFileSync(path.join(registryDir, f)));
  const root = process.env.MCP_REGISTRY_CACHE_DIR || path.join(os.homedir(), '.cache', 'tooldeck', 'mcp-registry');
  return path.join(root, h.digest('hex'), 'registry');
}

/** Builds the registry server unless cached (about 30 s with a warm module cache); resolves to its path. Concurrent callers share one build. */
export async function ensureRegistry({ log = (s) => process.stderr.write(s) } = {}) {
  const bin = registryBinaryPath();
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
    log(`mcp-registry: building ${registryVersion()} from its Go module into ${bin}\n`);
    const child = spawn('go', buildArgs(tmp), { cwd: registryDir, env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: [process.env.GOFLAGS, '-mod=mod'].filter(Boolean).join(' ') }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => log(String(d)));
    child.stderr.on('data', (d) => log(String(d)));
    const [code] = await once(child, 'close');
    if (code !== 0) throw new Error(`mcp-registry: go build failed (exit ${code})`);
    fs.renameSync(tmp, bin);
    return bin;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Where PostgreSQL's server binaries are: POSTGRES_BIN_DIR, else /usr/local/bin, else Debian's
 * postgresql package (/usr/lib/postgresql/<major>/bin, newest first), else the PATH.
 */
function postgresBinDir() {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const debian = fs.existsSync('/usr/lib/postgresql')
    ? fs
        .readdirSync('/usr/lib/postgresql')
        .sort((a, b) => Number(b) - Number(a))
        .map((major) => path.join('/usr/lib/postgresql', major, 'bin'))
    : [];
  const candidates = ['/usr/local/bin', ...debian, ...(process.env.PATH ?? '').split(path.delimiter)];
  const found = candidates.find((dir) => dir && fs.existsSync(path.join(dir, 'initdb')));
  if (!found) throw new Error('PostgreSQL is not installed (no initdb in /usr/local/bin, /usr/lib/postgresql/*/bin or PATH): apt-get install postgresql, or set POSTGRES_BIN_DIR');
  return found;
}
/** PostgreSQL refuses to run as root: there the cluster runs as nobody. */
const NOBODY = 65534;

/** Runs a PostgreSQL binary, as nobody when we are root, dying with this process (parent-death signal). */
function pgSpawn(binary, args, options) {
  const asRoot = process.getuid?.() === 0;
  const prefix = process.platform === 'linux' ? ['setpriv', '--pdeathsig', 'KILL', ...(asRoot ? ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups'] : []), '--'] : [];
  const argv = [...prefix, path.join(postgresBinDir(), binary), ...args];
  return spawn(argv[0], argv.slice(1), options);
}

function ended(child) {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit').then(() => undefined);
}

/** Waits until `child` writes a line matching `ready` (stdout or stderr); rejects if it exits first. */
function whenLogged(child, ready, what) {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk.toString();
      if (ready.test(output)) {
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code) => reject(new Error(`${what} exited (${code}) before it was ready:\n${output.slice(-4000)}`));
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * A private PostgreSQL cluster in a temporary folder on a free port of 127.0.0.1 (trust auth, no
 * fsync: it lives for one test file). `stop()` shuts it down and removes the folder, leaving no process.
 */
export async function startPostgres() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tooldeck-pg-'));
  if (process.getuid?.() === 0) fs.chownSync(dir, NOBODY, NOBODY);
  const data = path.join(dir, 'data');
  const init = pgSpawn('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let initOutput = '';
  init.stdout.on('data', (d) => (initOutput += d));
  init.stderr.on('data', (d) => (initOutput += d));
  const [code] = await once(init, 'close');
  if (code !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (exit ${code}): ${initOutput}`);
  }
  const port = await freePort();
  const server = pgSpawn('postgres', ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGINT'); // fast shutdown
      await ended(server);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await whenLogged(server, /database system is ready to accept connections/, 'postgres');
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`, port, stop };
}

/**
 * The official registry server on a free port of 127.0.0.1, on its own private PostgreSQL, seeded
 * with `seed` (server.json documents). Resolves once `/v0.1/health` answers, which is after the
 * seed import (the server imports before it listens). `stop()` ends both and removes their files.
 */
export async function startRegistry({ seed = [], log } = {}) {
  const bin = await ensureRegistry(log ? { log } : {});
  const postgres = await startPostgres();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tooldeck-registry-'));
  const seedFile = path.join(dir, 'seed.json');
  fs.writeFileSync(seedFile, JSON.stringify(seed));
  const port = await freePort();
  const child = spawn(process.platform === 'linux' ? 'setpriv' : bin, [...(process.platform === 'linux' ? ['--pdeathsig', 'KILL', '--', bin] : [])], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      MCP_REGISTRY_SERVER_ADDRESS: `127.0.0.1:${port}`,
      MCP_REGISTRY_DATABASE_URL: postgres.url,
      MCP_REGISTRY_DATABASE_MIN_CONNECTIONS: '1',
      MCP_REGISTRY_DATABASE_MAX_CONNECTIONS: '4',
      MCP_REGISTRY_SEED_FROM: seedFile,
      MCP_REGISTRY_ENABLE_REGISTRY_VALIDATION: 'false',
      // Publishing is not exercised; the server wants a key to start its auth handlers.
      MCP_REGISTRY_JWT_PRIVATE_KEY: createHash('sha256').update('tooldeck-test-registry').digest('hex'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await ended(child);
    }
    await postgres.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const exited = ended(child);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the registry server exited (${child.exitCode ?? child.signalCode}):\n${output.slice(-4000)}`);
      const healthy = await fetch(`${url}/v0.1/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (healthy) break;
      await Promise.race([exited, new Promise((r) => setTimeout(r, 100))]);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop, output: () => output };
}

// `node e2e/mcp-registry/registry.mjs --build-only`: fill the cache (CI warm-up), print the binary's path.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]) && process.argv.includes('--build-only')) {
  ensureRegistry().then(
    (bin) => process.stdout.write(`${bin}\n`),
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
