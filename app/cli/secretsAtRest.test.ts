import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingScript, startEverythingHttp, type RunningPeer } from '../../e2e/peers/mcp/everything';
import { createCore } from '../../main/core';
import { FileSecretStore } from '../../main/platform/FileSecretStore';
import { silentLogger } from '../../main/platform/Logger';
import { runTooldeck } from './testing/runTooldeck';
import { operatorCaller } from '../../shared/caller';

/**
 * Every kind of credential a saved server can carry is saved through the CLI, used for real
 * (connect, call, transcript, history), and then every byte under the data dir is searched for it.
 */
const SECRETS = {
  authorizationHeader: 'authz-4c1f9e7d2b',
  apiKeyHeader: 'xapikey-93be01aa57',
  cookieHeader: 'cookie-77d2e0c415',
  proxyAuthorizationHeader: 'proxyauth-1e7b90c24d',
  sessionIdHeader: 'sessionid-8f03a6d5e2',
  urlPassword: 'urlpw-5e61b0c3d9',
  basicUrlPassword: 'basicpw-47ad9e2c06',
  urlQueryKey: 'querykey-2a8f44e170',
  bearerToken: 'bearer-0d9c3e5b71',
  namedEnv: 'envtoken-6b1d08f3c2',
  credentialLookingEnv: 'dburlpw-c3f5a7e912',
  /** A credential whose name says nothing of tokens or keys, with no provider prefix: sealed all the same. */
  plainNamedEnv: 'patvalue-5d2e81c07a',
  plainNamedHeader: 'tenantref-0a7c3e9d14',
};
/** A URL password travels as HTTP Basic: its encoded form is as much a secret as the password. */
const BASIC_CREDENTIAL = Buffer.from(`ops:${SECRETS.basicUrlPassword}`).toString('base64');
const DATABASE_URL = `postgres://app:${SECRETS.credentialLookingEnv}@db.internal/app`;

const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-secrets-'));
let everything: RunningPeer;
let proxy: { server: Server; url: string; seen: Array<{ url: string; headers: IncomingHttpHeaders }> };

async function run(argv: string[]) {
  return runTooldeck(dataDir, argv);
}

/** A pass-through in front of server-everything that keeps what Tooldeck sent, to prove the secrets were used. */
async function recordingProxy(target: string) {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const forward = request({ host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

/** The folder itself and every folder below it. */
function foldersUnder(dir: string): string[] {
  return [dir, ...readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? foldersUnder(join(dir, entry.name)) : []))];
}

/** Anything that is neither a regular file nor a folder (a symlink, a socket): its mode would not be checked. */
function othersUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? othersUnder(path) : entry.isFile() ? [] : [path];
  });
}

beforeAll(async () => {
  everything = await startEverythingHttp();
  proxy = await recordingProxy(everything.url);
});

afterAll(async () => {
  proxy?.server.close();
  await everything?.close();
});

