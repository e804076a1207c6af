import type { Command } from 'commander';
import { DEFAULT_GATEWAY_PORT } from '../../../shared/gateway';
import { isAppError } from '../../../shared/errors';
import { isLoopbackHost } from '../../../main/platform/requestGuard';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { useClusterAgents, useClusterApprovals } from '../clusterApprovals';
import { integerIn, parsePort } from '../options';
import { terminalName } from '../terminalText';

interface GatewayOptions {
  port: number;
  host: string;
  dangerouslyBindAll?: boolean;
  rate: number;
  stdio?: boolean;
  agent?: string;
  metaTools?: boolean;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  inCluster?: boolean;
  allowedHost: string[];
  metricsPort?: number;
  agentNamespace: string[];
}

/**
 * `tooldeck gateway`: the MCP gateway for agents. Serves until SIGINT/SIGTERM; `token` manages the
 * agents' credentials, which work from another process on the same data dir while it runs (a
 * revoked agent's sessions end at once).
 */
export function registerGateway(program: Command, ctx: CliContext) {
  const gateway = program
    .command('gateway')
    .description('Serve one MCP endpoint through which agents call the tools granted to them (policy, approvals, history)')
    .option('--port <n>', 'port (0 picks a free one)', parsePort, DEFAULT_GATEWAY_PORT)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--dangerously-bind-all', 'allow a non-loopback --host (agent credentials are then the only guard)')
    .option('--rate <n>', 'requests per second each agent may make (burst: twice as many)', integerIn(1, 100_000), 50)
    .option('--stdio', 'serve one agent over stdin/stdout instead, for MCP hosts that launch their servers (needs --agent)')
    .option('--agent <name>', 'with --stdio: the agent whose grants and policy apply (it must hold a live credential)')
    .option('--meta-tools', "every agent sees four meta-tools (search_known_services, list_services, get_service_details, invoke_tool) instead of its tools, as RockBot's agents do on large catalogs")
    .option('--kubeconfig <file>', "keep held calls' approvals as ToolApproval objects in this cluster (shared by every gateway replica) instead of the data dir")
    .option('--context <name>', 'with --kubeconfig: the kubeconfig context (default: the current one)')
    .option('-n, --namespace <name>', 'the namespace of the ToolApprovals (default: the pod\'s with --in-cluster, else tooldeck-system)')
    .option('--allowed-host <name>', 'a host name agents may address the gateway by, besides its address (repeatable; e.g. its Kubernetes Service name)', (name: string, all: string[]) => [...all, name], [] as string[])
    .option('--metrics-port <n>', 'also serve Prometheus metrics (calls, errors, held calls, approvals decided, rate-limited requests per agent) at /metrics on this port of the same address: no credential is asked there and nothing else is served (0 picks a free one)', parsePort)
    .option('--agent-namespace <name>', "with --kubeconfig or --in-cluster: let in this namespace's Language Operator agents with the credentials the operator issued them, granted their LanguageAgent's spec.tools, served from that namespace's LanguageTools (repeatable)", (name: string, all: string[]) => [...all, name], [] as string[])
    .option('--in-cluster', "in a pod: ToolApprovals in the cluster, with the pod's ServiceAccount (as `tooldeck kube install --gateway` runs it)")
    .action(async (options: GatewayOptions) => {
      if (options.inCluster || options.kubeconfig !== undefined || options.namespace !== undefined || options.context !== undefined) await useClusterApprovals(ctx, options);
      if (options.stdio && options.metricsPort !== undefined) throw new CliExit(ExitCode.Usage, '--metrics-port goes with the HTTP gateway, not --stdio');
      if (options.agentNamespace.length) {
        if (!options.inCluster && options.kubeconfig === undefined) throw new CliExit(ExitCode.Usage, '--agent-namespace goes with --kubeconfig or --in-cluster');
        await useClusterAgents(ctx, { ...options, agentNamespaces: options.agentNamespace });
      }
      if (options.stdio) return serveStdio(ctx, options.agent, options.metaTools === true);
      if (options.agent !== undefined) throw new CliExit(ExitCode.Usage, '--agent goes with --stdio; over HTTP each agent is named by its credential');
      if (!isLoopbackHost(options.host)) {
        if (!options.dangerouslyBindAll) throw new CliExit(ExitCode.Usage, `--host ${options.host} is not a loopback address; add --dangerously-bind-all to bind it anyway`);
        ctx.io.stderr(`WARNING: binding ${options.host}: anyone who can reach this address may try agent credentials.\n`);
      }
      const core = await ctx.getCore('web');
      let status;
      try {
        status = await core.gateway.start({ port: options.port, host: options.host, dangerouslyBindAll: options.dangerouslyBindAll, rate: { perSecond: options.rate, burst: options.rate * 2 }, metaTools: options.metaTools, allowedHostNames: options.allowedHost, ...(options.metricsPort !== undefined ? { metricsPort: options.metricsPort } : {}) });
      } catch (error) {
        throw new CliExit(ExitCode.Failed, `Cannot listen on ${options.host}:${options.port}: ${core.gateway.status().error ?? (error as Error).message}`);
      }
      const agents = (await core.agents.credentials.list()).filter((agent) => !agent.revokedAt);
      ctx.io.stdout(`Gateway listening on ${status.url}\n`);
      if (status.metricsUrl) ctx.io.stdout(`Metrics on ${status.metricsUrl}\n`);
      if (agents.length === 0 && !options.agentNamespace.length) ctx.io.stderr('No agent holds a credential yet: create one with `tooldeck gateway token create NAME`.\n');
      await new Promise<void>((done) => ctx.interrupted.addEventListener('abort', () => done(), { once: true }));
    });

  const token = gateway.command('token').description("Agents' gateway credentials (NAME:SECRET, stored as hashes)");
  token
    .command('create <name>')
    .description('Create (or replace) an agent credential; prints NAME:SECRET once, as the last line')
    .option('--meta-tools', 'this agent sees the four meta-tools instead of its tools')
    .action(async (name: string, options: { metaTools?: boolean }) => {
      const { AgentCredentials } = await import('../../../main/agents/AgentCredentials');
      const credential = await new AgentCredentials(ctx.dataDir).create(name, { metaTools: options.metaTools }).catch(usageOnInvalid);
      ctx.io.stderr(`Hand this to agent ${terminalName(name)} as "Authorization: Bearer …" or "x-api-key: …"; it is not shown again:\n`);
      ctx.io.stdout(`${credential}\n`);
    });
  token
    .command('list')
    .description('Agents with a credential (never the secrets)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { AgentCredentials } = await import('../../../main/agents/AgentCredentials');
      const agents = await new AgentCredentials(ctx.dataDir).list();
      if (options.json) return void ctx.io.stdout(`${JSON.stringify(agents, null, 2)}\n`);
      if (agents.length === 0) return void ctx.io.stdout('No agent credentials. Create one with `tooldeck gateway token create NAME`.\n');
      for (const agent of agents) ctx.io.stdout(`${terminalName(agent.name)}\tcreated ${agent.createdAt}${agent.metaTools ? '\tmeta-tools' : ''}${agent.revokedAt ? `\trevoked ${agent.revokedAt}` : ''}\n`);
    });
  token
    .command('revoke <name>')
    .description("Revoke an agent's credential; a running gateway ends its sessions at once")
    .action(async (name: string) => {
      const { AgentCredentials } = await import('../../../main/agents/AgentCredentials');
      try {
        await new AgentCredentials(ctx.dataDir).revoke(name);
      } catch (error) {
        if (isAppError(error) && error.code === 'NotFound') throw new CliExit(ExitCode.Failed, error.message);
        throw error;
      }
      ctx.io.stdout(`Revoked agent ${terminalName(name)}.\n`);
    });
}

