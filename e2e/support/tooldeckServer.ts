import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export interface TooldeckServer {
  url: string;
  origin: string;
  port: number;
  token: string;
  dataDir: string;
  /** With `--metrics-port`: the Prometheus endpoint it printed. */
  metricsUrl(): Promise<string>;
  process: ChildProcess;
  stop(): Promise<void>;
}

export const repoRoot = resolve(import.meta.dirname, '../..');
export const cliPath = join(repoRoot, 'out/main/cli.js');

/**
 * Starts the built `tooldeck serve` exactly as a user would, on a free port with its own data dir.
 * The first-run guide (Start here) is dismissed in a data dir without settings unless `startHere`
 * asks for it: the specs of one section should not find its steps' words beside theirs.
 */
export async function startTooldeckServer(options: { dataDir?: string; args?: string[]; env?: NodeJS.ProcessEnv; startHere?: boolean } = {}): Promise<TooldeckServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tooldeck-e2e-'));
  if (!options.startHere && existsSync(dataDir) && !existsSync(join(dataDir, 'settings.json'))) writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ guide: { startHereDismissed: true } }), { mode: 0o600 });
  const child = spawn(process.execPath, [cliPath, '--data-dir', dataDir, 'serve', '--port', '0', ...(options.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  let metricsUrl: ((url: string) => void) | undefined;
  const metrics = new Promise<string>((resolveMetrics) => (metricsUrl = resolveMetrics));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /serving at (http:\/\/\S+)/.exec(line);
      if (match) resolveUrl(match[1]!);
      const prometheus = /Prometheus metrics at (http:\/\/\S+)/.exec(line);
      if (prometheus) metricsUrl!(prometheus[1]!);
    });
    child.once('exit', (code) => reject(new Error(`tooldeck serve exited with ${code}: ${stderr}`)));
    setTimeout(() => reject(new Error(`tooldeck serve did not start in time: ${stderr}`)), 20_000).unref();
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    token: new URLSearchParams(parsed.hash.slice(1)).get('token')!,
    dataDir,
    metricsUrl: () => metrics,
    process: child,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
