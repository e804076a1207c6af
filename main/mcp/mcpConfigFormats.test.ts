import { describe, expect, it } from 'vitest';
import { EXPORTED_SECRET_PLACEHOLDER as SECRET_PLACEHOLDER, exportMcpJson, parseServerImport } from './mcpConfigFormats';
import { sealServerConfig } from '../../shared/serverSecrets';

describe('mcp.json import and export', () => {
  it('reads the Claude Desktop / Cursor / Inspector mcpServers shape; a bearer header becomes the token', () => {
    const result = parseServerImport(
      JSON.stringify({
        mcpServers: {
          github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x', LOG_LEVEL: 'debug' } },
          remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc123', 'X-Team': 'ops' } },
          legacy: { type: 'sse', url: 'http://127.0.0.1:3001/sse' },
        },
      }),
    );
    expect(result.format).toBe('mcpServers');
    expect(result.skipped).toEqual([]);
    const [github, remote, legacy] = result.servers;
    expect(github!.config).toMatchObject({ name: 'github', transport: 'stdio', command: 'npx', env: { LOG_LEVEL: 'debug', GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' } });
    // Saving seals what the file held in plaintext.
    expect(sealServerConfig(github!.config)).toMatchObject({ config: { env: {}, secretEnv: ['GITHUB_PERSONAL_ACCESS_TOKEN', 'LOG_LEVEL'] }, values: { 'env:GITHUB_PERSONAL_ACCESS_TOKEN': 'ghp_x', 'env:LOG_LEVEL': 'debug' } });
    expect(remote!.config).toMatchObject({ transport: 'http', headers: { 'X-Team': 'ops' }, hasBearerToken: true });
    expect(remote!.bearerToken).toBe('abc123');
    expect(legacy!.config.transport).toBe('sse');
  });

  it("reads VS Code's servers shape", () => {
    const result = parseServerImport(JSON.stringify({ servers: { time: { type: 'stdio', command: 'uvx', args: ['mcp-server-time'] } } }));
    expect(result.servers[0]!.config).toMatchObject({ name: 'time', transport: 'stdio', command: 'uvx', args: ['mcp-server-time'] });
  });

  it("reads RockBot's {Mcp: {Servers: [...]}} shape", () => {
    const result = parseServerImport(
      JSON.stringify({ Mcp: { Servers: [{ Name: 'weather-server', Command: 'uvx', Arguments: ['mcp-server-weather'], EnvironmentVariables: { API_KEY: '...' } }] } }),
    );
    expect(result.format).toBe('rockbot');
    expect(sealServerConfig(result.servers[0]!.config).config).toMatchObject({ name: 'weather-server', transport: 'stdio', command: 'uvx', args: ['mcp-server-weather'], secretEnv: ['API_KEY'] });
  });

  it('reports bad entries by name and keeps the good ones; rejects what is not JSON', () => {
    const result = parseServerImport(JSON.stringify({ mcpServers: { ok: { command: 'x' }, bad: { args: ['no command'] }, worse: { url: 'ftp://nope' } } }));
    expect(result.servers.map((s) => s.config.name)).toEqual(['ok']);
    expect(result.skipped.map((s) => s.name)).toEqual(['bad', 'worse']);
    expect(result.skipped[0]!.reason).toMatch(/command/);
    expect(() => parseServerImport('{ nope')).toThrow(/not valid JSON/);
    expect(() => parseServerImport('{"other": 1}')).toThrow(/Expected \{"mcpServers"/);
  });

  it('exports the mcpServers shape with secrets as placeholders, never their values', () => {
    const text = exportMcpJson([
      { config: { name: 'gh', transport: 'stdio', command: 'npx', args: ['a'], env: { LOG: '1' }, secretEnv: ['TOKEN'], enabled: true } },
      { config: { name: 'remote', transport: 'http', url: 'https://x.example/mcp', headers: {}, secretHeaders: ['X-Api-Key'], urlSecrets: [], hasBearerToken: true, enabled: true } },
      { config: { name: 'given', transport: 'http', url: 'https://x.example/mcp', headers: {}, secretHeaders: [], urlSecrets: [], hasBearerToken: true, enabled: true }, bearerToken: 'tok' },
    ]);
    const parsed = JSON.parse(text);
    expect(parsed.mcpServers.gh).toEqual({ command: 'npx', args: ['a'], env: { LOG: '1', TOKEN: SECRET_PLACEHOLDER } });
    expect(parsed.mcpServers.remote).toEqual({ type: 'http', url: 'https://x.example/mcp', headers: { 'X-Api-Key': SECRET_PLACEHOLDER, Authorization: `Bearer ${SECRET_PLACEHOLDER}` } });
    expect(parsed.mcpServers.given.headers).toEqual({ Authorization: 'Bearer tok' });
  });
});
