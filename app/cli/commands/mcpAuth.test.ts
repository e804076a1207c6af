import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
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
});
