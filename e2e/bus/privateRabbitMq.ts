import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../peers/mcp/everything';

/**
 * A private RabbitMQ node for one test file (Debian's `rabbitmq-server`): its own node name, AMQP,
 * distribution and epmd ports, Erlang cookie (HOME), data and log folders under a temp folder, and
 * no plugins. `stop()` halts it and its epmd and removes the folder; `restart()` stops and starts
 * the same node on the same data (durable queues and persistent messages survive, as in production).
 */
export interface PrivateRabbitMq {
  /** `amqp://guest:guest@127.0.0.1:PORT`. */
  url: string;
  port: number;
  node: string;
  /** Runs `rabbitmqctl` against the node; returns stdout. */
  ctl(...args: string[]): string;
  /** Adds a broker user with full permissions on `/`; returns the URL that connects as it. */
  addUser(name: string, password: string): string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const BIN = existsSync('/usr/lib/rabbitmq/bin/rabbitmq-server') ? '/usr/lib/rabbitmq/bin' : '/usr/sbin';
const EPMD = ['/usr/bin/epmd', '/usr/lib/erlang/bin/epmd'].find((path) => existsSync(path)) ?? 'epmd';

export function rabbitMqInstalled(): boolean {
  return existsSync(join(BIN, 'rabbitmq-server'));
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startPrivateRabbitMq(): Promise<PrivateRabbitMq> {
  if (!rabbitMqInstalled()) throw new Error('rabbitmq-server is not installed: `apt-get install rabbitmq-server` (the .ci/run apt list has it)');
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-rabbitmq-'));
  const [port, distPort, epmdPort] = [await freePort(), await freePort(), await freePort()];
  const node = `tooldeck-test-${process.pid}-${port}@localhost`;
  mkdirSync(join(dir, 'mnesia'));
  mkdirSync(join(dir, 'log'));
  writeFileSync(join(dir, 'rabbitmq.conf'), `listeners.tcp.default = 127.0.0.1:${port}\n`);
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  const env = {
    ...process.env,
    HOME: dir,
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_PID_FILE: join(dir, 'rabbitmq.pid'),
    ERL_EPMD_PORT: String(epmdPort),
  };
  // Our own epmd, as a child we can stop: one the node started itself would be a daemon left behind.
  const epmd = spawn(EPMD, ['-port', String(epmdPort)], { env, stdio: 'ignore' });
  // Listening before the node starts, or the node would start a daemon of its own on that port.
  while (!(await accepts(epmdPort))) {
    if (epmd.exitCode !== null) throw new Error(`epmd exited (${epmd.exitCode}) on port ${epmdPort}`);
    await new Promise((resume) => setTimeout(resume, 50));
  }
  const ctl = (...args: string[]) => {
    const run = spawnSync(join(BIN, 'rabbitmqctl'), ['-n', node, ...args], { env, encoding: 'utf8', timeout: 60_000 });
    if (run.status !== 0) throw new Error(`rabbitmqctl ${args.join(' ')} failed (${run.status}): ${run.stderr || run.stdout}`);
    return run.stdout;
  };
  let server: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    output = '';
    server = spawn(join(BIN, 'rabbitmq-server'), [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<never>((_, fail) => server!.once('exit', (code) => fail(new Error(`rabbitmq-server exited (${code}) before it started: ${output.slice(-2000)}`))));
    exited.catch(() => undefined);
    // await_startup waits for a node that is booting, but fails at once while the node has not registered yet: ask until it has.
    for (;;) {
      const waited = spawnSync(join(BIN, 'rabbitmqctl'), ['-n', node, 'await_startup', '--timeout', '60'], { env, encoding: 'utf8', timeout: 70_000 });
      if (waited.status === 0) return;
      if (server.exitCode !== null) await exited;
      await new Promise((resume) => setTimeout(resume, 200));
    }
  };
  const halt = async () => {
    const running = server;
    if (!running || running.exitCode !== null) return;
    const gone = new Promise((done) => running.once('exit', done));
    try {
      ctl('stop');
    } catch {
      running.kill('SIGKILL');
    }
    await gone;
  };
  try {
    await start();
  } catch (error) {
    await halt().catch(() => undefined);
    epmd.kill();
    throw error;
  }
  return {
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    port,
    node,
    ctl,
    addUser(name, password) {
      ctl('add_user', name, password);
      ctl('set_permissions', '-p', '/', name, '.*', '.*', '.*');
      return `amqp://${encodeURIComponent(name)}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    },
    async restart() {
      await halt();
      await start();
    },
    async stop() {
      await halt();
      if (epmd.exitCode === null) {
        const gone = new Promise((done) => epmd.once('exit', done));
        epmd.kill();
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
