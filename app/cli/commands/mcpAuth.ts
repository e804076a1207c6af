import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isAppError } from '../../../shared/errors';
import {
  DpopMode,
  JwsAlgorithm,
  OAUTH_GRANT_LABELS,
  OAuthClientAuth,
  OAuthGrant,
  type OAuthSettings,
  type OAuthStatus,
  type OAuthStep,
  type SetOAuthClientInput,
} from '../../../shared/oauth';
import type { Core } from '../../../main/core';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { parseTimeoutSeconds } from '../options';
import { jsonForTerminal, safeForTerminal, safeLines } from '../terminalText';

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

/** Options that change a server's authorization settings (shared by `mcp auth` and `mcp login`). */
interface AuthSettingsOptions {
  grant?: string;
  clientCredentials?: boolean;
  clientId?: string;
  clientSecretEnv?: string;
  scopes?: string;
  clientAuth?: string;
  privateKeyFile?: string;
  signingAlg?: string;
  dpop?: string;
  assertionFile?: string;
  assertionEnv?: string;
  idpIssuer?: string;
  idpTokenEndpoint?: string;
  idpClientId?: string;
  idpClientSecretEnv?: string;
  idTokenFile?: string;
  idTokenEnv?: string;
}

interface LoginOptions extends AuthSettingsOptions {
  browser: boolean;
  timeout: number;
}

const SETTINGS_KEYS: ReadonlyArray<keyof AuthSettingsOptions> = [
  'grant',
  'clientCredentials',
  'clientId',
  'clientSecretEnv',
  'scopes',
  'clientAuth',
  'privateKeyFile',
  'signingAlg',
  'dpop',
  'assertionFile',
  'assertionEnv',
  'idpIssuer',
  'idpTokenEndpoint',
  'idpClientId',
  'idpClientSecretEnv',
  'idTokenFile',
  'idTokenEnv',
];

function addAuthSettingsOptions(command: Command): Command {
  return command
    .option('--grant <grant>', `how tokens are obtained: ${OAuthGrant.options.join(', ')}`)
    .option('--client-credentials', 'same as --grant client_credentials')
    .option('--client-id <id>', 'a client id registered with the authorization server beforehand')
    .option('--client-secret-env <VAR>', "read that client's secret from this environment variable into the secret store")
    .option('--scopes <scopes>', 'scopes to ask for when the server names none (space-separated)')
    .option('--client-auth <method>', `token endpoint client authentication: ${OAuthClientAuth.options.join(', ')} (default: from the server's metadata)`)
    .option('--private-key-file <path>', 'the client private key for private_key_jwt (PKCS #8 PEM or JWK), copied into the secret store')
    .option('--signing-alg <alg>', `the private key's algorithm: ${JwsAlgorithm.options.join(', ')} (default: from the key)`)
    .option('--dpop <mode>', `sender-constrained tokens (RFC 9449): ${DpopMode.options.join(', ')}`)
    .option('--assertion-file <path>', 'jwt_bearer: a workload identity token file, read afresh at each token request')
    .option('--assertion-env <VAR>', 'jwt_bearer: store the workload identity token from this environment variable')
    .option('--idp-issuer <url>', 'enterprise_managed: the identity provider (its token endpoint is discovered)')
    .option('--idp-token-endpoint <url>', "enterprise_managed: the identity provider's token endpoint")
    .option('--idp-client-id <id>', "enterprise_managed: Tooldeck's client id at the identity provider")
    .option('--idp-client-secret-env <VAR>', "enterprise_managed: read that client's secret from this environment variable")
    .option('--id-token-file <path>', "enterprise_managed: the user's ID token file, read afresh at each exchange")
    .option('--id-token-env <VAR>', "enterprise_managed: store the user's ID token from this environment variable");
}

function fromEnv(variable: string | undefined, flag: string): string | undefined {
  if (variable === undefined) return undefined;
  const value = process.env[variable];
  if (!value) throw new CliExit(ExitCode.Usage, `Environment variable ${variable} (${flag}) is empty`);
  return value;
}

