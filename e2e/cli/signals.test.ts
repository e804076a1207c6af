import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath } from '../support/tooldeckServer';

/**
 * Interrupting Tooldeck never leaves a server behind, even one that ignores stdin EOF, SIGTERM and
 * SIGINT: SIGINT/SIGTERM cancel a call, end the server (TERM, then KILL) and exit 130/143 (the in-cluster operator exits 0 after its graceful stop); on
 * Linux a SIGKILL of Tooldeck takes its servers with it (a parent-death signal).
 */
const misbehaving = resolve(import.meta.dirname, '../peers/mcp/MisbehavingServerForTests.mjs');

/** Alive and not a zombie (a killed child reparented to an init that does not reap stays Z). */
function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A `tooldeck mcp call` in flight to a server that will never answer nor go away by itself. */
async function callInFlight() {
  const dir = mkdtempSync(join(tmpdir(), 'tooldeck-signals-'));
  const pidFile = join(dir, 'server.pid');
  const cancelFile = join(dir, 'cancellations.jsonl');
  const cli: ChildProcess = spawn(
    process.execPath,
    [
      cliPath,
      '--data-dir',
      join(dir, 'data'),
      'mcp',
      'call',
      'echo',
      '--args',
      '{"message":"hi"}',
      '--timeout',
      '600000',
      '--stdio',
      `${process.execPath} ${misbehaving} --ignore-eof --hang-call --pid-file ${pidFile} --cancel-file ${cancelFile}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  cli.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => cli.on('exit', (code, signal) => done({ code, signal })));
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 'the call to reach the server');
  return {
    cli,
    server: Number(readFileSync(pidFile, 'utf8')),
    exited,
    stderr: () => stderr,
    dataDir: join(dir, 'data'),
    /** The notifications/cancelled the server received, each with the method of the request it named. */
    cancellations: (): Array<{ requestId: unknown; reason?: string; canceledMethod?: string }> =>
      existsSync(cancelFile) ? readFileSync(cancelFile, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { requestId: unknown }) : [],
  };
}

/** The invocation history of a data dir, as `tooldeck history --json` prints it. */
function historyOf(dataDir: string): Array<{ tool: string; status: string; error?: { message: string } }> {
  return JSON.parse(execFileSync(process.execPath, [cliPath, '--data-dir', dataDir, 'history', '--json'], { encoding: 'utf8' })) as Array<{ tool: string; status: string }>;
}

describe.runIf(process.platform === 'linux')('interrupting the CLI', { timeout: 60_000 }, () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} cancels the call, ends a server that ignores EOF and SIGTERM, and exits ${code}`, async () => {
      const run = await callInFlight();
      expect(alive(run.server)).toBe(true);
      run.cli.kill(signal);
      expect((await run.exited).code).toBe(code);
      expect(alive(run.server)).toBe(false);
      expect(run.stderr()).toContain(`Interrupted by ${signal}: calls canceled, servers ended.`);
      // The canceled call was written before the process ended: history keeps what a signal interrupted.
      expect(historyOf(run.dataDir)).toEqual([expect.objectContaining({ tool: 'echo', status: 'canceled' })]);
      // Canceled through the protocol before the server was ended: the server (which ignores EOF and
      // SIGTERM, so it was still reading stdin until the KILL) got notifications/cancelled for the call.
      expect(run.cancellations()).toEqual([expect.objectContaining({ canceledMethod: 'tools/call', requestId: expect.anything() })]);
    });
  }

  it('SIGKILL takes the server with it (parent-death signal)', async () => {
    const run = await callInFlight();
    run.cli.kill('SIGKILL');
    await run.exited;
    await until(() => !alive(run.server), 'the server to die with its parent');
  });
});

describe.runIf(process.platform === 'linux')('stopping the console', { timeout: 60_000 }, () => {
  it('SIGTERM to tooldeck serve ends its servers, one that ignores SIGTERM included, and exits 143', async () => {
    const { startTooldeckServer } = await import('../support/tooldeckServer');
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-serve-signals-'));
    const add = spawn(process.execPath, [cliPath, '--data-dir', dataDir, 'mcp', 'add', 'stubborn', '--stdio', `${process.execPath} ${misbehaving} --ignore-eof`]);
    await new Promise((done) => add.on('exit', done));
    const tooldeck = await startTooldeckServer({ dataDir });
    const api = async <T>(path: string) =>
      ((await (await fetch(`${tooldeck.origin}/trpc/${path}`, { headers: { Authorization: `Bearer ${tooldeck.token}` } })).json()) as { result: { data: T } }).result.data;
    let pid: number | undefined;
    async function poll() {
      while (pid === undefined) {
        const servers = await api<Array<{ config: { name: string }; state: { status: string }; pid?: number }>>('mcp.list');
        const stubborn = servers.find((server) => server.config.name === 'stubborn');
        if (stubborn?.state.status === 'ready' && stubborn.pid) pid = stubborn.pid;
        else await new Promise((r) => setTimeout(r, 50));
      }
    }
    void poll();
    await until(() => pid !== undefined, 'the saved server to connect');
    let stderr = '';
    tooldeck.process.stderr!.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((done) => tooldeck.process.on('exit', (code) => done(code)));
    tooldeck.process.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(stderr).toContain('Interrupted by SIGTERM: calls canceled, servers ended.');
    expect(alive(pid!)).toBe(false);
  });
});
