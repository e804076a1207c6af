import type { Command } from 'commander';
import type { A2aTurns } from '../../../main/a2a/A2aTurns';
import { operatorCaller } from '../../../shared/caller';
import type { A2aArtifact, A2aCardReport, A2aCheckRow, A2aEvent, A2aSendResult } from '../../../shared/a2a';
import { isAppError, type AppError } from '../../../shared/errors';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { timeoutMsOption } from '../options';
import { jsonForTerminal, safeForTerminal, safeLines } from '../terminalText';

/** A field of the agent's card or answer that is one line: its line breaks escaped, so it cannot add a line (a forged PASS row) of its own. */
const line = (text: string) => safeForTerminal(text, 500);

/** Reaching the agent failed (nothing listens, no card there, no answer in time): exit 3; anything else: exit 1. */
function exitFor(error: unknown): never {
  if (!isAppError(error)) throw error;
  const unreachable =
    error.code === 'ConnectionFailed' || (error.step === 'fetch' && (error.code === 'NotFound' || error.code === 'Timeout'));
  throw new CliExit(unreachable ? ExitCode.CannotConnect : ExitCode.Failed, describeError(error));
}

function describeError(error: AppError): string {
  return `${error.code}${error.step ? ` (${error.step})` : ''}: ${error.message}`;
}

const STATUS_LABEL: Record<A2aCheckRow['status'], string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' };

export function renderCard(report: A2aCardReport): string {
  const { card } = report;
  const lines = [
    `${line(card.name || '(unnamed)')}  ${line(card.version || '(no version)')}  (A2A ${line(card.protocolVersion)})`,
    ...(card.description ? [card.description] : []),
    `Card        ${line(report.cardUrl)}`,
    'Interfaces',
    ...card.interfaces.map((i) => `  ${line(i.binding).padEnd(10)} ${line(i.url)}${i.protocolVersion ? `  (${line(i.protocolVersion)})` : ''}`),
    `Streaming   ${card.capabilities.streaming ? 'yes' : 'no'}`,
    'Skills',
    ...(card.skills.length ? card.skills.map((s) => `  ${line(s.id).padEnd(10)} ${line(s.name)}${s.description ? ` — ${line(s.description)}` : ''}`) : ['  (none)']),
    `Security    ${card.securitySchemes.length ? card.securitySchemes.map((s) => line(`${s.name} (${s.type} ${s.detail})`)).join(', ') : 'none'}`,
    'Checks',
    ...report.rows.map((r) => `  ${STATUS_LABEL[r.status]}  ${line(r.title)}: ${line(r.detail)}`),
  ];
  return `${lines.join('\n')}\n`;
}

function renderArtifact(artifact: A2aArtifact): string {
  const body = artifact.parts
    .map((p) => (p.kind === 'text' ? p.text : p.kind === 'data' ? JSON.stringify(p.data, null, 2) : `[file ${p.filename ?? p.url ?? ''} ${p.mediaType ?? ''}]`.trim()))
    .join('\n');
  const kinds = [...new Set(artifact.parts.map((p) => p.kind))].join('+');
  return `artifact ${line(artifact.name ?? artifact.artifactId)} (${kinds})\n${body.replace(/^/gm, '  ')}\n`;
}

function renderEvent(event: A2aEvent): string {
  const time = new Date(event.at).toISOString().slice(11, 23);
  if (event.kind === 'artifact') return event.artifact ? renderArtifact(event.artifact) : '';
  if (event.kind === 'message') return `${time}  agent: ${event.text ?? ''}\n`;
  return `${time}  ${line(event.state ?? '?').padEnd(14)} ${event.text ?? ''}`.trimEnd() + '\n';
}

function renderResult(result: A2aSendResult): string {
  if (result.kind === 'message') return `${result.text}\n`;
  return `${line(result.state ?? '?')}${result.task?.statusText ? `  ${line(result.task.statusText)}` : ''}\n${result.artifacts.map(renderArtifact).join('')}`;
}

