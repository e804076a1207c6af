import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingScript, startEverythingHttp, type RunningPeer } from '../../../e2e/peers/mcp/everything';
import { fakeTasksExtensionStdio, startFakeTasksExtensionHttp } from '../../../e2e/peers/mcp/fakeTasksExtension';
import { CliContext, CliExit, ExitCode } from '../CliContext';
import { registerMcp } from './mcp';

const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-mcp-tasks-cli-'));
let peer: RunningPeer;

beforeAll(async () => {
  peer = await startEverythingHttp();
}, 30_000);
afterAll(() => peer?.close());

/** Runs `tooldeck mcp …` as program.ts wires it, in this process (a fresh core each time, like a new command). */
async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const ctx = new CliContext(io, () => dataDir);
  const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerMcp(program, ctx);
  let code: number = ExitCode.Ok;
  await program.parseAsync(['mcp', ...argv], { from: 'user' }).catch((error: unknown) => {
    if (error instanceof CliExit) {
      if (error.message) stderr += `${error.message}\n`;
      code = error.exitCode;
    } else if (error instanceof CommanderError) code = error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    else throw error;
  });
  await ctx.close();
  return { code, stdout, stderr };
}

describe('tooldeck mcp call --task and tooldeck mcp task', () => {
  it('waits for a task, printing each status change, and answers its question from --answer', async () => {
    expect((await run(['add', 'local', '--stdio', `${process.execPath} ${everythingScript} stdio`, '--no-connect'])).code).toBe(0);
    const call = await run(['call', 'simulate-research-query', 'local', '--args', '{"topic":"python","ambiguous":true}', '--task', '--answer', '{"interpretation":"comedy"}']);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('# Research Report: python (comedy)');
    expect(call.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} task \S+ created, working/m);
    expect(call.stderr).toMatch(/task \S+ input_required — Found multiple interpretations for "python"/);
    expect(call.stderr).toContain('local asks (task ');
    expect(call.stderr).toMatch(/task \S+ completed/);
  }, 30_000);

  it('declines questions when there is no terminal and no preset answer, and the task goes on', async () => {
    const call = await run(['call', 'simulate-research-query', 'local', '--args', '{"topic":"rust","ambiguous":true}']);
    expect(call.code).toBe(0);
    expect(call.stderr).toContain('Declined (no terminal to answer on; pass --answer <json> to accept with content)');
    expect(call.stdout).toContain('User declined - using default interpretation');
  }, 30_000);

  it('refuses flags that cannot work, with exit code 2', async () => {
    expect(await run(['call', 'echo', 'local', '--args', '{"message":"x"}', '--task'])).toMatchObject({ code: ExitCode.Usage, stderr: expect.stringContaining('echo does not support tasks') });
    expect(await run(['call', 'simulate-research-query', 'local', '--args', '{"topic":"x"}', '--detach'])).toMatchObject({ code: ExitCode.Usage, stderr: expect.stringContaining('--detach needs a server that outlives this command') });
    expect(await run(['call', 'simulate-research-query', 'local', '--args', '{"topic":"x"}', '--task', '--task-ttl', '-5'])).toMatchObject({ code: ExitCode.Usage });
    expect(await run(['task', 'get', 'nowhere', 'abc'])).toMatchObject({ code: ExitCode.Failed, stderr: expect.stringContaining('nowhere') });
  }, 30_000);

  it('detaches over Streamable HTTP, printing only the task id, and remembers the task for later commands', async () => {
    expect((await run(['add', 'remote', '--url', peer.url, '--no-connect'])).code).toBe(0);
    const detached = await run(['call', 'simulate-research-query', 'remote', '--args', '{"topic":"tides"}', '--detach']);
    expect(detached.code).toBe(0);
    const taskId = detached.stdout.trim();
    expect(taskId).toMatch(/^\S+$/);
    expect(detached.stderr).toContain(`tooldeck mcp task result remote ${taskId}`);

    // A later command connects again: the reference server keeps tasks per session, so the task is
    // listed from memory with its last known status, and the server says it no longer has it.
    const list = await run(['task', 'list', 'remote']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${taskId}\\s+working\\s+simulate-research-query .*\\(last known\\)`, 'm'));
    const get = await run(['task', 'get', 'remote', taskId]);
    expect(get).toMatchObject({ code: ExitCode.Failed, stderr: expect.stringContaining(`remote no longer has task ${taskId}`) });
    const listedAgain = await run(['task', 'list', 'remote', '--json']);
    expect((JSON.parse(listedAgain.stdout) as { tasks: Array<{ taskId: string; gone?: boolean }> }).tasks.find((t) => t.taskId === taskId)).toMatchObject({ gone: true });
  }, 30_000);
});

describe('tooldeck mcp call and task with a server of the 2026 tasks extension (SEP-2663)', () => {
  let extension: RunningPeer;
  beforeAll(async () => {
    extension = await startFakeTasksExtensionHttp();
  }, 30_000);
  afterAll(() => extension?.close());

  it('follows the task the server made of a call, answering its question from --answer', async () => {
    const { command, args } = fakeTasksExtensionStdio('x') as { command: string; args: string[] };
    expect((await run(['add', 'ext-local', '--stdio', [command, ...args].join(' '), '--no-connect'])).code).toBe(0);
    const call = await run(['call', 'confirm_delete', 'ext-local', '--args', '{"filename":"a.txt"}', '--task', '--answer', '{"confirm":true}']);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('Deleted a.txt');
    expect(call.stderr).toMatch(/task \S+ created, working/);
    expect(call.stderr).toMatch(/task \S+ input_required/);
    expect(call.stderr).toMatch(/task \S+ completed/);
  }, 30_000);

  it('detaches, and a later command gets, fetches and cancels the server’s tasks (the server keeps them across sessions)', async () => {
    expect((await run(['add', 'ext-remote', '--url', extension.url, '--no-connect'])).code).toBe(0);
    const quick = await run(['call', 'slow_compute', 'ext-remote', '--args', '{"seconds":0.3,"label":"later"}', '--detach']);
    expect(quick.code).toBe(0);
    const quickId = quick.stdout.trim();
    const result = await run(['task', 'result', 'ext-remote', quickId]);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('Computed later in 0.3s') });

    const long = await run(['call', 'slow_compute', 'ext-remote', '--args', '{"seconds":60,"label":"long"}', '--detach']);
    const longId = long.stdout.trim();
    expect(await run(['task', 'get', 'ext-remote', longId])).toMatchObject({ code: 0, stdout: expect.stringContaining('working') });
    expect(await run(['task', 'cancel', 'ext-remote', longId])).toMatchObject({ code: 0, stdout: expect.stringContaining('cancelled') });
    const list = await run(['task', 'list', 'ext-remote', '--json']);
    const tasks = (JSON.parse(list.stdout) as { tasks: Array<{ taskId: string; status: string }> }).tasks;
    expect(tasks.find((t) => t.taskId === quickId)).toMatchObject({ status: 'completed' });
    expect(tasks.find((t) => t.taskId === longId)).toMatchObject({ status: 'cancelled' });
  }, 30_000);
});
