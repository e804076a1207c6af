import { describe, expect, it } from 'vitest';
import { exportMcpJson, parseServerImport, SECRET_PLACEHOLDER } from './mcpConfigFormats';

describe('mcp.json import and export', () => {
  it('reads the Claude Desktop / Cursor / Inspector mcpServers shape, pulling secrets out', () => {
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
    expect(github!.config).toMatchObject({ name: 'github', transport: 'stdio', command: 'npx', env: { LOG_LEVEL: 'debug' }, secretEnv: ['GITHUB_PERSONAL_ACCESS_TOKEN'] });
    expect(github!.secretEnvValues).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' });
    expect(remote!.config).toMatchObject({ transport: 'http', headers: { 'X-Team': 'ops' }, hasBearerToken: true });
    expect(remote!.bearerToken).toBe('abc123');
    expect(legacy!.config.transport).toBe('sse');
  });

  it("reads VS Code's servers shape", () => {
    const result = parseServerImport(JSON.stringify({ servers: { time: { type: 'stdio', command: 'uvx', args: ['mcp-server-time'] } } }));
    expect(result.servers[0]!.config).toMatchObject({ name: 'time', transport: 'stdio', command: 'uvx', args: ['mcp-server-time'] });
  });

  it("reads RockBot's {Mcp: {Servers: [...]}} shape (seed 002)", () => {
    const result = parseServerImport(
      JSON.stringify({ Mcp: { Servers: [{ Name: 'weather-server', Command: 'uvx', Arguments: ['mcp-server-weather'], EnvironmentVariables: { API_KEY: '...' } }] } }),
    );
    expect(result.format).toBe('rockbot');
    expect(result.servers[0]!.config).toMatchObject({ name: 'weather-server', transport: 'stdio', command: 'uvx', args: ['mcp-server-weather'], secretEnv: ['API_KEY'] });
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
      { name: 'gh', transport: 'stdio', command: 'npx', args: ['a'], env: { LOG: '1' }, secretEnv: ['TOKEN'], enabled: true },
      { name: 'remote', transport: 'http', url: 'https://x.example/mcp', headers: {}, hasBearerToken: true, enabled: true },
    ]);
    const parsed = JSON.parse(text);
    expect(parsed.mcpServers.gh).toEqual({ command: 'npx', args: ['a'], env: { LOG: '1', TOKEN: SECRET_PLACEHOLDER } });
    expect(parsed.mcpServers.remote).toEqual({ type: 'http', url: 'https://x.example/mcp', headers: { Authorization: `Bearer ${SECRET_PLACEHOLDER}` } });
  });
});
