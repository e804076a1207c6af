import type { Command } from 'commander';
import { isAppError } from '../../../shared/errors';
import type { ToolResult } from '../../../shared/registry';
import type { InvokeTaskOptions, ServerTaskView, TaskEvent } from '../../../shared/tasks';
import type { Core } from '../../../main/core';
import { CliExit, ExitCode, type CliContext, type CliIo } from '../CliContext';
import { answerFromTerminal, type TerminalAnswers } from '../terminalInteractions';
import { parseArgs, renderResult } from './toolCallText';
import { jsonForTerminal, safeForTerminal } from '../terminalText';

/** The `mcp call` flags about tasks and about answering the server's questions. */
export interface CallTaskFlags {
  task?: boolean;
  detach?: boolean;
  taskTtl?: number;
  answer?: string;
  reply?: string;
  decline?: boolean;
}

export function addCallTaskOptions(command: Command): Command {
  return command
    .option('--task', 'run as an MCP task (tools that support tasks; required-task tools always are) and print its status changes')
    .option('--detach', 'start the task and print its id without waiting (implies --task)')
    .option('--task-ttl <ms>', 'ask the server to keep the task this long', (v) => Number(v))
    .option('--answer <json>', "accept the server's elicitation requests with this content")
    .option('--reply <text>', "reply to the server's sampling requests with this text")
    .option('--decline', "decline the server's elicitation and sampling requests instead of asking");
}

/** What the pipeline gets for `--task` / `--detach`; usage errors exit 2. */
export function taskOptionsFrom(flags: CallTaskFlags): InvokeTaskOptions | undefined {
  if (flags.taskTtl !== undefined && (!Number.isInteger(flags.taskTtl) || flags.taskTtl <= 0)) throw new CliExit(ExitCode.Usage, '--task-ttl must be a positive whole number of milliseconds');
  if (!flags.task && !flags.detach) return undefined;
  return { mode: flags.detach ? 'detach' : 'wait', ...(flags.taskTtl ? { ttlMs: flags.taskTtl } : {}) };
}

export function terminalAnswers(flags: CallTaskFlags): TerminalAnswers {
  return {
    ...(flags.answer !== undefined ? { elicitation: parseArgs(flags.answer, '--answer') } : {}),
    ...(flags.reply !== undefined ? { sampling: flags.reply } : {}),
    ...(flags.decline ? { decline: true } : {}),
  };
}

/** `12:00:01.250 task 6f1c… working — Gathering sources...` on stderr, so stdout stays the result. */
export function taskEventLine(event: TaskEvent & { taskId: string }): string {
  const at = new Date(event.at).toISOString().slice(11, 23);
  const how = event.via === 'created' ? 'created, ' : '';
  // Task ids, statuses and messages are the server's.
  return `${at} task ${safeForTerminal(event.taskId, 200)} ${how}${safeForTerminal(event.status, 40)}${event.statusMessage ? ` — ${safeForTerminal(event.statusMessage, 400)}` : ''}\n`;
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}

export function taskLine(task: ServerTaskView, now = Date.now()): string {
  const where = task.gone ? ' (gone from the server)' : !task.onServer && task.known ? ' (last known)' : '';
  return `${safeForTerminal(task.taskId, 200)}  ${safeForTerminal(task.status, 40).padEnd(14)}  ${safeForTerminal(task.subject, 200)}  ${age(now - task.createdAt)} ago${where}${task.statusMessage ? `  — ${safeForTerminal(task.statusMessage, 400)}` : ''}`;
}

async function withServer<T>(core: Core, server: string, run: () => Promise<T>): Promise<T> {
  try {
    await core.mcp.connect(server);
  } catch (error) {
    if (isAppError(error) && error.code === 'NotFound') throw new CliExit(ExitCode.Failed, error.message);
    if (isAppError(error)) throw new CliExit(ExitCode.CannotConnect, `Cannot connect to ${server}${error.step ? ` (${error.step})` : ''}: ${error.message}`);
    throw error;
  }
  try {
    return await run();
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (error.code === 'ConnectionFailed') throw new CliExit(ExitCode.CannotConnect, error.message);
    throw new CliExit(error.code === 'InvalidInput' ? ExitCode.Usage : ExitCode.Failed, error.message);
  } finally {
    await core.mcp.disconnect(server);
  }
}

/** `tooldeck mcp task list|get|result|cancel <server> [<task-id>]`. */
export function registerMcpTasks(mcp: Command, ctx: CliContext) {
  const task = mcp.command('task').description('MCP tasks of a saved server: list, status, result, cancel');
  const out = (io: CliIo, json: boolean | undefined, value: unknown, text: () => string) => io.stdout(json ? `${jsonForTerminal(value)}\n` : `${text()}\n`);

  task
    .command('list <server>')
    .description('The tasks Tooldeck started on the server and the ones the server lists (tasks/list)')
    .option('--json', 'print the list as JSON')
    .action(async (server: string, options: { json?: boolean }) => {
      const core = await ctx.getCore();
      const list = await withServer(core, server, () => core.mcp.tasks.list(server));
      if (list.problem) ctx.io.stderr(`${safeForTerminal(list.problem, 400)}\n`);
      out(ctx.io, options.json, list, () => (list.tasks.length ? list.tasks.map((t) => taskLine(t)).join('\n') : `No tasks on ${server}`));
    });

  task
    .command('get <server> <task-id>')
    .description('The task’s status now (tasks/get)')
    .option('--json', 'print the task as JSON')
    .action(async (server: string, taskId: string, options: { json?: boolean }) => {
      const core = await ctx.getCore();
      const view = await withServer(core, server, () => core.mcp.tasks.get(server, taskId));
      out(ctx.io, options.json, view, () => taskLine(view));
    });

  addAnswerOptions(
    task
      .command('result <server> <task-id>')
      .description('The task’s result (tasks/result): waits while it runs, asking you for any input it needs')
      .option('--json', 'print the result as JSON'),
  ).action(async (server: string, taskId: string, options: CallTaskFlags & { json?: boolean }) => {
    const core = await ctx.getCore();
    const stop = answerFromTerminal(core.mcp.broker, { io: ctx.io, answers: terminalAnswers(options) });
    try {
      const view = await withServer(core, server, () => core.mcp.tasks.result(server, taskId));
      out(ctx.io, options.json, view, () => (view.result ? renderResult(view.result as ToolResult) : `Task ${safeForTerminal(taskId, 200)} ${safeForTerminal(view.task.status, 40)}${view.task.statusMessage ? `: ${safeForTerminal(view.task.statusMessage, 400)}` : ''}${view.error ? ` (${safeForTerminal(view.error.message, 400)})` : ''}`));
      if (!view.result || (view.result as ToolResult).isError) throw new CliExit(ExitCode.Failed, '');
    } finally {
      stop();
    }
  });

  task
    .command('cancel <server> <task-id>')
    .description('Ask the server to cancel the task (tasks/cancel)')
    .option('--json', 'print the task as JSON')
    .action(async (server: string, taskId: string, options: { json?: boolean }) => {
      const core = await ctx.getCore();
      const view = await withServer(core, server, () => core.mcp.tasks.cancel(server, taskId));
      out(ctx.io, options.json, view, () => taskLine(view));
    });
}

function addAnswerOptions(command: Command): Command {
  return command
    .option('--answer <json>', "accept the server's elicitation requests with this content")
    .option('--reply <text>', "reply to the server's sampling requests with this text")
    .option('--decline', "decline the server's elicitation and sampling requests instead of asking");
}