function usageOnInvalid(error: unknown): never {
  if (isAppError(error) && error.code === 'InvalidInput') throw new CliExit(ExitCode.Usage, error.message);
  throw error;
}

/** One agent over stdio: stdout carries MCP only (everything else goes to stderr). Ends when stdin ends, on a signal, or when the credential is revoked. */
async function serveStdio(ctx: CliContext, agent: string | undefined, metaTools: boolean) {
  if (!agent) throw new CliExit(ExitCode.Usage, '--stdio needs --agent NAME');
  const core = await ctx.getCore('web');
  if (!core.agents.credentials.isLive(agent)) throw new CliExit(ExitCode.Failed, `Agent ${terminalName(agent)} holds no live credential: create one with \`tooldeck gateway token create ${agent}\`.`);
  const { serveStdio: serve } = await import('@modelcontextprotocol/server/stdio');
  const gone = new AbortController();
  const handle = serve(() => core.gateway.stdioServer(agent, gone.signal, metaTools));
  await new Promise<void>((done) => {
    const end = () => done();
    ctx.interrupted.addEventListener('abort', end, { once: true });
    process.stdin.once('end', end).once('close', end);
    core.agents.credentials.onChange(() => {
      if (core.agents.credentials.isLive(agent)) return;
      ctx.io.stderr(`The credential of agent ${terminalName(agent)} was revoked; the gateway stops.\n`);
      end();
    });
  });
  gone.abort(new Error('the gateway is stopping'));
  await handle.close().catch(() => undefined);
}
