import { operatorCaller } from '../../../shared/caller';
import type { Command } from 'commander';
import { isAppError, type AppError } from '../../../shared/errors';
import { INPUT_LIMITS } from '../../../shared/inputLimits';
import { readBoundedText } from '../../../main/platform/readBounded';
import type { GrpcServiceView, GrpcSourceView, GrpcTargetInput, GrpcTlsInput } from '../../../shared/grpc';
import type { Core } from '../../../main/core';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { keyValues } from '../targetOptions';
import { collectKeyValue, timeoutMsOption } from '../options';
import { jsonForTerminal, safeForTerminal, safeLines } from '../terminalText';
import { issuesSentence, validationIssues } from '../../../shared/issuesSentence';
import { reportOutcome } from './call';
import { parseArgs } from './toolCallText';

interface TargetFlags {
  tls?: boolean;
  ca?: string;
  cert?: string;
  key?: string;
  serverName?: string;
  metadata?: string[];
  metadataEnv?: string[];
}

function addTargetFlags(command: Command): Command {
  return command
    .option('--tls', 'dial with TLS (the system roots unless --ca)')
    .option('--ca <file>', 'PEM file of the CA to trust (implies --tls)')
    .option('--cert <file>', 'PEM client certificate for mTLS (with --key)')
    .option('--key <file>', 'PEM private key of the client certificate (kept in the secret store)')
    .option('--server-name <name>', 'the name the server certificate must carry, when not the host dialled')
    .option('--metadata <K=V>', 'metadata sent with every call, e.g. authorization="Bearer …" (repeatable; kept in the secret store)', collectKeyValue)
    .option('--metadata-env <K=VAR>', 'metadata whose value is read from an environment variable, so it stays out of shell history (repeatable)', collectKeyValue);
}