function footer(taskId: string | undefined, contextId: string | undefined, state: string | undefined): string {
  const ids = [taskId ? `task ${line(taskId)}` : '', contextId ? `context ${line(contextId)}` : ''].filter(Boolean).join('  ');
  const hint = state === 'INPUT_REQUIRED' || state === 'AUTH_REQUIRED' ? `\nThe agent is waiting: answer with --task ${line(taskId ?? '')} "<text>".` : '';
  return ids ? `${ids}${hint}\n` : '';
}

/** `tooldeck a2a card|send`: inspect an agent's card, or talk to it, by URL or saved name. */
export function registerA2a(program: Command, ctx: CliContext) {
  // A turn is a call of the agent's turn entry through the pipeline: policy applies, history records it.
  const turns = async (): Promise<A2aTurns> => (await ctx.getCore()).a2aTurns;

  const a2a = program.command('a2a').description('A2A agents: inspect cards, send messages');

  a2a
    .command('card')
    .description('Fetch and validate an agent card (exit 1 when a check fails)')
    .argument('<agent>', 'agent base URL, card URL, or saved agent name')
    .option('--json', 'print the report as JSON')
    .action(async (target: string, options: { json?: boolean }) => {
      let report: A2aCardReport;
      try {
        // Over the contract: the card check the console's Agents section runs.
        report = await (await contractFor(await ctx.getCore(), ctx.interrupted)).a2a.inspect({ target });
      } catch (error) {
        exitFor(error);
      }
      ctx.io.stdout(options.json ? `${jsonForTerminal(report)}\n` : safeLines(renderCard(report)));
      const failed = report.rows.filter((r) => r.status === 'fail');
      if (failed.length) throw new CliExit(ExitCode.Failed, `${failed.length} check(s) failed: ${failed.map((r) => r.id).join(', ')}`);
    });

  a2a
    .command('send')
    .description('Send a message to an agent and print its answer (exit 3 when it cannot be reached)')
    .argument('<agent>', 'agent base URL, card URL, or saved agent name')
    .argument('<text>', 'message text')
    .option('--stream', 'print task states and artifacts as they arrive')
    .option('--json', 'print JSON (one event per line with --stream)')
    .option('--context <id>', 'continue this conversation')
    .option('--task <id>', 'continue this task (answer an INPUT_REQUIRED question)')
    .option('--yes', 'confirm a turn that policy says needs confirmation')
    .addOption(timeoutMsOption('give up after this long and cancel the task').default(120_000))
    .action(async (target: string, text: string, options: { stream?: boolean; json?: boolean; context?: string; task?: string; timeout: number; yes?: boolean }) => {
      const opts = { caller: operatorCaller('a2a'), contextId: options.context, taskId: options.task, timeoutMs: options.timeout, confirmed: options.yes, signal: ctx.interrupted };
      let taskId: string | undefined;
      let contextId: string | undefined;
      let state: string | undefined;
      try {
        if (options.stream) {
          for await (const event of (await turns()).stream(target, text, opts)) {
            taskId ??= event.taskId;
            contextId ??= event.contextId;
            state = event.state ?? state;
            ctx.io.stdout(options.json ? `${jsonForTerminal(event, 0)}\n` : safeLines(renderEvent(event)));
          }
        } else {
          const result = await (await turns()).send(target, text, opts);
          ({ taskId, contextId, state } = result);
          ctx.io.stdout(options.json ? `${jsonForTerminal(result)}\n` : safeLines(renderResult(result)));
        }
      } catch (error) {
        exitFor(error);
      }
      if (!options.json) ctx.io.stdout(footer(taskId, contextId, state));
      if (state === 'FAILED' || state === 'REJECTED' || state === 'CANCELED') throw new CliExit(ExitCode.Failed, `The task ended ${state}.`);
    });
}
