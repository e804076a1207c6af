// A private PostgreSQL cluster for tests (Debian's postgresql binaries, which .ci/run installs): in
// a temporary folder, on a free port of 127.0.0.1, gone with `stop()`. Shared by the MCP registry
// rig (its production database) and the PostgreSQL history tests (which also stop and restart it
// under load, and give it a password to refuse).
//
//   const pg = await startPostgres({ password: 's3cret' }); … await pg.pause(); await pg.resume(); … await pg.stop();
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

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
export function postgresBinDir() {
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
 * A private PostgreSQL cluster (no fsync: it lives for one test file). Without `password` every
 * local login is trusted; with one, TCP logins need it (scram-sha-256) and the URL carries it.
 * `pause()` stops the server and `resume()` starts it again on the same port with the same data;
 * `stop()` shuts it down and removes the folder, leaving no process.
 */
export async function startPostgres({ password } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tooldeck-pg-'));
  if (process.getuid?.() === 0) fs.chownSync(dir, NOBODY, NOBODY);
  const data = path.join(dir, 'data');
  const auth = password ? ['--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${path.join(dir, 'pw')}`] : ['--auth=trust'];
  if (password) {
    fs.writeFileSync(path.join(dir, 'pw'), `${password}\n`, { mode: 0o600 });
    if (process.getuid?.() === 0) fs.chownSync(path.join(dir, 'pw'), NOBODY, NOBODY);
  }
  const init = pgSpawn('initdb', ['-D', data, '-U', 'postgres', ...auth, '-E', 'UTF8', '--no-sync'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let initOutput = '';
  init.stdout.on('data', (d) => (initOutput += d));
  init.stderr.on('data', (d) => (initOutput += d));
  const [code] = await once(init, 'close');
  if (code !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (exit ${code}): ${initOutput}`);
  }
  fs.rmSync(path.join(dir, 'pw'), { force: true });
  const port = await freePort();
  let server;
  const launch = async () => {
    server = pgSpawn('postgres', ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off', '-c', 'max_connections=200'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await whenLogged(server, /database system is ready to accept connections/, 'postgres');
  };
  const pause = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGINT'); // fast shutdown: clients are disconnected at once
      await ended(server);
    }
  };
  const stop = async () => {
    await pause();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (error) {
    await stop();
    throw error;
  }
  const credentials = password ? `postgres:${encodeURIComponent(password)}` : 'postgres';
  return { url: `postgres://${credentials}@127.0.0.1:${port}/postgres?sslmode=disable`, port, stop, pause, resume: launch };
}
