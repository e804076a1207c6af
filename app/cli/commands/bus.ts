import type { Command } from 'commander';
import type { LocalReconciler } from '../../../main/resources/LocalReconciler';
import { isAppError } from '../../../shared/errors';
import { checkAmqpUrl } from '../../../main/bus/amqpUrl';
import { AMQP_URL_ENV } from '../../../main/bus/busSourceKind';
import { connectSources } from '../../../main/lock/connectSources';
import { savedSourceIds } from '../../../main/registry/ToolSourceKind';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { integerIn } from '../options';
import { terminalName } from '../terminalText';

/** Where the broker URL may come from instead of --amqp, so its password stays out of the process list. */
export { AMQP_URL_ENV };

interface BridgeOptions {
  amqp?: string;
  agent: string;
  connectTimeout: number;
  /** commander's --no-discover. */
  discover: boolean;
  trustRbSource?: boolean;
}

/**
 * `tooldeck bus bridge`: Tooldeck as a RockBot MCP bridge on RabbitMQ. RockBot agents' tool calls
 * run through the pipeline (policy, approvals, history) until SIGINT/SIGTERM; several bridges on
 * the same agent share its queue. The broker URL is never printed with its password.
 */
export function registerBus(program: Command, ctx: CliContext) {
  const bus = program.command('bus').description("RockBot's bus: serve RockBot agents' MCP tool calls over RabbitMQ");
  bus
    .command('bridge')
    .description('Run as a RockBot MCP bridge: answer ToolInvokeRequests on tool.invoke.mcp with the registry’s tools, until interrupted')
    .option('--amqp <url>', `the broker, amqp://USER:PASSWORD@HOST:PORT/VHOST (default: $${AMQP_URL_ENV}, which keeps the password out of the process list)`)
    .requiredOption('--agent <name>', 'the bridge’s name on the bus: it consumes rockbot.mcp-bridge.NAME and announces its servers on tool.meta.mcp.NAME')
    .option('--no-discover', 'do not offer the tools of other bridges on the bus as bus:AGENT.TOOL entries (they are discovered by default)')
    .option('--trust-rb-source', 'take a request without the AMQP user_id (which RabbitMQ checks against the publisher’s broker user) as coming from the agent its rb-source header names: anyone who may publish on the exchange can then claim any agent, so only for brokers where every publisher is trusted (RockBot’s own agents do not set user_id)')
    .option('--connect-timeout <seconds>', 'how long to wait for the broker at start (later drops reconnect with backoff, however long)', integerIn(1, 3600), 30)
    .action(async (options: BridgeOptions) => {
      const url = options.amqp ?? process.env[AMQP_URL_ENV];
      if (!url) throw new CliExit(ExitCode.Usage, `Name the broker with --amqp URL or $${AMQP_URL_ENV}.`);
      try {
        checkAmqpUrl(url);
      } catch (error) {
        throw new CliExit(ExitCode.Usage, (error as Error).message);
      }
      const core = await ctx.getCore('web');
      // Connect the registry's sources before taking requests: a bridge joining a running fleet
      // must not answer tool_not_found for a tool whose server is still starting.
      const unreachable = (name: string, reason: string) => ctx.io.stderr(`${terminalName(name)} is not reachable (${reason}); its tools are offered once it connects.\n`);
      await workspaceServersSettled(core.resources.reconciler, 60_000);
      for (const outcome of await connectSources(core, await savedSourceIds(core.sourceKinds))) {
        if (!outcome.ok) unreachable(outcome.id, outcome.error ?? 'unknown reason');
      }
      let status;
      try {
        status = await core.bus.start({ url, agent: options.agent, connectTimeoutMs: options.connectTimeout * 1000, discover: options.discover, trustRbSource: options.trustRbSource === true });
      } catch (error) {
        if (isAppError(error) && error.code === 'InvalidInput') throw new CliExit(ExitCode.Usage, error.message);
        if (isAppError(error) && error.code === 'ConnectionFailed') throw new CliExit(ExitCode.CannotConnect, error.message);
        throw error;
      }
      ctx.io.stdout(`Bus bridge ${terminalName(options.agent)} on ${status.url} (queue ${status.queue})\n`);
      if (status.trustRbSource) ctx.io.stderr('Trusting rb-source: a request without user_id is taken as the agent it claims, so anyone who may publish on the exchange can act as any agent.\n');
      // SIGINT/SIGTERM is a bridge's normal end (a pod stopped, a fleet scaled in): it exits 0 once stopped.
      const reason = await ctx.runUntilStopped();
      // Requests still running go back to the queue for another bridge; nothing is left unacknowledged here.
      await core.bus.stop();
      ctx.io.stderr(`Bus bridge stopped (${reason}).\n`);
    });
}

/**
 * Resolves once no McpServer of the workspace is still pending or connecting (each is Ready or in
 * Error), or after `timeoutMs`: the workspace's servers are started by its reconciler in the
 * background, and a bridge must not take requests for their tools before they are listed.
 */
function workspaceServersSettled(reconciler: Pick<LocalReconciler, 'statuses' | 'onChange'>, timeoutMs: number): Promise<void> {
  const settled = () => reconciler.statuses().mcpServers.every((server) => server.status.phase === 'Ready' || server.status.phase === 'Error');
  if (settled()) return Promise.resolve();
  return new Promise((done) => {
    const finish = () => {
      clearTimeout(timer);
      stop();
      done();
    };
    const timer = setTimeout(finish, timeoutMs);
    const stop = reconciler.onChange(() => {
      if (settled()) finish();
    });
  });
}
