import type { Command } from 'commander';
import { isAppError } from '../../../shared/errors';
import type { InvocationOutcome } from '../../../shared/registry';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { exitCodeFor, parseArgs, renderResult } from './toolCallText';
import { timeoutMsOption } from '../options';
import { jsonForTerminal, safeForTerminal, terminalMessage } from '../terminalText';

/** Prints an outcome as `mcp call` does and ends with its exit code. */
export function reportOutcome(ctx: CliContext, outcome: InvocationOutcome, json: boolean | undefined): void {
  if (json) ctx.io.stdout(`${jsonForTerminal(outcome.error ? { error: outcome.error } : outcome.result)}\n`);
  else if (outcome.error) ctx.io.stderr(`${outcome.error.code}: ${terminalMessage(outcome.error.message)}\n`);
  else ctx.io.stdout(`${renderResult(outcome.result!)}\n`);
  const code = exitCodeFor(outcome);
  if (code !== ExitCode.Ok) throw new CliExit(code as ExitCode, json || outcome.error ? '' : 'The tool reported an error (isError)');
}

export function registerCall(program: Command, ctx: CliContext) {
  program
    .command('call <tool>')
    .description('Call any registry entry (mcp:, a2a:, http:, grpc:<source>.<tool>, or bus:<agent>.<tool> with $TOOLDECK_AMQP_URL) through the invocation pipeline')
    .option('--args <json>', 'arguments as a JSON object')
    .addOption(timeoutMsOption())
    .option('--yes', 'confirm a call that policy says needs confirmation')
    .option('--json', 'print the result (or error) as JSON')
    .action(async (tool: string, options: { args?: string; json?: boolean; timeout?: number; yes?: boolean }) => {
      const args = parseArgs(options.args);
      const { parseToolName } = await import('../../../main/registry/InvocationPipeline');
      let source;
      try {
        const parsed = parseToolName(tool);
        source = { kind: parsed.sourceKind, name: parsed.sourceName };
      } catch (error) {
        throw new CliExit(ExitCode.Usage, (error as Error).message);
      }
      // Over the contract: the same procedures the console's invoke panel uses.
      const contract = await contractFor(await ctx.getCore(), ctx.interrupted);
      try {
        await contract.tools.prepareSource(source);
      } catch (error) {
        if (isAppError(error) && error.code === 'ConnectionFailed') throw new CliExit(ExitCode.CannotConnect, `Cannot connect to ${source.kind}:${source.name}${error.step ? ` (${error.step})` : ''}: ${error.message}`);
        if (isAppError(error)) throw new CliExit(ExitCode.Failed, `${source.kind}:${source.name}: ${error.message}`);
        throw error;
      }
      if (!(await contract.tools.get({ name: tool }))) {
        const known = (await contract.tools.list({ source: `${source.kind}:${source.name}` })).map((entry) => entry.toolName);
        throw new CliExit(ExitCode.Failed, `No tool named ${tool} is registered.${known.length ? ` ${source.kind}:${source.name} has: ${known.map((name) => safeForTerminal(name, 100)).join(', ')}` : ''}`);
      }
      const outcome = await contract.tools.invoke({ name: tool, arguments: args, timeoutMs: options.timeout, confirmed: options.yes });
      reportOutcome(ctx, outcome, options.json);
    });
}
