import type { Command } from 'commander';
import { isAppError } from '../../../shared/errors';
import { URL_ELICITATION_STEP, type McpTool } from '../../../shared/mcp';
import type { InvocationOutcome, ToolResult } from '../../../shared/registry';
import type { Core } from '../../../main/core';
import type { McpConnection } from '../../../main/mcp/McpConnection';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { registerMcpAuth } from './mcpAuth';
import { addCallTaskOptions, registerMcpTasks, taskEventLine, taskOptionsFrom, terminalAnswers, type CallTaskFlags } from './mcpTasks';
import { answerFromTerminal } from '../terminalInteractions';
import { adHocConfig, addTargetOptions, keyValues, splitCommandLine, type TargetOptions } from '../targetOptions';

const AD_HOC = 'adhoc';

/** Connects to a saved server or a one-off target; the caller must call `release`. */
async function openTarget(core: Core, name: string | undefined, options: TargetOptions): Promise<{ server: string; connection: McpConnection; release: () => Promise<void> }> {
  const config = adHocConfig(AD_HOC, options);
  if (config && name) throw new CliExit(ExitCode.Usage, 'Give either a saved server name or --stdio/--url, not both');
  if (!config && !name) throw new CliExit(ExitCode.Usage, 'Name a saved server, or give --stdio "<command>" or --url URL');
  try {
    if (config) {
      const { registerEphemeral } = await import('../../../main/mcp/McpToolSource');
      const connection = await core.mcp.openEphemeral(config);
      const unregister = registerEphemeral(core.catalog, AD_HOC, connection);
      return {
        server: AD_HOC,
        connection,
        release: async () => {
          unregister();
          await connection.close();
        },
      };
    }
    await core.mcp.connect(name!);
    return { server: name!, connection: core.mcp.connection(name!)!, release: () => core.mcp.disconnect(name!) };
  } catch (error) {
    if (isAppError(error) && error.code === 'ConnectionFailed') throw new CliExit(ExitCode.CannotConnect, `Cannot connect${error.step ? ` (${error.step})` : ''}: ${error.message}`);
    throw error;
  }
}

function toolJson(tool: McpTool) {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations };
}

export function renderResult(result: ToolResult): string {
  const lines: string[] = [];
  for (const block of result.content) {
    if (block.type === 'text') lines.push(block.text);
    else if (block.type === 'image' || block.type === 'audio') lines.push(`[${block.type} ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes]`);
    else if (block.type === 'resource_link') lines.push(`[resource link ${block.uri}${block.title ? ` — ${block.title}` : ''}]`);
    else if (block.type === 'resource') lines.push('text' in block.resource ? String(block.resource.text) : `[embedded resource ${block.resource.uri}]`);
  }
  if (result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent, null, 2));
  if (result.truncated) lines.push('(result truncated to the size cap)');
  return lines.join('\n');
}

