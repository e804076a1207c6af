import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import type { McpServerConfigInput } from '../../../shared/mcp';

const require = createRequire(import.meta.url);
/** The reference server's entry script, run with this very Node. */
export const everythingScript = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

export function everythingStdio(name = 'everything'): McpServerConfigInput {
  return { name, transport: 'stdio', command: process.execPath, args: [everythingScript, 'stdio'] };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RunningPeer {
  url: string;
  process: ChildProcess;
  close(): Promise<void>;
}

/** server-everything over Streamable HTTP (`/mcp`) or legacy HTTP+SSE (`/sse`) on a free port. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<RunningPeer> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingScript, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${output}`)));
    setTimeout(() => reject(new Error(`server-everything ${mode} did not start: ${output}`)), 15_000).unref();
  });
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    process: child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
