import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { everythingStdio, startEverythingHttp, type RunningPeer } from '../../../e2e/peers/mcp/everything';
import { createCore } from '../../../main/core';
import { FileSecretStore } from '../../../main/platform/FileSecretStore';
import { silentLogger } from '../../../main/platform/Logger';
import { runTooldeck } from '../testing/runTooldeck';

const seedDescriptor = fileURLToPath(new URL('../../../main/http/testing/trading-api.claw-describe.json', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-compile-cli-'));
let remote: RunningPeer;

// Clawdapus's pod-level defaults, extended with two MCP servers by name: `everything` (stdio, not
// running when compile runs: its last discovery is used) and `remote` (Streamable HTTP).
const POD = `x-claw:
  pod: desk
  tools-defaults:
    - service: trading-api
      allow: [get_market_context]
services:
  analyst:
    x-claw:
      cllama: passthrough
      tools:
        - ...
        - service: everything
          allow: [echo, get-sum]
  researcher:
    x-claw:
      cllama: passthrough
      tools:
        - service: remote
          allow: all
`;

async function run(argv: string[]) {
  return runTooldeck(dataDir, argv);
}

beforeAll(async () => {
  remote = await startEverythingHttp();
  const core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore: new FileSecretStore(join(dataDir, 'secrets')), logger: silentLogger, shutdownGraceMs: 200 });
  try {
    await core.mcp.save({ config: everythingStdio('everything') as never });
    await core.mcp.save({ config: { name: 'remote', transport: 'http', url: remote.url } as never });
    // Discovery writes each server's tool list to the cache compile reads from.
    await core.mcp.connect('everything');
    await core.mcp.connect('remote');
    await core.http.add({ service: 'trading-api', location: seedDescriptor, baseUrl: 'http://trading-api:4000' });
  } finally {
    await core.close();
  }
  mkdirSync(join(dataDir, 'workspace'), { recursive: true });
  writeFileSync(join(dataDir, 'workspace', 'desk.claw-pod.yml'), POD);
}, 60_000);

afterAll(() => remote?.close());

describe('tooldeck compile --agent', () => {
  it('prints the tools.json of an agent: defaults, HTTP tools and MCP tools from the last discovery', async () => {
    const result = await run(['compile', '--agent', 'analyst']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const manifest = JSON.parse(result.stdout);
    expect(manifest.version).toBe(1);
    expect(manifest.tools.map((tool: { name: string }) => tool.name)).toEqual(['everything.echo', 'everything.get-sum', 'trading-api.get_market_context']);
    const echo = manifest.tools[0];
    expect(echo.inputSchema.properties.message.type).toBe('string');
    expect(echo.execution).toEqual({ transport: 'mcp', service: 'everything', tool: 'echo' });
    expect(manifest.tools[2].execution).toMatchObject({ transport: 'http', base_url: 'http://trading-api:4000', method: 'GET', path: '/api/v1/market_context/{claw_id}' });
    expect(manifest.policy).toEqual({ max_rounds: 8, timeout_per_tool_ms: 30_000, total_timeout_ms: 120_000, max_tool_result_bytes: 16_384 });
  });

  it('writes config.yaml with the endpoint of a Streamable HTTP server to --out', async () => {
    const out = join(dataDir, 'researcher-config.yaml');
    const result = await run(['compile', '--agent', 'desk/researcher', '--format', 'config.yaml', '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`desk/researcher: 1 MCP server(s) written to ${out}\n`);
    expect(parse(readFileSync(out, 'utf8'))).toEqual({ tools: { remote: { endpoint: remote.url, protocol: 'mcp' } } });
  });

  it('refuses config.yaml for a stdio server and names agents that do not exist', async () => {
    const stdio = await run(['compile', '--agent', 'analyst', '--format', 'config.yaml']);
    expect(stdio.code).toBe(1);
    expect(stdio.stderr).toBe('NotFound: Cannot write config.yaml for analyst: no endpoint known for everything.\n');
    const missing = await run(['compile', '--agent', 'trader']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("NotFound: No agent trader in the workspace's pod files; agents: desk/analyst, desk/researcher.\n");
    expect((await run(['compile', '--agent', 'analyst', '--format', 'yaml'])).code).toBe(2);
  });
});
