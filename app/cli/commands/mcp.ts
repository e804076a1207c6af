import { operatorCaller } from '../../../shared/caller';
import type { Command } from 'commander';
import { isAppError } from '../../../shared/errors';
import { SaveServerInput, stdioLaunchLine, URL_ELICITATION_STEP, type McpTool } from '../../../shared/mcp';
import { excerpt, jsonForTerminal, safeForTerminal, terminalMessage } from '../terminalText';
import type { InvocationOutcome } from '../../../shared/registry';
import type { Core } from '../../../main/core';
import type { McpConnection } from '../../../main/mcp/McpConnection';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { registerMcpAuth } from './mcpAuth';
import { exitCodeFor, parseArgs, renderResult } from './toolCallText';
import { addCallTaskOptions, registerMcpTasks, taskEventLine, taskOptionsFrom, terminalAnswers, type CallTaskFlags } from './mcpTasks';
import { answerFromTerminal } from '../terminalInteractions';
import { adHocConfig, addTargetOptions, keyValues, splitCommandLine, type TargetOptions } from '../targetOptions';
import { collectKeyValue, parseHttpUrl, timeoutMsOption } from '../options';
import { issuesSentence, validationIssues } from '../../../shared/issuesSentence';

const AD_HOC = 'adhoc';

/** Connects to a saved server or a one-off target, warning about what it got wrong; the caller must call `release`. */
export async function openTarget(ctx: CliContext, core: Core, name: string | undefined, options: TargetOptions): Promise<{ server: string; connection: McpConnection; release: () => Promise<void> }> {
  const target = await connectTarget(core, name, options);
  for (const problem of target.connection.snapshot().problems) ctx.io.stderr(`warning: ${target.server}: ${safeForTerminal(problem, 300)}\n`);
  return target;
}

async function connectTarget(core: Core, name: string | undefined, options: TargetOptions): Promise<{ server: string; connection: McpConnection; release: () => Promise<void> }> {
  const config = adHocConfig(AD_HOC, options);
  if (config && name) throw new CliExit(ExitCode.Usage, 'Give either a saved server name or --stdio/--url, not both');
  if (!config && !name) throw new CliExit(ExitCode.Usage, 'Name a saved server, or give --stdio "<command>" or --url URL');
  try {
    if (config) {
      const { registerEphemeral } = await import('../../../main/mcp/McpToolSource');
      const connection = await core.mcp.openEphemeral(config);
      let unregister: () => void;
      try {
        unregister = registerEphemeral(core.catalog, AD_HOC, connection);
      } catch (error) {
        // A one-shot command must end: the server it started ends with it, whatever failed.
        await connection.close();
        throw error;
      }
      return {
        server: AD_HOC,
        connection,
        release: async () => {
          unregister();
          await connection.close();
        },
      };
    }
    // A saved server, or an McpServer of the workspace reconciled once, as the console would.
    await core.servers.connect(name!);
    return { server: name!, connection: core.mcp.connection(name!)!, release: () => core.mcp.disconnect(name!) };
  } catch (error) {
    if (isAppError(error) && error.code === 'ConnectionFailed') throw new CliExit(ExitCode.CannotConnect, `Cannot connect${error.step ? ` (${error.step})` : ''}: ${error.message}`);
    if (isAppError(error) && error.code === 'NotFound') throw new CliExit(ExitCode.Failed, error.message);
    throw error;
  }
}

function toolJson(tool: McpTool) {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations };
}

