import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTooldeck } from './testing/runTooldeck';

/**
 * One server inventory, seen from the CLI's other views: on a fresh data dir (the example workspace,
 * whose McpServer `everything` runs the bundled server-everything, and nothing saved) search,
 * export and tools all see the workspace server, and tools shows the verdict the example
 * permissions.yaml gives a call.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-inventory-views-'));

async function run(argv: string[]) {
  return runTooldeck(dataDir, argv);
}

describe('the workspace server in search, export and tools', { timeout: 60_000 }, () => {
  it('search --refresh discovers the workspace server and finds its tool', async () => {
    // Never discovered yet: nothing to search.
    expect(await run(['search', 'echo'])).toMatchObject({ code: 0, stdout: 'No tools match "echo".\n', stderr: '1 server(s) have never been discovered; run with --refresh.\n' });
    const found = await run(['search', '--refresh', 'echo']);
    expect(found.stderr).toBe('');
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/^\d+\.\d\d {2}mcp:everything\.echo +Echo/m);
    const json = JSON.parse((await run(['search', 'echo', '--json'])).stdout) as Array<{ id: string; source: string }>;
    expect(json[0]).toMatchObject({ id: 'mcp:everything.echo', source: 'mcp:everything' });
  });

  it('mcp export includes the workspace server as it runs (the mcpServers format has no field for its origin)', async () => {
    const exported = await run(['mcp', 'export']);
    expect(exported.code).toBe(0);
    const { mcpServers } = JSON.parse(exported.stdout) as { mcpServers: Record<string, { command?: string; args?: string[] }> };
    expect(Object.keys(mcpServers)).toEqual(['everything']);
    // ${node} and ${module:…} resolved: another client can launch it as is.
    expect(mcpServers.everything).toEqual({ command: process.execPath, args: [expect.stringMatching(/server-everything[\\/]dist[\\/]index\.js$/), 'stdio'] });
    expect((await run(['mcp', 'export', 'everything'])).stdout).toBe(exported.stdout);
    expect(await run(['mcp', 'export', 'nope'])).toMatchObject({ code: 1, stderr: expect.stringContaining('No server named "nope"') });
  });

  it('mcp tools shows the verdict a call would meet under the workspace permissions', async () => {
    const tools = await run(['mcp', 'tools', 'everything']);
    expect(tools.code).toBe(0);
    const line = (name: string) => tools.stdout.split('\n').find((l) => l.startsWith(`${name} `));
    // tools.yaml makes it a write; permissions.yaml's everything--* rule asks for approval of writes.
    expect(line('trigger-long-running-operation')).toMatch(/^trigger-long-running-operation +\[needs approval\] /);
    expect(line('echo')).toMatch(/^echo +Echo/);
    expect(line('echo')).not.toContain('[');
    // A tool the workspace's tool_filter.include keeps out of the registry says so instead of looking allowed.
    expect(line('get-env')).toMatch(/^get-env +\[excluded by tool_filter\.include in everything\.yaml\] /);

    const json = JSON.parse((await run(['mcp', 'tools', 'everything', '--json'])).stdout) as Array<{ name: string; verdict?: { verdict: string }; excluded?: string }>;
    expect(json.find((tool) => tool.name === 'trigger-long-running-operation')?.verdict).toMatchObject({ verdict: 'confirm' });
    expect(json.find((tool) => tool.name === 'echo')?.verdict).toMatchObject({ verdict: 'allow' });
    expect(json.find((tool) => tool.name === 'get-env')).toMatchObject({ excluded: 'excluded by tool_filter.include in everything.yaml' });

    // And the call meets it: refused until confirmed.
    const unconfirmed = await run(['mcp', 'call', 'trigger-long-running-operation', 'everything', '--args', '{"duration":0.1,"steps":1}']);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toMatch(/^PolicyDenied: .*needs approval.*everything-changes-need-approval \(permissions\.yaml\)/);
    const confirmed = await run(['mcp', 'call', 'trigger-long-running-operation', 'everything', '--args', '{"duration":0.1,"steps":1}', '--yes']);
    expect(confirmed).toMatchObject({ code: 0, stdout: expect.stringContaining('completed') });
  });
});
