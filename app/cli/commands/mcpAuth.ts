import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { isAppError } from '../../../shared/errors';
import type { OAuthStep } from '../../../shared/oauth';
import type { Core } from '../../../main/core';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { parseTimeoutSeconds } from '../options';
import { safeForTerminal } from '../terminalText';

/** The system's "open this URL" program as an argv array (never a shell). */
export function browserCommand(url: string, platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  // `cmd /c start` would re-parse the URL's `&`s as command separators; the URL handler takes it verbatim.
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  return ['xdg-open', [url]];
}

function openBrowser(url: string, onError: (message: string) => void) {
  const [command, args] = browserCommand(url);
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', (error) => onError(`Could not open a browser (${command}: ${error.message}); open the URL above yourself.`));
    child.unref();
  } catch (error) {
    onError(`Could not open a browser (${command}: ${(error as Error).message}); open the URL above yourself.`);
  }
}

/** `✓ Protected resource metadata — authorization servers: …` */
export function stepLine(step: OAuthStep): string {
  const mark = step.status === 'ok' ? '✓' : step.status === 'failed' ? '✗' : '…';
  const where = step.kind !== 'authorization' && step.url ? ` (${[step.method, step.url].filter(Boolean).join(' ')}${step.httpStatus ? ` → ${step.httpStatus}` : ''})` : '';
  const text = step.status === 'failed' ? step.error : step.detail;
  return `${mark} ${step.title}${where}${text ? ` — ${text}` : ''}`;
}

/** Prints each step of the server's flow once it has settled, until `stop` is called. */
function followSteps(core: Core, server: string, print: (line: string) => void): () => void {
  const printed = new Set<number>();
  const flush = () => {
    for (const step of core.mcp.oauth.log(server).list()) {
      if (step.status === 'pending' || printed.has(step.seq)) continue;
      printed.add(step.seq);
      print(`${safeForTerminal(stepLine(step), 1_000)}\n`);
    }
  };
  const unsubscribe = core.mcp.oauth.onChange((changed) => changed === server && flush());
  return () => {
    flush();
    unsubscribe();
  };
}

interface LoginOptions {
  browser: boolean;
  timeout: number;
  clientId?: string;
  clientSecretEnv?: string;
  scopes?: string;
  clientCredentials?: boolean;
}

/** `tooldeck mcp login <name>` and `tooldeck mcp logout <name>`: MCP authorization from the command line. */
export function registerMcpAuth(mcp: Command, ctx: CliContext) {
  mcp
    .command('login <name>')
    .description('Sign in to an OAuth-protected server: opens the system browser, waits for its redirect on 127.0.0.1')
    .option('--no-browser', 'only print the authorization URL (open it yourself)')
    .option('--timeout <seconds>', 'how long to wait for the browser', parseTimeoutSeconds, 300)
    .option('--client-id <id>', 'use a client id registered with the authorization server beforehand')
    .option('--client-secret-env <VAR>', "read that client's secret from this environment variable into the secret store")
    .option('--scopes <scopes>', 'scopes to ask for when the server names none (space-separated)')
    .option('--client-credentials', 'machine-to-machine: the client credentials grant (needs --client-id and a secret)')
    .action(async (name: string, options: LoginOptions) => {
      const clientSecret = options.clientSecretEnv ? process.env[options.clientSecretEnv] : undefined;
      if (options.clientSecretEnv && !clientSecret) throw new CliExit(ExitCode.Usage, `Environment variable ${options.clientSecretEnv} is empty`);
      const core = await ctx.getCore();
      const { oauth } = core.mcp;
      const stop = followSteps(core, name, ctx.io.stdout);
      try {
        if (options.clientId !== undefined || options.scopes !== undefined || options.clientCredentials || clientSecret !== undefined) {
          const { settings } = await oauth.status(name);
          await oauth.setClient({
            server: name,
            grant: options.clientCredentials ? 'client_credentials' : settings.grant,
            clientId: options.clientId ?? settings.clientId,
            clientSecret,
            scopes: options.scopes ?? settings.scopes,
            clientMetadataUrl: settings.clientMetadataUrl,
          });
        }
        const started = await oauth.login(name, { timeoutMs: options.timeout * 1000 });
        if (started.status === 'redirect') {
          ctx.io.stdout(`Open this URL to sign in:\n  ${started.authorizationUrl}\n`);
          if (options.browser) openBrowser(started.authorizationUrl, (message) => ctx.io.stderr(`${message}\n`));
          ctx.io.stdout(`Waiting up to ${options.timeout} s for the browser to come back…\n`);
          await oauth.waitForLogin(name);
        }
      } catch (error) {
        stop();
        if (isAppError(error) && (error.code === 'NotFound' || error.code === 'InvalidInput')) throw new CliExit(error.code === 'NotFound' ? ExitCode.Failed : ExitCode.Usage, error.message);
        if (isAppError(error)) throw new CliExit(ExitCode.Failed, `Sign-in failed: ${error.message}`);
        throw error;
      }
      stop();
      const status = await oauth.status(name);
      const snapshot = core.mcp.get(name);
      ctx.io.stdout(
        safeForTerminal(
          `Signed in to ${name}${status.issuer ? ` at ${status.issuer}` : ''}${status.scope ? ` (scope "${status.scope}")` : ''}; ` +
            (snapshot.state.status === 'ready' ? `connected, ${snapshot.tools.length} tools` : `not connected: ${snapshot.state.message ?? snapshot.state.status}`),
          1_000,
        ) + '\n',
      );
    });

  mcp
    .command('logout <name>')
    .description('Sign out of a server: delete its tokens and client registration from the secret store')
    .action(async (name: string) => {
      const core = await ctx.getCore();
      try {
        await core.mcp.oauth.logout(name);
      } catch (error) {
        if (isAppError(error) && (error.code === 'NotFound' || error.code === 'InvalidInput')) throw new CliExit(ExitCode.Failed, error.message);
        throw error;
      }
      ctx.io.stdout(`Signed out of ${name}: its tokens and client registration were deleted\n`);
    });
}
