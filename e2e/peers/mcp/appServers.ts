import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { freePort, type RunningPeer } from './everything';

const modules = resolve(import.meta.dirname, '../../../node_modules');

/** Example MCP App servers from npm (the ext-apps examples), as published. */
export const APP_SERVERS = {
  basicReact: '@modelcontextprotocol/server-basic-react',
  budgetAllocator: '@modelcontextprotocol/server-budget-allocator',
} as const;

/** The hand-written hostile MCP App server (an app that tries to open windows and links). */
export const HOSTILE_APP_SERVER = resolve(import.meta.dirname, 'hostileAppServerForTests.mjs');

/** Starts one of them over Streamable HTTP on a free port (they serve `/mcp`). */
export async function startAppServer(pkg: (typeof APP_SERVERS)[keyof typeof APP_SERVERS]): Promise<RunningPeer> {
  // Their package.json exports only the server module; the CLI entry is the package's `bin`.
  return startAppServerScript(join(modules, pkg, 'dist/index.js'), pkg);
}

/** Starts an MCP App server script that serves Streamable HTTP at `/mcp` on PORT and says "listening on". */
export async function startAppServerScript(script: string, pkg = script): Promise<RunningPeer> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on/i.test(output)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${pkg} exited (${code}): ${output}`)));
    setTimeout(() => reject(new Error(`${pkg} did not start: ${output}`)), 15_000).unref();
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        // They close their HTTP server on SIGTERM and wait for open keep-alive connections: do not wait long.
        child.kill('SIGTERM');
        setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 2_000).unref();
      }),
  };
}
