import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { exportPKCS8, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProtectedMcpServer, type ProtectedServer } from '../../../main/mcp/oauth/testing/startProtectedMcpServer';
import { CliContext, CliExit, ExitCode } from '../CliContext';
import { registerMcp } from './mcp';
import { browserCommand } from './mcpAuth';

let server: ProtectedServer;
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-mcp-auth-cli-'));

beforeAll(async () => {
  server = await startProtectedMcpServer({ scopesSupported: ['mcp:tools', 'offline_access'], requiredScopes: ['mcp:tools'] });
});
afterAll(() => server?.close());

/** Runs `tooldeck mcp …` wired as program.ts wires it; `whileRunning` sees stdout as it grows. */
async function run(argv: string[], whileRunning?: (stdout: () => string) => Promise<void>) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const ctx = new CliContext(io, () => dataDir);
  const program = new Command('tooldeck').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerMcp(program, ctx);
  let code: number = ExitCode.Ok;
  const parsing = program.parseAsync(['mcp', ...argv], { from: 'user' }).catch((error: unknown) => {
    if (error instanceof CliExit) {
      stderr += `${error.message}\n`;
      code = error.exitCode;
    } else if (error instanceof CommanderError) code = error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    else throw error;
  });
  await Promise.all([parsing, whileRunning?.(() => stdout)]);
  await ctx.close();
  return { code, stdout, stderr };
}

/** Plays the browser: waits for the printed URL, follows the approval to the loopback listener. */
async function browser(stdout: () => string): Promise<void> {
  for (let i = 0; i < 200 && !/^ {2}(http\S+)/m.test(stdout()); i++) await new Promise((r) => setTimeout(r, 25));
  const found = /^ {2}(http\S+)/m.exec(stdout());
  if (!found) throw new Error(`no authorization URL printed:\n${stdout()}`);
  const url = found[1]!;
  const approval = await fetch(url, { redirect: 'manual' });
  await fetch(approval.headers.get('location')!);
}

describe('tooldeck mcp login / logout', () => {
  it('signs in through the loopback redirect, printing each step, then signs out', async () => {
    expect((await run(['add', 'notes', '--url', server.url, '--no-connect'])).code).toBe(0);

    const login = await run(['login', 'notes', '--no-browser', '--timeout', '30'], browser);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('✓ Server asked for authorization');
    expect(login.stdout).toContain(`✓ Protected resource metadata (GET ${server.url.replace('/mcp', '')}/.well-known/oauth-protected-resource/mcp → 200) — authorization servers: ${server.authorizationServer}`);
    expect(login.stdout).toMatch(/✓ Client registration .*Dynamic client registration: client_id /);
    expect(login.stdout).toMatch(/✓ Authorization URL — PKCE S256, scope "mcp:tools offline_access"/);
    expect(login.stdout).toContain('✓ Browser callback — Authorization code received');
    expect(login.stdout).toMatch(/✓ Token exchange .*Bearer issued, expires in 3600 s, scope "mcp:tools offline_access", with a refresh token/);
    expect(login.stdout).toContain(`Signed in to notes at ${server.authorizationServer} (scope "mcp:tools offline_access"); connected, 2 tools`);

    const tools = await run(['tools', 'notes']);
    expect(tools.stdout).toMatch(/^whoami/m);

    const logout = await run(['logout', 'notes']);
    expect(logout.stdout).toBe('Signed out of notes: its tokens and client registration were deleted\n');
    const afterwards = await run(['tools', 'notes']);
    expect(afterwards.code).toBe(ExitCode.CannotConnect);
    expect(afterwards.stderr).toMatch(/requires authorization/);
  });

  it('names the failed step and exits 1 when the token endpoint refuses', async () => {
    server.provider.failCodeExchange = 'Code expired';
    try {
      const login = await run(['login', 'notes', '--no-browser', '--timeout', '30'], browser);
      expect(login.code).toBe(ExitCode.Failed);
      expect(login.stdout).toContain('✗ Token exchange');
      expect(login.stderr).toContain('Sign-in failed: Token exchange failed: HTTP 400: invalid_grant — Code expired');
    } finally {
      server.provider.failCodeExchange = undefined;
    }
  });

  it('opens the browser with an argv array, never a shell', () => {
    const url = 'http://127.0.0.1:1/authorize?a=1&b=2';
    expect(browserCommand(url, 'linux')).toEqual(['xdg-open', [url]]);
    expect(browserCommand(url, 'darwin')).toEqual(['open', [url]]);
    expect(browserCommand(url, 'win32')).toEqual(['rundll32', ['url.dll,FileProtocolHandler', url]]);
  });

  it('shows and changes authorization settings without signing in, keeping secrets out of the output', async () => {
    const keyFile = join(dataDir, 'client-key.pem');
    const { privateKey } = await generateKeyPair('ES384', { extractable: true });
    writeFileSync(keyFile, await exportPKCS8(privateKey));
    process.env.TOOLDECK_TEST_SECRET = 'very-secret-value';
    try {
      const machine = await run(['auth', 'notes', '--grant', 'client_credentials', '--client-id', 'machine', '--client-secret-env', 'TOOLDECK_TEST_SECRET', '--private-key-file', keyFile, '--client-auth', 'private_key_jwt', '--dpop', 'always']);
      expect(machine.stderr).toBe('');
      expect(machine.code).toBe(0);
      expect(machine.stdout).toContain('grant           client_credentials (Client credentials)');
      expect(machine.stdout).toContain('client auth     private_key_jwt; secret stored; private key stored (ES384)');
      expect(machine.stdout).toContain('DPoP            always');
      expect(machine.stdout).not.toContain('very-secret-value');
      expect(machine.stdout).not.toContain('PRIVATE KEY');

      const workload = await run(['auth', 'notes', '--grant', 'jwt_bearer', '--client-id', 'workload', '--client-auth', 'none', '--assertion-file', 'tokens/mcp']);
      expect(workload.code).toBe(0);
      expect(workload.stdout).toContain(`workload token  file ${join(process.cwd(), 'tokens/mcp')}`);

      const json = JSON.parse((await run(['auth', 'notes', '--json'])).stdout) as { settings: Record<string, unknown> };
      expect(json.settings).toMatchObject({ grant: 'jwt_bearer', clientId: 'workload', hasClientSecret: true, hasPrivateKey: true, dpop: 'always' });
    } finally {
      delete process.env.TOOLDECK_TEST_SECRET;
    }

    expect(await run(['auth', 'notes', '--grant', 'password'])).toMatchObject({ code: ExitCode.Usage, stderr: expect.stringContaining('--grant must be one of authorization_code, client_credentials, jwt_bearer, enterprise_managed') });
    expect(await run(['auth', 'notes', '--client-secret-env', 'TOOLDECK_TEST_UNSET'])).toMatchObject({ code: ExitCode.Usage, stderr: 'Environment variable TOOLDECK_TEST_UNSET (--client-secret-env) is empty\n' });
    expect(await run(['auth', 'notes', '--grant', 'enterprise_managed'])).toMatchObject({ code: ExitCode.Usage, stderr: expect.stringContaining('Enterprise-managed authorization needs') });
    expect(await run(['auth', 'notes', '--private-key-file', join(dataDir, 'missing.pem')])).toMatchObject({ code: ExitCode.Usage, stderr: expect.stringContaining('no such file') });
    expect((await run(['auth', 'nowhere'])).code).toBe(ExitCode.Failed);
    expect((await run(['auth', 'notes', '--grant', 'authorization_code', '--client-id', '', '--dpop', 'auto'])).code).toBe(0);
  });
});
