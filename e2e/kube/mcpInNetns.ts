import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const everythingScript = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** Why network namespaces cannot be made here, or undefined when they can. */
export function netnsUnavailableReason(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'creating network namespaces needs root';
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return 'the `ip` command (iproute2) with netns support is missing';
  }
  return undefined;
}

export interface NetnsMcpServer {
  netns: string;
  /** Address of the server inside the namespace; the only address the tests send traffic to. */
  address: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** The address of the namespace end of the veth pair of `subnet`: known before the server starts, for servers told where to bind. */
export const netnsAddress = (subnet: number) => `10.203.${subnet}.2`;

/**
 * Runs an MCP server (server-everything unless `script` names another, with `args`; Streamable HTTP at /mcp,
 * port from env PORT) in a fresh network namespace joined to this host by a veth pair on
 * 10.203.<subnet>.0/30 (host .1, namespace .2). The apiserver's proxy refuses loopback endpoints, so
 * the Pod and Endpoints of a test point at the namespace address instead.
 */
export async function startMcpInNetns(options: { subnet: number; port?: number; script?: string; args?: string[]; env?: NodeJS.ProcessEnv }): Promise<NetnsMcpServer> {
  const { subnet } = options;
  const port = options.port ?? 8080;
  const tag = `${process.pid % 100_000}x${subnet}`;
  const netns = `tooldeck-${tag}`;
  const hostIf = `tdh${tag}`;
  const nsIf = `tdn${tag}`;
  const hostAddress = `10.203.${subnet}.1`;
  const address = netnsAddress(subnet);
  const cleanupNetwork = () => {
    for (const args of [['link', 'del', hostIf], ['netns', 'del', netns]]) {
      try {
        ip(...args);
      } catch {
        // Already gone: deleting the namespace also removes the veth pair.
      }
    }
  };
  cleanupNetwork();
  try {
    ip('netns', 'add', netns);
    ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
    ip('link', 'set', nsIf, 'netns', netns);
    ip('addr', 'add', `${hostAddress}/30`, 'dev', hostIf);
    ip('link', 'set', hostIf, 'up');
    ip('netns', 'exec', netns, 'ip', 'addr', 'add', `${address}/30`, 'dev', nsIf);
    ip('netns', 'exec', netns, 'ip', 'link', 'set', nsIf, 'up');
    ip('netns', 'exec', netns, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    cleanupNetwork();
    throw error;
  }

  const command = options.script ? [options.script, ...(options.args ?? [])] : [everythingScript, 'streamableHttp'];
  const child = spawn('ip', ['netns', 'exec', netns, process.execPath, ...command], {
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killTimer);
    }
    cleanupNetwork();
  };
  try {
    await waitForPort(address, port, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { netns, address, port, process: child, stop };
}

async function waitForPort(host: string, port: number, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the MCP server exited (${child.exitCode}): ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host, port });
      socket.setTimeout(1_000);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`the MCP server did not listen on ${host}:${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