async function readPem(file: string | undefined, flag: string): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    return await readBoundedText(file, INPUT_LIMITS.pemFile);
  } catch (error) {
    if (isAppError(error)) throw new CliExit(ExitCode.Usage, `${flag}: ${error.message}`);
    throw new CliExit(ExitCode.Usage, `${flag} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

async function tlsFrom(flags: TargetFlags): Promise<GrpcTlsInput> {
  if (!!flags.cert !== !!flags.key) throw new CliExit(ExitCode.Usage, 'mTLS needs both --cert and --key');
  const [ca, cert, key] = await Promise.all([readPem(flags.ca, '--ca'), readPem(flags.cert, '--cert'), readPem(flags.key, '--key')]);
  const mode = cert ? 'mtls' : flags.tls || ca ? 'tls' : 'plaintext';
  if (flags.serverName && mode === 'plaintext') throw new CliExit(ExitCode.Usage, '--server-name needs --tls');
  return { mode, ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(flags.serverName ? { serverName: flags.serverName } : {}) };
}

async function targetFrom(address: string, flags: TargetFlags): Promise<GrpcTargetInput> {
  const { parseGrpcAddress } = await import('../../../shared/grpc');
  if (!parseGrpcAddress(address)) throw new CliExit(ExitCode.Usage, `"${address}" is not host:port (e.g. 127.0.0.1:50051) or a saved reflection source`);
  const fromEnv = Object.entries(keyValues(flags.metadataEnv, '--metadata-env')).map(([key, variable]) => {
    const value = process.env[variable];
    if (!value) throw new CliExit(ExitCode.Usage, `--metadata-env ${key}=${variable}: the environment variable ${variable} is empty`);
    return [key, value] as const;
  });
  return { address, tls: await tlsFrom(flags), metadata: { ...keyValues(flags.metadata, '--metadata'), ...Object.fromEntries(fromEnv) } };
}

/** Exit 3 for a failure to connect (naming the step), 2 for bad input, 1 otherwise. */
function cliFailure(error: unknown): never {
  if (isAppError(error)) {
    const step = (error as AppError).step ? ` (${(error as AppError).step})` : '';
    if (error.code === 'ConnectionFailed') throw new CliExit(ExitCode.CannotConnect, `Cannot connect${step}: ${error.message}`);
    if (error.code === 'InvalidInput' || error.code === 'InvalidArguments') throw new CliExit(ExitCode.Usage, error.message);
    throw new CliExit(ExitCode.Failed, `${error.code}${step}: ${error.message}`);
  }
  const issues = validationIssues(error);
  if (issues) throw new CliExit(ExitCode.Usage, issuesSentence(issues));
  throw error;
}

/** Each line is built from what the server said (names, versions, reasons): one terminal line each, made safe. */
const safeLine = (line: string) => safeForTerminal(line, 500);

function toolLines(view: GrpcSourceView): string[] {
  if (view.protocol === 'reflection') return view.services.flatMap((service) => service.methods.map((method) => safeLine(`  ${method.name}${method.serverStreaming ? ' (server streaming)' : ''}${method.unusable ? ` — ${method.unusable}` : ''}`)));
  return view.tools.map((tool) => {
    const versions = `v${tool.version}${tool.compatibleVersions.length ? ` (accepts ${tool.compatibleVersions.join(', ')})` : ''}${tool.pinnedVersion ? `, pinned ${tool.pinnedVersion}` : ''}`;
    return safeLine(`  ${tool.name.padEnd(20)} ${versions}${tool.unusable ? ` — unusable: ${tool.unusable}` : ''}`);
  });
}

function servicesText(services: GrpcServiceView[]): string {
  return services
    .flatMap((service) => [service.name, ...service.methods.map((method) => `  ${method.method}(${method.clientStreaming ? 'stream ' : ''}${method.requestType}) returns (${method.serverStreaming ? 'stream ' : ''}${method.responseType})`)])
    .map(safeLine)
    .join('\n');
}

/** `pkg.Service/Method`, also accepted as `pkg.Service.Method`. */
function methodName(text: string): string {
  if (text.includes('/')) return text.replace(/^\//, '');
  const dot = text.lastIndexOf('.');
  if (dot <= 0) throw new CliExit(ExitCode.Usage, `"${text}" is not <package.Service>/<Method>`);
  return `${text.slice(0, dot)}/${text.slice(dot + 1)}`;
}

const AD_HOC = 'adhoc';

export function registerGrpc(program: Command, ctx: CliContext) {
  const grpc = program.command('grpc').description('gRPC tool servers (tools.v1) and any service through server reflection');

  addTargetFlags(grpc.command('add <name> <address>').description('Save a tools.v1 ToolServer (or, with --reflection, any service) by host:port'))
    .option('--reflection', 'any service: its unary and server-streaming methods through server reflection')
    .option('--no-check', 'save without listing it now')
    .action(async (name: string, address: string, flags: TargetFlags & { reflection?: boolean; check: boolean }) => {
      const target = await targetFrom(address, flags);
      const core = await ctx.getCore();
      let view: GrpcSourceView;
      try {
        view = await (await contractFor(core)).grpc.add({ name, ...target, protocol: flags.reflection ? 'reflection' : 'tools.v1', skipCheck: !flags.check });
      } catch (error) {
        cliFailure(error);
      }
      const count = view.protocol === 'reflection' ? `${view.services.length} services` : `${view.tools.filter((tool) => !tool.unusable).length} tools`;
      ctx.io.stdout(`Saved ${name} (${view.address}, ${view.tls.mode}) — ${view.state === 'ready' ? count : 'not listed yet'}\n${toolLines(view).join('\n')}\n`);
    });

  grpc
    .command('remove <name>')
    .description('Remove a saved gRPC source and its secrets')
    .action(async (name: string) => {
      const core = await ctx.getCore();
      await (await contractFor(core)).grpc.remove({ name }).catch(cliFailure);
      ctx.io.stdout(`Removed ${name}\n`);
    });

  grpc
    .command('list-sources')
    .description('Saved gRPC sources (and those the workspace declares), with their tools and versions')
    .option('--refresh', 'list each source now (the tools it has today)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean; refresh?: boolean }) => {
      const core = await ctx.getCore();
      // --refresh lists every source at once, which the contract has no procedure for (the console refreshes one at a time).
      if (options.refresh) await core.grpc.refreshAll();
      const views = await (await contractFor(core)).grpc.list();
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(views)}\n`);
      if (!views.length) return ctx.io.stdout('No gRPC sources. Add one with: tooldeck grpc add <name> <host:port>\n');
      for (const view of views) {
        const state = view.state === 'error' ? `error${view.error?.step ? ` (${view.error.step})` : ''}: ${view.error?.message}` : view.state === 'ready' ? 'ready' : 'not listed (use --refresh)';
        ctx.io.stdout(`${safeLine(`${view.name.padEnd(20)} ${view.protocol.padEnd(10)} ${view.address} ${view.tls.mode}${view.managedBy ? ' [workspace]' : ''} — ${state}`)}\n`);
        if (view.state === 'ready') ctx.io.stdout(`${toolLines(view).join('\n')}\n`);
      }
    });

  grpc
    .command('pin <name> <tool> [version]')
    .description('Calls of a tools.v1 tool carry this version (no version: the tool’s own again)')
    .action(async (name: string, tool: string, version: string | undefined) => {
      const core = await ctx.getCore();
      const contract = await contractFor(core);
      await core.grpc.ensureListed(name).catch(cliFailure);
      const view = await contract.grpc.pin({ name, tool, ...(version !== undefined ? { version } : {}) }).catch(cliFailure);
      const listed = view.tools.find((item) => item.name === tool);
      if (!listed) throw new CliExit(ExitCode.Failed, `${name} lists no tool "${tool}"`);
      ctx.io.stdout(`${safeLine(version ? `${tool} calls carry version ${version} (server lists ${listed.version}${listed.compatibleVersions.length ? `, accepts ${listed.compatibleVersions.join(', ')}` : ''})` : `${tool} calls carry its own version (${listed.version})`)}\n`);
    });

  addTargetFlags(grpc.command('list <address>').description('Services and methods of any server, through server reflection'))
    .option('--json', 'print JSON (with each method’s request JSON Schema)')
    .action(async (address: string, flags: TargetFlags & { json?: boolean }) => {
      const target = await targetFrom(address, flags);
      const core = await ctx.getCore();
      const services = await (await contractFor(core)).grpc.explore(target).catch(cliFailure);
      ctx.io.stdout(flags.json ? `${jsonForTerminal(services)}\n` : `${servicesText(services)}\n`);
    });

  addTargetFlags(grpc.command('call <address> <method>').description('Call a unary or server-streaming method of any server (host:port, or a saved reflection source)'))
    .option('--data <json>', 'the request message as proto3 JSON', '{}')
    .addOption(timeoutMsOption())
    .option('--yes', 'confirm a call that policy says needs confirmation')
    .option('--json', 'print the whole result (response, status, headers, trailers) or the error as JSON')
    .action(async (address: string, method: string, flags: TargetFlags & { data: string; timeout?: number; yes?: boolean; json?: boolean }) => {
      const args = parseArgs(flags.data, '--data');
      const tool = methodName(method);
      const core = await ctx.getCore();
      const { source, release } = await openSource(core, address, flags);
      try {
        const name = `grpc:${source}.${tool}`;
        if (!core.catalog.get(name)) {
          const known = core.catalog.list({ source: `grpc:${source}` }).map((entry) => entry.toolName);
          throw new CliExit(ExitCode.Failed, `${address} has no callable method ${tool}. Methods: ${known.map((method) => safeForTerminal(method, 200)).join(', ') || 'none'}`);
        }
        // Streamed messages are printed as they arrive, one JSON line each.
        const streaming = core.catalog.get(name)?.grpc?.serverStreaming === true && !flags.json;
        const outcome = await core.pipeline.invoke({
          caller: operatorCaller('cli'),
          name,
          arguments: args,
          timeoutMs: flags.timeout,
          confirmed: flags.yes,
          ...(streaming ? { onProgress: (progress) => ctx.io.stdout(`${safeLines(progress.message ?? '')}\n`) } : {}),
        });
        if (streaming && !outcome.error) return;
        if (!flags.json && !outcome.error && outcome.result?.structuredContent) {
          const structured = outcome.result.structuredContent as { response?: unknown };
          ctx.io.stdout(`${jsonForTerminal(structured.response ?? structured)}\n`);
          return;
        }
        reportOutcome(ctx, outcome, flags.json);
      } finally {
        release();
      }
    });
}

/** A saved reflection source by name, or a one-off one for host:port registered for this call only. */
async function openSource(core: Core, address: string, flags: TargetFlags): Promise<{ source: string; release: () => void }> {
  if (core.grpc.has(address)) {
    const view = core.grpc.get(address);
    if (view.protocol !== 'reflection') throw new CliExit(ExitCode.Usage, `${address} is a tools.v1 source: call its tools with tooldeck call grpc:${address}.<tool>`);
    await core.grpc.ensureListed(address).catch(cliFailure);
    return { source: address, release: () => undefined };
  }
  const target = await targetFrom(address, flags);
  const release = await core.grpc.openEphemeral(AD_HOC, target).catch(cliFailure);
  return { source: AD_HOC, release };
}