export function registerMcp(program: Command, ctx: CliContext) {
  const mcp = program.command('mcp').description('MCP servers: save, list, inspect and call');

  mcp
    .command('add <name>')
    .description('Save a server')
    .option('--stdio <command>', 'stdio server: "<command> [args…]"')
    .option('--url <url>', 'Streamable HTTP server URL', parseHttpUrl)
    .option('--sse', 'with --url: legacy HTTP+SSE')
    .option('--header <K=V>', 'HTTP header (repeatable; every value is sealed in the secret store)', collectKeyValue)
    .option('--env <K=V>', 'environment variable for stdio (repeatable; every value is sealed in the secret store; `mcp export NAME --include-secrets` prints them)', collectKeyValue)
    .option('--bearer-token-env <VAR>', 'read a bearer token for --url from this environment variable into the secret store')
    .option('--no-connect', 'save without trying to connect')
    .action(async (name: string, options: TargetOptions & { bearerTokenEnv?: string; connect: boolean }) => {
      if (!!options.stdio === !!options.url) throw new CliExit(ExitCode.Usage, 'Give exactly one of --stdio or --url');
      const core = await ctx.getCore();
      const bearerToken = options.bearerTokenEnv ? process.env[options.bearerTokenEnv] : undefined;
      if (options.bearerTokenEnv && !bearerToken) throw new CliExit(ExitCode.Usage, `Environment variable ${options.bearerTokenEnv} is empty`);
      // Every --env and --header value, and credentials in the URL, are sealed into the secret store by save().
      let config;
      if (options.stdio) {
        const [command, ...args] = splitCommandLine(options.stdio);
        config = { name, transport: 'stdio' as const, command: command!, args, env: keyValues(options.env, '--env'), enabled: options.connect };
      } else {
        config = { name, transport: options.sse ? ('sse' as const) : ('http' as const), url: options.url!, headers: keyValues(options.header, '--header'), enabled: options.connect };
      }
      try {
        // Checked here first, so a bad flag is named as the server's field it fills.
        const input = SaveServerInput.safeParse({ config, bearerToken });
        if (!input.success) throw input.error;
        // A URL server's Server Card is read before it is trusted (no credential sent, no redirect
        // followed), shown as what it is — a claim — and held against tools/list once connected.
        const card = options.url ? await (await import('../../../main/mcpRegistry/serverCard')).fetchServerCard(options.url) : undefined;
        if (card) {
          const about = [card.name, card.version].filter(Boolean).join(' ');
          ctx.io.stderr(`Its server card says: ${safeForTerminal(about || '(no name)', 300)}${card.description ? ` — ${excerpt(card.description, 300)}` : ''}${card.tools ? `; declares ${card.tools.length} tool${card.tools.length === 1 ? '' : 's'}` : ''}\n`);
        }
        const snapshot = await (await contractFor(core)).mcp.save(input.data);
        const state = snapshot.state;
        if (card && state.status === 'ready') {
          const { diffCardTools } = await import('../../../main/mcpRegistry/serverCard');
          const { undeclared, missing } = diffCardTools(card, snapshot.tools.map((tool) => tool.name));
          const names = (list: string[]) => list.map((tool) => safeForTerminal(tool, 80)).join(', ');
          if (undeclared.length) ctx.io.stderr(`warning: tools/list has ${undeclared.length} tool${undeclared.length === 1 ? '' : 's'} its server card does not declare: ${names(undeclared)}\n`);
          if (missing.length) ctx.io.stderr(`warning: its server card declares ${names(missing)}, which tools/list does not have\n`);
        }
        ctx.io.stdout(`Saved ${safeForTerminal(name)}` + (options.connect ? (state.status === 'ready' ? ` — connected, ${snapshot.tools.length} tools` : ` — not connected: ${state.step ?? ''} ${excerpt(state.message ?? '', 400)}`.trimEnd()) : '') + '\n');
      } catch (error) {
        if (isAppError(error) && error.code === 'AlreadyExists') throw new CliExit(ExitCode.Failed, error.message);
        const issues = validationIssues(error);
        if (issues) throw new CliExit(ExitCode.Usage, issuesSentence(issues, 'server'));
        throw error;
      }
    });

  mcp
    .command('list')
    .description('List every server: saved ones and the McpServer resources of the workspace')
    .option('--json', 'print JSON: each server\'s config (secrets as ***) with its origin')
    .action(async (options: { json?: boolean }) => {
      const servers = await (await contractFor(await ctx.getCore())).mcp.inventory();
      if (options.json) {
        const rows = servers.map((server) => ({ name: server.name, origin: server.origin, ...(server.config ?? {}), ...(server.problem ? { problem: server.problem } : {}) }));
        return ctx.io.stdout(`${jsonForTerminal(rows)}\n`);
      }
      if (servers.length === 0) return ctx.io.stdout('No servers. Add one with: tooldeck mcp add <name> --stdio "<command>" | --url URL, or an McpServer in the workspace\n');
      const origin = (server: (typeof servers)[number]) =>
        server.origin.kind === 'workspace' ? `workspace ${safeForTerminal(server.origin.file, 200)}` : server.origin.kind === 'provided' ? `provided (${safeForTerminal(server.origin.by, 200)})` : 'saved';
      const width = Math.max(...servers.map((server) => origin(server).length), 6);
      for (const server of servers) {
        const c = server.config;
        const target = c ? (c.transport === 'stdio' ? stdioLaunchLine(c) : c.url) : `(unusable: ${server.problem})`;
        ctx.io.stdout(`${safeForTerminal(server.name).padEnd(24)} ${origin(server).padEnd(width)} ${(c?.transport ?? '').padEnd(6)} ${safeForTerminal(target)}\n`);
      }
    });

  mcp
    .command('export [names...]')
    .description("Print servers (saved and the workspace's, as they run) as an mcpServers file for other clients (secrets as placeholders)")
    .option('--include-secrets', 'write the stored secrets into the output instead of placeholders')
    .action(async (names: string[], options: { includeSecrets?: boolean }) => {
      const core = await ctx.getCore();
      const servers = core.servers.list();
      const unknown = names.filter((name) => !servers.some((server) => server.name === name));
      if (unknown.length > 0) throw new CliExit(ExitCode.Failed, `No server named ${unknown.map((name) => `"${name}"`).join(', ')}`);
      const configs = servers.flatMap((server) => (server.config && (names.length === 0 || names.includes(server.name)) ? [server.config] : []));
      // With secrets, past the contract: the console never exports them (its procedure writes placeholders only).
      ctx.io.stdout(options.includeSecrets ? await core.mcp.exportServers(configs, { includeSecrets: true }) : await (await contractFor(core)).mcp.export({ names: names.length ? names : undefined }));
    });

  mcp
    .command('remove <name>')
    .description('Remove a saved server and its secrets')
    .action(async (name: string) => {
      const core = await ctx.getCore();
      try {
        await (await contractFor(core)).mcp.remove({ name });
      } catch (error) {
        if (isAppError(error) && error.code === 'NotFound') throw new CliExit(ExitCode.Failed, error.message);
        throw error;
      }
      ctx.io.stdout(`Removed ${name}\n`);
    });

  addTargetOptions(mcp.command('tools [name]').description('List the tools of a server or a one-off target, with the verdict a call would meet'))
    .option('--json', 'print a JSON array of {name, description, inputSchema, annotations, verdict}')
    .action(async (name: string | undefined, options: TargetOptions & { json?: boolean }) => {
      const core = await ctx.getCore();
      const target = await openTarget(ctx, core, name, options);
      try {
        const tools = target.connection.tools;
        // The verdict a call would meet: the effective policy of the tool's registry entry.
        const verdictOf = (tool: McpTool) => {
          const entry = core.catalog.get(`mcp:${target.server}.${tool.name}`);
          return entry ? core.pipeline.policy.verdict(entry) : undefined;
        };
        // Tools a workspace McpServer's tool_filter.include keeps out of the registry cannot be called
        // at all; they are marked as such rather than shown as if allowed.
        const excluded = core.servers.snapshots().find((snapshot) => snapshot.config.name === target.server)?.excludedTools ?? {};
        if (options.json) {
          return ctx.io.stdout(`${jsonForTerminal(tools.map((tool) => ({ ...toolJson(tool), verdict: verdictOf(tool), ...(excluded[tool.name] ? { excluded: excluded[tool.name]!.reason } : {}) })))}\n`);
        }
        const width = Math.min(40, Math.max(...tools.map((t) => t.name.length), 4));
        for (const tool of tools) {
          const verdict = verdictOf(tool)?.verdict;
          const mark = excluded[tool.name] ? `[${excluded[tool.name]!.reason}] ` : verdict === 'deny' ? '[denied] ' : verdict === 'confirm' ? '[needs approval] ' : '';
          ctx.io.stdout(`${safeForTerminal(tool.name, 200).padEnd(width)}  ${mark}${safeForTerminal((tool.description ?? '').split('\n')[0]!, 200)}\n`);
        }
      } finally {
        await target.release();
      }
    });

  addCallTaskOptions(
    addTargetOptions(mcp.command('call <tool> [name]').description('Call a tool through the invocation pipeline'))
      .option('--args <json>', 'arguments as a JSON object', undefined)
      .addOption(timeoutMsOption())
      .option('--yes', 'confirm a call that policy says needs confirmation')
      .option('--json', 'print the result (or error) as JSON'),
  ).action(async (tool: string, name: string | undefined, options: TargetOptions & CallTaskFlags & { args?: string; json?: boolean; timeout?: number; yes?: boolean }) => {
      const args = parseArgs(options.args);
      const task = taskOptionsFrom(options);
      const core = await ctx.getCore();
      const target = await openTarget(ctx, core, name, options);
      const stopAnswering = answerFromTerminal(core.mcp.broker, { io: ctx.io, answers: terminalAnswers(options) });
      let outcome: InvocationOutcome;
      try {
        const definition = target.connection.tools.find((t) => t.name === tool);
        if (!definition) throw new CliExit(ExitCode.Failed, `No tool "${tool}" on ${target.server}. Tools: ${target.connection.tools.map((t) => safeForTerminal(t.name, 100)).join(', ')}`);
        if (task && !target.connection.tasks.serverDecides && !['optional', 'required'].includes(String(definition.execution?.taskSupport))) throw new CliExit(ExitCode.Usage, `${tool} does not support tasks (its execution.taskSupport is ${String(definition.execution?.taskSupport ?? 'unset')})`);
        if (task?.mode === 'detach' && target.connection.config.transport === 'stdio') {
          throw new CliExit(ExitCode.Usage, `--detach needs a server that outlives this command: ${target.server} runs over stdio as its child, so the task would end with it. Use --task to wait, or detach from the console.`);
        }
        const { toolEntryName } = await import('../../../main/registry/ToolCatalog');
        outcome = await core.pipeline.invoke({
          caller: operatorCaller('cli'),
          name: toolEntryName({ kind: 'mcp', name: target.server }, tool),
          arguments: args,
          timeoutMs: options.timeout,
          confirmed: options.yes,
          signal: ctx.interrupted,
          ...(task ? { task } : {}),
          onTask: (update) => !options.json && ctx.io.stderr(taskEventLine(update)),
        });
      } finally {
        stopAnswering();
        await target.release();
      }
      if (options.json) ctx.io.stdout(`${jsonForTerminal(outcome.error ? { error: outcome.error, ...(outcome.task ? { task: outcome.task } : {}) } : outcome.task ? { ...outcome.result, task: outcome.task } : outcome.result)}\n`);
      else if (outcome.error) {
        ctx.io.stderr(`${outcome.error.code}: ${terminalMessage(outcome.error.message)}\n`);
        if (outcome.error.step === URL_ELICITATION_STEP) ctx.io.stderr(`Open ${outcome.error.details?.length === 1 ? 'this page' : 'these pages'}, finish there, then run the call again:\n${(outcome.error.details ?? []).map((u) => `  ${safeForTerminal(u, 2_000)}\n`).join('')}`);
      } else if (outcome.task && !outcome.task.awaited) {
        ctx.io.stdout(`${safeForTerminal(outcome.task.taskId, 200)}\n`);
        ctx.io.stderr(`Started task ${safeForTerminal(outcome.task.taskId, 200)}: follow it with \`tooldeck mcp task get ${target.server} ${safeForTerminal(outcome.task.taskId, 200)}\`, fetch its result with \`tooldeck mcp task result ${target.server} ${safeForTerminal(outcome.task.taskId, 200)}\`\n`);
      } else ctx.io.stdout(`${renderResult(outcome.result!)}\n`);
      const code = exitCodeFor(outcome);
      if (code !== ExitCode.Ok) throw new CliExit(code as ExitCode, options.json || outcome.error ? '' : 'The tool reported an error (isError)');
    });

  registerMcpAuth(mcp, ctx);
  registerMcpTasks(mcp, ctx);

  mcp
    .command('conformance-client')
    .description('The client the MCP conformance runner drives (reads MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT)')
    .argument('<url>', 'the server the runner started', parseHttpUrl)
    .action(async (url: string) => {
      const core = await ctx.getCore();
      const { runConformanceClient } = await import('./conformanceClient');
      await runConformanceClient(core, url, process.env, ctx.io);
    });
}

