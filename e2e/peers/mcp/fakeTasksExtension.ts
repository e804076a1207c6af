import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { McpServerConfigInput } from '../../../shared/mcp';
import { freePort, type RunningPeer } from './everything';

/** The test server for the 2026 form of MCP tasks (SEP-2663): see FakeTasksExtensionServer.mjs. */
const script = fileURLToPath(new URL('./FakeTasksExtensionServer.mjs', import.meta.url));

export function fakeTasksExtensionStdio(name: string): McpServerConfigInput {
  return { name, transport: 'stdio', command: process.execPath, args: [script] };
}

/** The same server over Streamable HTTP (`/mcp`) on a free port. */
export async function startFakeTasksExtensionHttp(): Promise<RunningPeer> {
  const port = await freePort();
  const child = spawn(process.execPath, [script, 'http'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port/.test(output)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the tasks extension server exited (${code}): ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
