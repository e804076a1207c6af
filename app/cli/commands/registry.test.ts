import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry } from '../../../e2e/mcp-registry/registry.mjs';
import { ensureUv } from '../../../e2e/mcp-registry/uv';
import { startEverythingHttp, type RunningPeer } from '../../../e2e/peers/mcp/everything';
import { BUNDLED_SERVER_SOURCE, bundleEntry, everythingEntry, remoteEntry, SCHEMA, timeEntry } from '../../../main/mcpRegistry/testing/registrySeed';
import { writeZip } from '../../../main/mcpRegistry/testing/zipWriter';
import { OFFICIAL_REGISTRY_URL } from '../../../shared/mcpRegistry';
import { runTooldeck } from '../testing/runTooldeck';

/**
 * `tooldeck registry …` end to end: the official registry server (built from its Go module, on a
 * private PostgreSQL) seeded with server.json entries; installs of server-everything through npx,
 * mcp-server-time through uvx, a remote whose URL variable and secret header are filled (its
 * origin pointed at a local server-everything behind a recording proxy), and mcpb bundles built
 * here and listed on plain http, which are never downloaded (main/rpc/mcpRegistryRouter.test.ts
 * installs bundles over https).
 */
const API_KEY = 'registry-api-key-5f3c91ab07';
/** What the remote says about itself (SEP-2127, draft): one tool it has, one it does not. */
const SERVER_CARD = { name: 'com.example.mcp/tenant-tools', version: '3.0.0', tools: [{ name: 'echo' }, { name: 'delete-everything' }] };
const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-registry-cli-'));
const work = mkdtempSync(join(tmpdir(), 'tooldeck-registry-files-'));
let registry: Awaited<ReturnType<typeof startRegistry>>;
let everything: RunningPeer;
let proxy: { server: Server; origin: string; seen: Array<{ url: string; headers: IncomingHttpHeaders }> };
let files: { server: Server; origin: string; requests: string[] };
const savedPath = process.env.PATH;

const run = (argv: string[]) => runTooldeck(dataDir, argv);
/**
 * Servers get a minimal environment, not the test's: where this machine reaches npm and PyPI
 * through a TLS-inspecting proxy, the proxy's CA must be passed to npx and uvx like any setting.
 */
const caEnv = ['SSL_CERT_FILE', 'NODE_EXTRA_CA_CERTS'].flatMap((name) => (process.env[name] ? ['--env', `${name}=${process.env[name]}`] : []));

const bundle = writeZip([
  { path: 'manifest.json', data: JSON.stringify({ manifest_version: '0.3', name: 'bundled', version: '0.1.0', description: 'A bundled server', server: { type: 'node', entry_point: 'server/index.cjs', mcp_config: { command: 'node', args: ['${__dirname}/server/index.cjs'] } } }) },
  { path: 'server/index.cjs', data: BUNDLED_SERVER_SOURCE },
]);
const bundleSha = createHash('sha256').update(bundle).digest('hex');
/** The same bundle with one byte changed after its checksum was published. */
const tampered = Buffer.from(bundle);
tampered[tampered.length - 30]! ^= 0xff;

beforeAll(async () => {
  // uvx runs pypi packages; Debian has no uv, PyPI serves it (cached under ~/.cache/tooldeck/uv).
  process.env.PATH = `${ensureUv()}:${savedPath}`;
  everything = await startEverythingHttp();
  proxy = await recordingProxy(everything.url);
  files = await fileServer({ '/bundled.mcpb': bundle, '/tampered.mcpb': tampered });
  registry = await startRegistry({
    seed: [
      everythingEntry('2026.8.31'),
      timeEntry,
      { ...remoteEntry, version: '3.0.0' },
      remoteEntry,
      // Registries list https downloads; the test's file server is plain http on this machine, which the seed import accepts.
      bundleEntry('com.example.mcp/bundled', `${files.origin}/bundled.mcpb`, bundleSha),
      bundleEntry('com.example.mcp/tampered', `${files.origin}/tampered.mcpb`, bundleSha),
    ],
  });
  expect((await run(['registry', 'add', `${registry.url}/`])).code).toBe(0);
  expect((await run(['registry', 'disable', OFFICIAL_REGISTRY_URL])).code).toBe(0);
}, 600_000);

