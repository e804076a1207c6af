import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { DEFAULT_MAX_BODY_BYTES, isLoopbackHost } from '../../../main/platform/requestGuard';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { mebibytesUpTo, parsePort } from '../options';
import { useClusterApprovals } from '../clusterApprovals';

const MIB = 1024 * 1024;

interface ServeOptions {
  port: number;
  host: string;
  dangerouslyBindAll?: boolean;
  maxBodyMib: number;
  metricsPort?: number;
  metricsHost: string;
  metricsTokenEnv?: string;
  approvalsKubeconfig?: string;
  approvalsContext?: string;
  approvalsNamespace?: string;
}

/**
 * The built renderer sits beside the built CLI (out/main/cli.js → out/renderer). This module may be
 * bundled into the entry or into a lazily loaded chunk (out/main/chunks/…), so the folders above it
 * are searched for `renderer/index.html`, nearest first.
 */
export function defaultStaticDir(from = dirname(fileURLToPath(import.meta.url))): string {
  if (process.env.TOOLDECK_RENDERER_DIR) return process.env.TOOLDECK_RENDERER_DIR;
  for (let dir = from, depth = 0; depth < 4; depth++, dir = dirname(dir)) {
    const candidate = resolve(dir, '../renderer');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return resolve(from, '../renderer');
}

export function registerServe(program: Command, ctx: CliContext) {
  program
    .command('serve')
    .description('Serve the console to a browser on 127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', parsePort, 0)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--dangerously-bind-all', 'allow a non-loopback --host (the token is then the only guard)')
    .option('--max-body-mib <n>', 'largest request body accepted, in MiB (larger ones get 413 unread)', mebibytesUpTo(1024), DEFAULT_MAX_BODY_BYTES / MIB)
    .option('--metrics-port <n>', 'also serve Prometheus metrics on <metrics-host>:<n>/metrics', parsePort)
    .option('--metrics-host <host>', 'address the metrics endpoint binds', '127.0.0.1')
    .option('--metrics-token-env <VAR>', 'require this environment variable\'s value as a bearer token on every scrape')
    .option('--approvals-kubeconfig <file>', "the Approvals inbox shows and decides the ToolApproval objects of this cluster (the gateway's namespace) instead of the data dir's; decisions are recorded as the user the API server authenticates")
    .option('--approvals-context <name>', 'with --approvals-kubeconfig: the kubeconfig context')
    .option('--approvals-namespace <name>', 'with --approvals-kubeconfig: the namespace of the ToolApprovals (default tooldeck-system)')
    .action(async (options: ServeOptions) => {
      if (options.approvalsKubeconfig === undefined && (options.approvalsContext !== undefined || options.approvalsNamespace !== undefined)) {
        throw new CliExit(ExitCode.Usage, '--approvals-context and --approvals-namespace go with --approvals-kubeconfig');
      }
      if (options.approvalsKubeconfig !== undefined) await useClusterApprovals(ctx, { kubeconfig: options.approvalsKubeconfig, context: options.approvalsContext, namespace: options.approvalsNamespace });
      if (!isLoopbackHost(options.host)) {
        if (!options.dangerouslyBindAll) {
          throw new CliExit(ExitCode.Usage, `--host ${options.host} is not a loopback address; add --dangerously-bind-all to bind it anyway`);
        }
        ctx.io.stderr(`WARNING: binding ${options.host}: anyone who can reach this address and learns the token controls this console.\n`);
      }
      const metricsToken = options.metricsTokenEnv === undefined ? undefined : process.env[options.metricsTokenEnv];
      if (options.metricsTokenEnv !== undefined && !metricsToken) throw new CliExit(ExitCode.Usage, `--metrics-token-env: environment variable ${options.metricsTokenEnv} is empty or not set`);
      if (options.metricsPort === undefined && (options.metricsTokenEnv !== undefined || options.metricsHost !== '127.0.0.1')) {
        throw new CliExit(ExitCode.Usage, '--metrics-host and --metrics-token-env need --metrics-port');
      }
      if (options.metricsPort !== undefined && !isLoopbackHost(options.metricsHost) && !metricsToken) {
        ctx.io.stderr(`WARNING: metrics on ${options.metricsHost} without --metrics-token-env: anyone who can reach it reads tool names and call counts.\n`);
      }
      const core = await ctx.getCore('web');
      const { BindRefusedError, startWebServer } = await import('../../web/WebServer');
      let server;
      try {
        server = await startWebServer({
          core,
          staticDir: defaultStaticDir(),
          port: options.port,
          host: options.host,
          dangerouslyBindAll: options.dangerouslyBindAll,
          maxBodyBytes: options.maxBodyMib * MIB,
        });
      } catch (error) {
        if (error instanceof BindRefusedError) throw new CliExit(ExitCode.Usage, error.message);
        throw new CliExit(ExitCode.Failed, `Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
      }
      ctx.io.stdout(`Tooldeck is serving at ${server.url}\n`);
      // A gateway started from the console's Gateway section stays on across restarts.
      const { restoreConsoleGateway } = await import('../../../main/gateway/consoleGateway');
      await restoreConsoleGateway(core, core.logger);
      const gateway = core.gateway.status();
      if (gateway.running) ctx.io.stdout(`Gateway for agents at ${gateway.url}\n`);
      if (options.metricsPort !== undefined) {
        const { url } = await core.metrics!.startPrometheus({ port: options.metricsPort, host: options.metricsHost, bearerToken: metricsToken });
        ctx.io.stdout(`Prometheus metrics at ${url}\n`);
      }
      // Until SIGINT or SIGTERM (runCli then closes the core: calls canceled, servers ended, and
      // exits 130/143 as for any interrupted command).
      await new Promise<void>((done) => ctx.interrupted.addEventListener('abort', () => done(), { once: true }));
      await server.close();
    });
}