function parseChoice<T extends string>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, value: string | undefined, flag: string, choices: readonly string[]): T | undefined {
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CliExit(ExitCode.Usage, `${flag} must be one of ${choices.join(', ')}`);
  return parsed.data;
}

async function readKeyFile(path: string): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    if (text.length > 64 * 1024) throw new Error('larger than 64 KB, not a key');
    return text;
  } catch (error) {
    throw new CliExit(ExitCode.Usage, `Cannot read --private-key-file ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

/** The settings the flags ask for over the current ones: flags not given keep what is stored. */
export async function settingsInput(server: string, options: AuthSettingsOptions, current: OAuthSettings): Promise<SetOAuthClientInput> {
  const grant = options.clientCredentials ? 'client_credentials' : parseChoice(OAuthGrant, options.grant, '--grant', OAuthGrant.options);
  const absolute = (path: string | undefined) => (path === undefined ? undefined : resolve(path));
  return {
    server,
    grant: grant ?? current.grant,
    clientId: options.clientId ?? current.clientId,
    clientSecret: fromEnv(options.clientSecretEnv, '--client-secret-env'),
    scopes: options.scopes ?? current.scopes,
    clientMetadataUrl: current.clientMetadataUrl,
    clientAuth: parseChoice(OAuthClientAuth, options.clientAuth, '--client-auth', OAuthClientAuth.options) ?? current.clientAuth,
    privateKey: options.privateKeyFile === undefined ? undefined : await readKeyFile(options.privateKeyFile),
    signingAlg: parseChoice(JwsAlgorithm, options.signingAlg, '--signing-alg', JwsAlgorithm.options) ?? (options.privateKeyFile === undefined ? current.signingAlg : undefined),
    dpop: parseChoice(DpopMode, options.dpop, '--dpop', DpopMode.options) ?? current.dpop,
    assertionFile: absolute(options.assertionFile) ?? (options.assertionEnv !== undefined ? undefined : current.assertionFile),
    assertion: fromEnv(options.assertionEnv, '--assertion-env'),
    idpIssuer: options.idpIssuer ?? current.idp?.issuer,
    idpTokenEndpoint: options.idpTokenEndpoint ?? current.idp?.tokenEndpoint,
    idpClientId: options.idpClientId ?? current.idp?.clientId,
    idpClientSecret: fromEnv(options.idpClientSecretEnv, '--idp-client-secret-env'),
    idTokenFile: absolute(options.idTokenFile) ?? (options.idTokenEnv !== undefined ? undefined : current.idp?.idTokenFile),
    idToken: fromEnv(options.idTokenEnv, '--id-token-env'),
  };
}

/** Applies the flags, if any were given; usage errors exit 2. */
async function applySettings(core: Core, server: string, options: AuthSettingsOptions): Promise<void> {
  if (!SETTINGS_KEYS.some((key) => options[key] !== undefined)) return;
  const { settings } = await core.mcp.oauth.status(server);
  await core.mcp.oauth.setClient(await settingsInput(server, options, settings));
}

function failure(error: unknown, usage: ExitCode = ExitCode.Usage): never {
  if (isAppError(error) && (error.code === 'NotFound' || error.code === 'InvalidInput')) throw new CliExit(error.code === 'NotFound' ? ExitCode.Failed : usage, error.message);
  if (isAppError(error)) throw new CliExit(ExitCode.Failed, `Sign-in failed: ${error.message}`);
  throw error;
}

/** The settings and state `mcp auth` prints: never a secret, only whether one is stored. */
export function describeAuthorization(status: OAuthStatus): string {
  const { settings } = status;
  const stored = (has: boolean | undefined) => (has ? 'stored' : 'none');
  const lines = [
    `${safeForTerminal(status.server, 200)}: ${status.state}${status.issuer ? ` at ${safeForTerminal(status.issuer, 500)}` : ''}`,
    `  grant           ${settings.grant} (${OAUTH_GRANT_LABELS[settings.grant]})`,
    `  client id       ${settings.clientId ?? '(metadata document or dynamic registration)'}`,
    `  client auth     ${settings.clientAuth ?? "from the server's metadata"}; secret ${stored(settings.hasClientSecret)}; private key ${settings.hasPrivateKey ? `stored (${settings.signingAlg ?? 'algorithm from the key'})` : 'none'}`,
    `  DPoP            ${settings.dpop ?? 'auto'}`,
  ];
  if (settings.scopes) lines.push(`  scopes          ${settings.scopes}`);
  if (settings.grant === 'jwt_bearer') lines.push(`  workload token  ${settings.assertionFile ? `file ${settings.assertionFile}` : stored(settings.hasAssertion)}`);
  if (settings.idp) {
    const { idp } = settings;
    lines.push(`  identity prov.  ${idp.tokenEndpoint ?? idp.issuer ?? '?'} as ${idp.clientId} (secret ${stored(idp.hasClientSecret)})`);
    lines.push(`  ID token        ${idp.idTokenFile ? `file ${idp.idTokenFile}` : stored(idp.hasIdToken)}`);
  }
  if (status.state === 'signed-in') {
    lines.push(
      `  token           ${safeForTerminal(status.tokenType ?? 'Bearer', 100)}${status.dpopThumbprint ? ` bound to key ${status.dpopThumbprint}` : ''}${status.scope ? `, scope "${safeForTerminal(status.scope, 500)}"` : ''}${status.expiresAt ? `, expires ${new Date(status.expiresAt).toISOString()}` : ''}${status.hasRefreshToken ? ', refresh token kept' : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `tooldeck mcp login|logout|auth <name>`: MCP authorization from the command line. */
export function registerMcpAuth(mcp: Command, ctx: CliContext) {
  addAuthSettingsOptions(
    mcp
      .command('login <name>')
      .description('Sign in to an OAuth-protected server: opens the system browser (or, for grants without one, asks for tokens directly)')
      .option('--no-browser', 'only print the authorization URL (open it yourself)')
      .option('--timeout <seconds>', 'how long to wait for the browser', parseTimeoutSeconds, 300),
  ).action(async (name: string, options: LoginOptions) => {
    const core = await ctx.getCore();
    const { oauth } = core.mcp;
    const stop = followSteps(core, name, ctx.io.stdout);
    try {
      await applySettings(core, name, options);
      const started = await oauth.login(name, { timeoutMs: options.timeout * 1000 });
      if (started.status === 'redirect') {
        ctx.io.stdout(`Open this URL to sign in:\n  ${safeForTerminal(started.authorizationUrl, 4_000)}\n`);
        if (options.browser) openBrowser(started.authorizationUrl, (message) => ctx.io.stderr(`${message}\n`));
        ctx.io.stdout(`Waiting up to ${options.timeout} s for the browser to come back…\n`);
        await oauth.waitForLogin(name);
      }
    } catch (error) {
      stop();
      failure(error);
    }
    stop();
    const status = await oauth.status(name);
    const snapshot = core.mcp.get(name);
    ctx.io.stdout(
      safeForTerminal(
        `Signed in to ${name}${status.issuer ? ` at ${status.issuer}` : ''}${status.scope ? ` (scope "${status.scope}")` : ''}${status.tokenType?.toLowerCase() === 'dpop' ? ' with a DPoP-bound token' : ''}; ` +
          (snapshot.state.status === 'ready' ? `connected, ${snapshot.tools.length} tools` : `not connected: ${snapshot.state.message ?? snapshot.state.status}`),
        1_000,
      ) + '\n',
    );
  });

  addAuthSettingsOptions(mcp.command('auth <name>').description("Show a server's authorization settings and state; with flags, change the settings (secrets go to the secret store)"))
    .option('--json', 'print the status as JSON')
    .action(async (name: string, options: AuthSettingsOptions & { json?: boolean }) => {
      const core = await ctx.getCore();
      try {
        await applySettings(core, name, options);
        const status = await core.mcp.oauth.status(name);
        ctx.io.stdout(options.json ? `${jsonForTerminal({ ...status, steps: undefined })}\n` : safeLines(describeAuthorization(status)));
      } catch (error) {
        failure(error);
      }
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