afterAll(async () => {
  process.env.PATH = savedPath;
  await registry?.stop();
  for (const server of [proxy?.server, files?.server]) {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  }
  await everything?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('tooldeck registry', () => {
  it('keeps several registries: the official one can be turned off, added ones are searched', async () => {
    const listed = await run(['registry', 'list']);
    expect(listed.stdout).toBe(`off  ${OFFICIAL_REGISTRY_URL}  (official)\non   ${registry.url}\n`);
    expect(JSON.parse(readFileSync(join(dataDir, 'mcp-registries.json'), 'utf8'))).toEqual({ officialEnabled: false, added: [{ url: registry.url, enabled: true }] });
  });

  it('searches, pages and shows a server', async () => {
    const found = await run(['registry', 'search', 'everything']);
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/^io\.github\.modelcontextprotocol\/everything\s+2026\.8\.31\s+The MCP reference server/m);
    const page = await run(['registry', 'search', '--limit', '2']);
    expect(page.stdout.trim().split('\n')).toHaveLength(2);
    const cursor = /--cursor ("[^"]+")/.exec(page.stderr)?.[1];
    expect(cursor).toBeTruthy();
    const next = await run(['registry', 'search', '--limit', '2', '--cursor', JSON.parse(cursor!) as string]);
    expect(next.code).toBe(0);
    expect(next.stdout).not.toContain(page.stdout.split('\n')[0]!.split(' ')[0]!);
    const shown = await run(['registry', 'show', 'com.example.mcp/tenant-tools']);
    expect(shown.stdout).toContain('remote 1: streamable-http https://mcp.example.com/{tenant}/mcp');
    expect(shown.stdout).toContain('var tenant (required) — Your tenant');
    expect(shown.stdout).toContain('header X-Api-Key (required, secret) — API key');
    expect(shown.stdout).toMatch(/versions: (3\.1\.0, 3\.0\.0|3\.0\.0, 3\.1\.0)/);
  });

  it('installs server-everything through npx, pinned, after the exact line is confirmed, and shows its tools', async () => {
    const refused = await run(['registry', 'install', 'io.github.modelcontextprotocol/everything']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('everything (io.github.modelcontextprotocol/everything 2026.8.31) runs\n  npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio\n');
    const savedServers = async () => (JSON.parse((await run(['mcp', 'list', '--json'])).stdout) as Array<{ name: string; origin: { kind: string } }>).filter((server) => server.origin.kind === 'saved');
    expect(refused.stderr).toContain('Not installed: confirm on a terminal, or run again with --yes');
    expect(await savedServers()).toEqual([]);

    // The example workspace already has a server named everything: this one is saved under another name.
    const installed = await run(['registry', 'install', 'io.github.modelcontextprotocol/everything', '--name', 'reference', '--yes', ...caEnv]);
    expect(installed.stdout).toMatch(/Installed reference — connected, \d+ tools: .*\becho\b/);
    expect(installed.code).toBe(0);
    expect(await savedServers()).toMatchObject([{ name: 'reference', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio'] }]);
    const tools = await run(['mcp', 'tools', 'reference']);
    expect(tools.stdout).toMatch(/^echo\s/m);
  }, 180_000);

  it('installs mcp-server-time from PyPI through uvx, pinned', async () => {
    const installed = await run(['registry', 'install', 'io.github.modelcontextprotocol/time', '--yes', '--arg', '--local-timezone=Europe/Paris', ...caEnv]);
    expect(installed.stderr).toContain('uvx mcp-server-time==2026.10.19 --local-timezone Europe/Paris\n');
    expect(installed.stdout).toMatch(/Installed time — connected, \d+ tools: .*get_current_time/);
    expect(installed.code).toBe(0);
  }, 300_000);

  it('installs a remote with its URL variable filled and its secret header sealed, and refuses one with a value missing', async () => {
    const noVar = await run(['registry', 'install', 'com.example.mcp/tenant-tools', '--yes', '--header', `X-Api-Key=${API_KEY}`]);
    expect(noVar).toMatchObject({ code: 2, stderr: expect.stringContaining('The URL needs the variable tenant (Your tenant): give --var tenant=VALUE.') });
    const noHeader = await run(['registry', 'install', 'com.example.mcp/tenant-tools', '--yes', '--var', 'tenant=acme']);
    expect(noHeader).toMatchObject({ code: 2, stderr: expect.stringContaining('The header X-Api-Key is required (API key): give --header X-Api-Key=VALUE.') });

    const installed = await run(['registry', 'install', 'com.example.mcp/tenant-tools', '--version', '3.0.0', '--yes', '--var', 'tenant=acme', '--header', `X-Api-Key=${API_KEY}`, '--endpoint-origin', proxy.origin]);
    expect(installed.stderr, JSON.stringify(installed)).toContain(`connects to\n  ${proxy.origin}/acme/mcp\n`);
    expect(installed.stdout).toMatch(/Installed tenant-tools — connected, \d+ tools/);
    // Its server card was shown before connecting, and compared with tools/list after.
    expect(installed.stderr).toContain('Its server card (SEP-2127, draft): com.example.mcp/tenant-tools 3.0.0, declares 2 tools: echo, delete-everything\n');
    expect(installed.stderr).toMatch(/warning: tools\/list has \d+ tools its server card does not declare: .*get-sum/);
    expect(installed.stderr).toContain('warning: its server card declares delete-everything, which tools/list does not have\n');
    // The card is read without credentials.
    expect(proxy.seen.find((request) => request.url === '/.well-known/mcp/server-card')?.headers['x-api-key']).toBeUndefined();
    // The header reached the server it was given for, on the filled-in path.
    expect(proxy.seen.some((request) => request.url === '/acme/mcp' && request.headers['x-api-key'] === API_KEY)).toBe(true);
    // Sealed: the data dir's files (but the secret store's own encrypted file) never hold the value.
    const servers = readFileSync(join(dataDir, 'servers.json'), 'utf8');
    expect(servers).toContain('"secretHeaders": [\n        "X-Api-Key"');
    expect(servers).not.toContain(API_KEY);

    const updates = await run(['registry', 'updates']);
    expect(updates.stdout).toBe('tenant-tools  3.0.0 → 3.1.0  (com.example.mcp/tenant-tools)\n');
    // Saved anew under the same name, it is no longer the registry's server: no notice.
    expect((await run(['mcp', 'remove', 'tenant-tools'])).code).toBe(0);
    expect((await run(['mcp', 'add', 'tenant-tools', '--url', `${proxy.origin}/other/mcp`, '--no-connect'])).code).toBe(0);
    expect((await run(['registry', 'updates'])).stdout).toMatch(/^Every server installed from a registry is at its latest version/);
  }, 120_000);

  it('never downloads a bundle the registry lists on plain http: the file server is not asked (bundles over https: mcpRegistryRouter.test.ts)', async () => {
    for (const name of ['com.example.mcp/bundled', 'com.example.mcp/tampered']) {
      const refused = await run(['registry', 'install', name, '--yes']);
      expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining(`is downloaded from ${files.origin}/`) });
      expect(refused.stderr).toContain('which is not https, so it is not installed.\n');
    }
    expect(files.requests).toEqual([]);
    expect(existsSync(join(dataDir, 'mcpb'))).toBe(false);
    expect((await run(['mcp', 'list'])).stdout).not.toMatch(/^(bundled|tampered) /m);
  }, 60_000);

  it('installs from a server.json at hand with --file, through the same plan and confirmation', async () => {
    const file = join(work, 'time.server.json');
    writeFileSync(file, JSON.stringify({ ...timeEntry, name: 'io.github.example/time-from-file' }));
    const previewed = await run(['registry', 'install', '--file', file, '--name', 'time-from-file', '--arg', '--local-timezone=Europe/Paris']);
    expect(previewed.stderr).toContain('time-from-file (io.github.example/time-from-file 2026.10.19) runs\n  uvx mcp-server-time==2026.10.19 --local-timezone Europe/Paris\n');
    expect(previewed).toMatchObject({ code: 2, stderr: expect.stringContaining('Not installed: confirm on a terminal') });
    const notJson = join(work, 'broken.server.json');
    writeFileSync(notJson, '{');
    expect(await run(['registry', 'install', '--file', notJson, '--yes'])).toMatchObject({ code: 2, stderr: expect.stringContaining('The server.json is not JSON') });
  });

  it("validates a publisher's server.json with paths, agreeing with the registry's own validation", async () => {
    const good = join(work, 'good.json');
    writeFileSync(good, JSON.stringify(timeEntry));
    expect(await run(['registry', 'validate', good])).toMatchObject({ code: 0, stdout: `${good}: valid\n` });

    const badDocument = {
      $schema: SCHEMA,
      name: 'no-slash',
      description: 'x',
      version: '^1.0.0',
      packages: [{ registryType: 'mcpb', identifier: 'https://example.com/a.mcpb', transport: { type: 'stdio' }, packageArguments: [{ type: 'named', name: 'port' }] }],
      remotes: [{ type: 'streamable-http', url: 'http://localhost:3000/{tenant}' }],
    };
    const bad = join(work, 'bad.json');
    writeFileSync(bad, JSON.stringify(badDocument));
    const result = await run(['registry', 'validate', bad]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('/name: must match pattern');
    expect(result.stdout).toContain('/packages/0/fileSha256: is required for an mcpb package');
    expect(result.stdout).toContain('/packages/0/packageArguments/0/name: a named argument is a flag');
    expect(result.stdout).toContain("/remotes/0/url: uses {tenant}, which the remote's variables do not define");
    expect(result.stdout).toContain('/remotes/0/url: a remote must use https');
    expect(result.stdout).toContain('/version: must be one exact version');

    // The official registry's /v0.1/validate on the same documents (and a few more) says the same: valid or not.
    const { validateServerJson } = await import('../../../main/mcpRegistry/serverJsonValidation');
    const documents = [timeEntry, remoteEntry, everythingEntry('1.0.0'), badDocument, { ...timeEntry, name: 'bad name/x' }, { ...remoteEntry, remotes: [{ type: 'streamable-http', url: 'http://mcp.example.com/mcp' }] }, { ...timeEntry, description: 'd'.repeat(101) }];
    for (const document of documents) {
      const answer = await fetch(`${registry.url}/v0.1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(document) });
      const official = answer.ok ? ((await answer.json()) as { valid: boolean }).valid : false;
      expect(validateServerJson(document).length === 0, JSON.stringify(document).slice(0, 120)).toBe(official);
    }

    const notJson = join(work, 'not.json');
    writeFileSync(notJson, '{');
    expect(await run(['registry', 'validate', notJson])).toMatchObject({ code: 2, stderr: expect.stringContaining('is not JSON') });
  });

  it("writes a hostile registry's text to the terminal with its control characters escaped", async () => {
    // A hand-written hostile registry: names are checked by the schema, descriptions and versions carry escapes.
    const hostile = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      const server = { name: 'com.example/clear', description: 'wipes\u001b[2J\u001b]0;owned\u0007 the screen\u202e', version: '1.0.0\u001b[1A', title: 'T\u001b[31mred' };
      res.end(JSON.stringify(req.url!.startsWith('/v0.1/servers?') || req.url!.endsWith('/versions') ? { servers: [{ server }], metadata: { count: 1 } } : { server, _meta: {} }));
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
      const found = await run(['registry', 'search', '--registry', url]);
      expect(found.code).toBe(0);
      expect(found.stdout).toContain('wipes\\e[2J\\e]0;owned\\u{7} the screen\\u{202e}');
      const shown = await run(['registry', 'show', 'com.example/clear', '--registry', url]);
      expect(shown.stdout).toContain('com.example/clear 1.0.0\\e[1A — T\\e[31mred');
      // eslint-disable-next-line no-control-regex -- the point: no raw control character reached the terminal
      expect(found.stdout + found.stderr + shown.stdout + shown.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    } finally {
      hostile.closeAllConnections();
      await new Promise((resolve) => hostile.close(resolve));
    }
  });

  it('refuses bad input with exit 2 and one sentence', async () => {
    expect(await run(['registry', 'install', 'io.github.modelcontextprotocol/everything', '--package', 'cargo'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--package must be one of npm, pypi, oci, nuget, mcpb') });
    expect(await run(['registry', 'install', 'io.github.modelcontextprotocol/everything', '--package', 'pypi', '--yes'])).toMatchObject({ code: 2, stderr: 'io.github.modelcontextprotocol/everything 2026.8.31 has no pypi package; it offers: npm.\n' });
    expect(await run(['registry', 'install', 'io.github.nobody/missing', '--yes'])).toMatchObject({ code: 1 });
    expect(await run(['registry', 'add', 'ftp://example.com'])).toMatchObject({ code: 2, stderr: 'ftp://example.com is not an http:// or https:// URL.\n' });
  });
});

/** A pass-through in front of server-everything that keeps what Tooldeck sent. */
async function recordingProxy(target: string) {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/.well-known/mcp/server-card') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(SERVER_CARD));
    }
    const forward = request({ host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function fileServer(paths: Record<string, Buffer>) {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const body = paths[req.url ?? ''];
    if (!body) {
      res.statusCode = 404;
      return res.end();
    }
    res.setHeader('content-type', 'application/octet-stream');
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