export function parseArgs(text: string | undefined, flag = '--args'): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliExit(ExitCode.Usage, `${flag} is not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new CliExit(ExitCode.Usage, `${flag} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Exit codes of `mcp call`: 0 ok, 1 tool error or isError, 2 invalid arguments, 3 cannot connect. */
export function exitCodeFor(outcome: InvocationOutcome): number {
  if (outcome.error) {
    if (outcome.error.code === 'InvalidArguments') return ExitCode.Usage;
    if (outcome.error.code === 'ConnectionFailed') return ExitCode.CannotConnect;
    return ExitCode.Failed;
  }
  return outcome.result?.isError ? ExitCode.Failed : ExitCode.Ok;
}

export function registerMcp(program: Command, ctx: CliContext) {
  const mcp = program.command('mcp').description('MCP servers: save, list, inspect and call');

  mcp
    .command('add <name>')
    .description('Save a server')
    .option('--stdio <command>', 'stdio server: "<command> [args…]"')
    .option('--url <url>', 'Streamable HTTP server URL')
    .option('--sse', 'with --url: legacy HTTP+SSE')
    .option('--header <K=V>', 'HTTP header (repeatable; credential headers are sealed in the secret store)', (v: string, p: string[] = []) => [...p, v])
    .option('--env <K=V>', 'environment variable for stdio (repeatable; credentials are sealed in the secret store)', (v: string, p: string[] = []) => [...p, v])
    .option('--bearer-token-env <VAR>', 'read a bearer token for --url from this environment variable into the secret store')
    .option('--no-connect', 'save without trying to connect')
    .action(async (name: string, options: TargetOptions & { bearerTokenEnv?: string; connect: boolean }) => {
      if (!!options.stdio === !!options.url) throw new CliExit(ExitCode.Usage, 'Give exactly one of --stdio or --url');
      const core = await ctx.getCore();
      const bearerToken = options.bearerTokenEnv ? process.env[options.bearerTokenEnv] : undefined;
      if (options.bearerTokenEnv && !bearerToken) throw new CliExit(ExitCode.Usage, `Environment variable ${options.bearerTokenEnv} is empty`);
      // Credentials in --env, --header and the URL are sealed into the secret store by save().
      let config;
      if (options.stdio) {
        const [command, ...args] = splitCommandLine(options.stdio);
        config = { name, transport: 'stdio' as const, command: command!, args, env: keyValues(options.env, '--env'), enabled: options.connect };
      } else {
        config = { name, transport: options.sse ? ('sse' as const) : ('http' as const), url: options.url!, headers: keyValues(options.header, '--header'), enabled: options.connect };
      }
      try {
        const snapshot = await core.mcp.save({ config: config as never, bearerToken });
        const state = snapshot.state;
        ctx.io.stdout(`Saved ${name}` + (options.connect ? (state.status === 'ready' ? ` — connected, ${snapshot.tools.length} tools` : ` — not connected: ${state.step ?? ''} ${state.message ?? ''}`.trimEnd()) : '') + '\n');
      } catch (error) {
        if (isAppError(error) && error.code === 'AlreadyExists') throw new CliExit(ExitCode.Failed, error.message);
        const issues = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
        if (issues) throw new CliExit(ExitCode.Usage, issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
        throw error;
      }
    });

  mcp
    .command('list')
    .description('List saved servers')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const core = await ctx.getCore();
      const configs = core.mcp.configs();
      if (options.json) return ctx.io.stdout(`${JSON.stringify(configs, null, 2)}\n`);
      if (configs.length === 0) return ctx.io.stdout('No saved servers. Add one with: tooldeck mcp add <name> --stdio "<command>" | --url URL\n');
      for (const c of configs) ctx.io.stdout(`${c.name.padEnd(24)} ${c.transport.padEnd(6)} ${c.transport === 'stdio' ? [c.command, ...c.args].join(' ') : c.url}\n`);
    });

  mcp
    .command('export [names...]')
    .description('Print saved servers as an mcpServers file for other clients (secrets as placeholders)')
    .option('--include-secrets', 'write the stored secrets into the output instead of placeholders')
    .action(async (names: string[], options: { includeSecrets?: boolean }) => {
      const core = await ctx.getCore();
      const unknown = names.filter((name) => !core.mcp.configs().some((config) => config.name === name));
      if (unknown.length > 0) throw new CliExit(ExitCode.Failed, `No saved server named ${unknown.map((name) => `"${name}"`).join(', ')}`);
      ctx.io.stdout(await core.mcp.exportServers(names.length > 0 ? names : undefined, { includeSecrets: options.includeSecrets }));
    });

  mcp
    .command('remove <name>')
    .description('Remove a saved server and its secrets')
    .action(async (name: string) => {
      const core = await ctx.getCore();
      try {
        await core.mcp.remove(name);
      } catch (error) {
        if (isAppError(error) && error.code === 'NotFound') throw new CliExit(ExitCode.Failed, error.message);
        throw error;
      }
      ctx.io.stdout(`Removed ${name}\n`);
    });

  addTargetOptions(mcp.command('tools [name]').description('List the tools of a saved server or a one-off target'))
    .option('--json', 'print a JSON array of {name, description, inputSchema, annotations}')
    .action(async (name: string | undefined, options: TargetOptions & { json?: boolean }) => {
      const core = await ctx.getCore();
      const target = await openTarget(core, name, options);
      try {
        const tools = target.connection.tools;
        if (options.json) return ctx.io.stdout(`${JSON.stringify(tools.map(toolJson), null, 2)}\n`);
        const width = Math.min(40, Math.max(...tools.map((t) => t.name.length), 4));
        for (const tool of tools) ctx.io.stdout(`${tool.name.padEnd(width)}  ${(tool.description ?? '').split('\n')[0]}\n`);
      } finally {
        await target.release();
      }
    });

  addCallTaskOptions(
    addTargetOptions(mcp.command('call <tool> [name]').description('Call a tool through the invocation pipeline'))
      .option('--args <json>', 'arguments as a JSON object', undefined)
      .option('--timeout <ms>', 'per-request timeout in milliseconds', (v) => Number(v))
      .option('--yes', 'confirm a call that policy says needs confirmation')
      .option('--json', 'print the result (or error) as JSON'),
  ).action(async (tool: string, name: string | undefined, options: TargetOptions & CallTaskFlags & { args?: string; json?: boolean; timeout?: number; yes?: boolean }) => {
      const args = parseArgs(options.args);
      const task = taskOptionsFrom(options);
      const core = await ctx.getCore();
      const target = await openTarget(core, name, options);
      const stopAnswering = answerFromTerminal(core.mcp.broker, { io: ctx.io, answers: terminalAnswers(options) });
      let outcome: InvocationOutcome;
      try {
        const definition = target.connection.tools.find((t) => t.name === tool);
        if (!definition) throw new CliExit(ExitCode.Failed, `No tool "${tool}" on ${target.server}. Tools: ${target.connection.tools.map((t) => t.name).join(', ')}`);
        if (task && !target.connection.tasks.serverDecides && !['optional', 'required'].includes(String(definition.execution?.taskSupport))) throw new CliExit(ExitCode.Usage, `${tool} does not support tasks (its execution.taskSupport is ${String(definition.execution?.taskSupport ?? 'unset')})`);
        if (task?.mode === 'detach' && target.connection.config.transport === 'stdio') {
          throw new CliExit(ExitCode.Usage, `--detach needs a server that outlives this command: ${target.server} runs over stdio as its child, so the task would end with it. Use --task to wait, or detach from the console.`);
        }
        const { toolEntryName } = await import('../../../main/registry/ToolCatalog');
        outcome = await core.pipeline.invoke({
          name: toolEntryName({ kind: 'mcp', name: target.server }, tool),
          arguments: args,
          timeoutMs: options.timeout,
          confirmed: options.yes,
          ...(task ? { task } : {}),
          onTask: (update) => !options.json && ctx.io.stderr(taskEventLine(update)),
        });
      } finally {
        stopAnswering();
        await target.release();
      }
      if (options.json) ctx.io.stdout(`${JSON.stringify(outcome.error ? { error: outcome.error, ...(outcome.task ? { task: outcome.task } : {}) } : outcome.task ? { ...outcome.result, task: outcome.task } : outcome.result, null, 2)}\n`);
      else if (outcome.error) {
        ctx.io.stderr(`${outcome.error.code}: ${outcome.error.message}\n`);
        if (outcome.error.step === URL_ELICITATION_STEP) ctx.io.stderr(`Open ${outcome.error.details?.length === 1 ? 'this page' : 'these pages'}, finish there, then run the call again:\n${(outcome.error.details ?? []).map((u) => `  ${u}\n`).join('')}`);
      }
      else if (outcome.task && !outcome.task.awaited) {
        ctx.io.stdout(`${outcome.task.taskId}\n`);
        ctx.io.stderr(`Started task ${outcome.task.taskId}: follow it with \`tooldeck mcp task get ${target.server} ${outcome.task.taskId}\`, fetch its result with \`tooldeck mcp task result ${target.server} ${outcome.task.taskId}\`\n`);
      } else ctx.io.stdout(`${renderResult(outcome.result!)}\n`);
      const code = exitCodeFor(outcome);
      if (code !== ExitCode.Ok) throw new CliExit(code as ExitCode, options.json || outcome.error ? '' : 'The tool reported an error (isError)');
    });

  registerMcpAuth(mcp, ctx);
  registerMcpTasks(mcp, ctx);

  mcp
    .command('conformance-client <url>')
    .description('The client the MCP conformance runner drives (reads MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT)')
    .action(async (url: string) => {
      const core = await ctx.getCore();
      const { runConformanceClient } = await import('./conformanceClient');
      await runConformanceClient(core, url, process.env, ctx.io);
    });
}