describe('secrets at rest', () => {
  it('seals every kind of server credential, uses it, and leaves no byte of it in the data dir', { timeout: 60_000 }, async () => {
    process.env.TOOLDECK_TEST_BEARER = SECRETS.bearerToken;
    const remoteUrl = proxy.url.replace('http://', `http://ops:${SECRETS.urlPassword}@`) + `?api_key=${SECRETS.urlQueryKey}&team=blue`;
    const added = await run([
      'mcp', 'add', 'remote', '--url', remoteUrl,
      '--header', `Authorization=Bearer ${SECRETS.authorizationHeader}`,
      '--header', `X-Api-Key=${SECRETS.apiKeyHeader}`,
      '--header', `Cookie=sid=${SECRETS.cookieHeader}`,
      '--header', `Proxy-Authorization=Bearer ${SECRETS.proxyAuthorizationHeader}`,
      '--header', `X-Session-Id=${SECRETS.sessionIdHeader}`,
      '--header', `X-Tenant-Ref=${SECRETS.plainNamedHeader}`,
      '--header', 'X-Team=blue',
    ]);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toMatch(/connected, \d+ tools/);
    const bearer = await run(['mcp', 'add', 'remote-bearer', '--url', proxy.url, '--bearer-token-env', 'TOOLDECK_TEST_BEARER']);
    expect(bearer.stdout).toMatch(/connected/);
    // A URL password with no Authorization header of its own: the only way it can reach the server is
    // as HTTP Basic (fetch refuses URLs with credentials), so the server must see it there.
    const basic = await run(['mcp', 'add', 'remote-basic', '--url', proxy.url.replace('http://', `http://ops:${SECRETS.basicUrlPassword}@`)]);
    expect(basic.stdout).toMatch(/connected/);
    const local = await run([
      'mcp', 'add', 'local', '--stdio', `${process.execPath} ${everythingScript} stdio`,
      '--env', `MY_SERVICE_TOKEN=${SECRETS.namedEnv}`,
      '--env', `DATABASE_URL=${DATABASE_URL}`,
      '--env', `GITHUB_PAT=${SECRETS.plainNamedEnv}`,
      '--env', 'LOG_LEVEL=debug',
    ]);
    expect(local.stdout).toMatch(/connected/);

    // Used for real: the server received each credential where it belongs.
    const sent = proxy.seen.find((request) => request.headers['x-api-key']);
    expect(sent?.headers['x-api-key']).toBe(SECRETS.apiKeyHeader);
    expect(sent?.headers.cookie).toBe(`sid=${SECRETS.cookieHeader}`);
    expect(sent?.headers.authorization).toBe(`Bearer ${SECRETS.authorizationHeader}`);
    expect(sent?.headers['proxy-authorization']).toBe(`Bearer ${SECRETS.proxyAuthorizationHeader}`);
    expect(sent?.headers['x-session-id']).toBe(SECRETS.sessionIdHeader);
    expect(sent?.headers['x-tenant-ref']).toBe(SECRETS.plainNamedHeader);
    expect(sent?.headers['x-team']).toBe('blue');
    expect(sent?.url).toContain(`api_key=${SECRETS.urlQueryKey}`);
    expect(proxy.seen.some((request) => request.headers.authorization === `Bearer ${SECRETS.bearerToken}`)).toBe(true);
    expect(proxy.seen.some((request) => request.headers.authorization === `Basic ${BASIC_CREDENTIAL}`)).toBe(true);

    // Calls that echo every secret back: history keeps the calls, not the secrets.
    const everySecret = Object.values(SECRETS).join(' ');
    for (const server of ['remote', 'local']) {
      const call = await run(['mcp', 'call', 'echo', server, '--args', JSON.stringify({ message: everySecret })]);
      expect(call.code).toBe(0);
    }

    // The transcript and a failing connect that quotes a URL password.
    const core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore: new FileSecretStore(join(dataDir, 'secrets')), logger: silentLogger, shutdownGraceMs: 200 });
    try {
      await core.mcp.connect('local');
      const pid = core.mcp.get('local').pid!;
      // The child got its environment unsealed, the variable sealed for its name and the one sealed
      // for its credential-looking value alike (Linux: read it back from /proc)...
      if (process.platform === 'linux') {
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(environ).toContain(`MY_SERVICE_TOKEN=${SECRETS.namedEnv}`);
        expect(environ).toContain(`DATABASE_URL=${DATABASE_URL}`);
        expect(environ).toContain(`GITHUB_PAT=${SECRETS.plainNamedEnv}`);
      }
      // ...and on every platform from the server itself: server-everything's get-env returns its
      // process.env. Its result, secrets and all, also lands in history, which must mask them.
      const printed = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:local.get-env', arguments: {} });
      const env = JSON.parse((printed.result?.content as Array<{ text: string }>)[0]!.text) as Record<string, string>;
      expect(env).toMatchObject({ MY_SERVICE_TOKEN: SECRETS.namedEnv, DATABASE_URL, GITHUB_PAT: SECRETS.plainNamedEnv, LOG_LEVEL: 'debug' });
      await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:local.echo', arguments: { message: everySecret } });
      const transcript = core.mcp.transcript('local')!.export();
      expect(transcript).toContain('echo');
      for (const secret of Object.values(SECRETS)) expect(transcript).not.toContain(secret);
    } finally {
      await core.close();
    }
    const broken = await run(['mcp', 'add', 'broken', '--url', `http://ops:${SECRETS.urlPassword}@127.0.0.1:9/mcp`]);
    expect(broken.stdout + broken.stderr).not.toContain(SECRETS.urlPassword);

    // What the CLI prints.
    const listed = await run(['mcp', 'list', '--json']);
    expect(listed.stdout).toContain('"secretHeaders"');
    // Every environment value is sealed; the names stay, each shown as ***.
    const printedLocal = (JSON.parse(listed.stdout) as Array<{ name: string; env?: Record<string, string>; secretEnv?: string[] }>).find((server) => server.name === 'local')!;
    expect(printedLocal).toMatchObject({ env: {}, secretEnv: ['DATABASE_URL', 'GITHUB_PAT', 'LOG_LEVEL', 'MY_SERVICE_TOKEN'] });
    expect((await run(['mcp', 'list'])).stdout).toContain('DATABASE_URL=*** GITHUB_PAT=*** LOG_LEVEL=*** MY_SERVICE_TOKEN=***');
    const exported = await run(['mcp', 'export']);
    expect(exported.stdout).toContain('<secret kept in Tooldeck>');
    const withSecrets = await run(['mcp', 'export', 'remote', '--include-secrets']);
    expect(JSON.parse(withSecrets.stdout).mcpServers.remote.headers['X-Api-Key']).toBe(SECRETS.apiKeyHeader);
    const history = await run(['history', '--json']);
    expect(JSON.parse(history.stdout).length).toBeGreaterThanOrEqual(3);
    for (const output of [listed.stdout, exported.stdout, history.stdout]) for (const secret of Object.values(SECRETS)) expect(output).not.toContain(secret);

    // Every byte of every file under the data dir: the database, its WAL, caches, configs, logs.
    const files = filesUnder(dataDir);
    expect(files.some((file) => file.endsWith('tooldeck.db'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const [kind, secret] of Object.entries({ ...SECRETS, basicCredential: BASIC_CREDENTIAL })) {
        expect(bytes.includes(secret), `${kind} found in ${file}`).toBe(false);
        expect(bytes.includes(Buffer.from(secret, 'utf16le')), `${kind} (UTF-16) found in ${file}`).toBe(false);
      }
    }
    // And nothing under it is readable by anyone but its owner: exactly 0600 for every file and 0700
    // for every folder (the data dir included), whatever the umask of the process that made them.
    // (POSIX modes: Windows has none to check.)
    if (process.platform !== 'win32') {
      const folders = foldersUnder(dataDir);
      expect(folders.length).toBeGreaterThan(1);
      for (const folder of folders) expect((statSync(folder).mode & 0o777).toString(8), folder).toBe('700');
      for (const file of files) expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
      expect(othersUnder(dataDir)).toEqual([]);
    }
  });
});
