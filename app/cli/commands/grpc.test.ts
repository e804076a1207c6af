import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates, startReflectionServer, startToolsV1Server, type GrpcPeer, type TestCertificates } from '../../../e2e/peers/grpc/grpcPeers';
import { runTooldeck } from '../testing/runTooldeck';

const TOKEN = 'cli-token-7d1e';

/** `tooldeck grpc …` and `tooldeck call …` end to end in-process, against the real gRPC peers. */
describe('tooldeck grpc and tooldeck call', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-grpc-cli-'));
  let tools: GrpcPeer;
  let guarded: GrpcPeer;
  let mutual: GrpcPeer;
  let reflecting: GrpcPeer;
  let silent: GrpcPeer;
  let certs: TestCertificates;
  let closedPort: number;

  beforeAll(async () => {
    certs = makeTestCertificates();
    [tools, guarded, mutual, reflecting, silent] = await Promise.all([
      startToolsV1Server(),
      startToolsV1Server({ token: TOKEN }),
      startToolsV1Server({ tls: { cert: certs.files.serverCert, key: certs.files.serverKey, clientCa: certs.files.ca } }),
      startReflectionServer(),
      startReflectionServer({ reflection: false }),
    ]);
    closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
  }, 600_000);

  afterAll(async () => {
    await Promise.all([tools, guarded, mutual, reflecting, silent].map((peer) => peer?.stop()));
  });

  async function run(...argv: string[]) {
    return runTooldeck(dataDir, argv);
  }

  it('adds a tools.v1 server and lists its tools with versions and the unusable one', async () => {
    const added = await run('grpc', 'add', 'weather', tools.address);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/Saved weather .* 6 tools/);
    expect(added.stdout).toMatch(/forecast\s+v2\.1\.0 \(accepts 2\.0\.0\)/);
    expect(added.stdout).toMatch(/broken_schema .*unusable: its schema is not valid JSON/);
    const listed = await run('grpc', 'list-sources', '--refresh', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'weather', protocol: 'tools.v1', state: 'ready' })]);
  });

  it('calls any registry entry with the exit codes of mcp call', async () => {
    const ok = await run('call', 'grpc:weather.forecast', '--args', '{"city":"Oslo","days":1}', '--json');
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).structuredContent).toMatchObject({ city: 'Oslo', days: 1 });
    expect((await run('call', 'grpc:weather.forecast', '--args', '{"days":1}')).code).toBe(2);
    expect((await run('call', 'grpc:weather.forecast', '--args', '[1]')).code).toBe(2);
    const failed = await run('call', 'grpc:weather.fail');
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining('ExecutionFailed') });
    expect((await run('call', 'grpc:weather.nope')).code).toBe(1);
    expect((await run('call', 'not-a-tool-name')).code).toBe(2);
    expect((await run('call', 'grpc:nobody.tool')).code).toBe(1);
    const history = await run('history', '--tool', 'forecast', '--json');
    expect(JSON.parse(history.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ sourceKind: 'grpc', sourceName: 'weather', tool: 'forecast', status: 'ok' })]));
  });

  it('pins a version: a compatible one runs, an older one is refused as incompatible', async () => {
    expect((await run('grpc', 'pin', 'weather', 'forecast', '2.0.0')).code).toBe(0);
    expect((await run('call', 'grpc:weather.forecast', '--args', '{"city":"Rome"}')).code).toBe(0);
    expect((await run('grpc', 'pin', 'weather', 'forecast', '1.0.0')).code).toBe(0);
    const refused = await run('call', 'grpc:weather.forecast', '--args', '{"city":"Rome"}');
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('incompatible version') });
    expect((await run('grpc', 'pin', 'weather', 'forecast')).code).toBe(0);
  });

  it('keeps metadata and the client key sealed; mTLS with client certificates', async () => {
    expect((await run('grpc', 'add', 'guarded', guarded.address)).code).toBe(1);
    const added = await run('grpc', 'add', 'guarded', guarded.address, '--metadata', `authorization=Bearer ${TOKEN}`);
    expect(added.code, added.stderr).toBe(0);
    expect((await run('call', 'grpc:guarded.convert_units', '--args', '{"value":1,"from":"mi","to":"km"}')).code).toBe(0);
    process.env.TOOLDECK_TEST_GRPC_AUTH = `Bearer ${TOKEN}`;
    try {
      expect((await run('grpc', 'add', 'guarded-env', guarded.address, '--metadata-env', 'authorization=TOOLDECK_TEST_GRPC_AUTH')).code).toBe(0);
    } finally {
      delete process.env.TOOLDECK_TEST_GRPC_AUTH;
    }
    expect((await run('grpc', 'add', 'guarded-env', guarded.address, '--metadata-env', 'authorization=TOOLDECK_TEST_GRPC_AUTH')).code).toBe(2);
    const mtls = await run('grpc', 'add', 'mutual', mutual.address, '--ca', certs.files.ca, '--cert', certs.files.clientCert, '--key', certs.files.clientKey);
    expect(mtls.code, mtls.stderr).toBe(0);
    expect((await run('call', 'grpc:mutual.forecast', '--args', '{"city":"Lima"}')).code).toBe(0);
    const withoutCert = await run('grpc', 'add', 'nocert', mutual.address, '--ca', certs.files.ca);
    expect(withoutCert).toMatchObject({ code: 3, stderr: expect.stringContaining('(tls)') });
    for (const file of readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
      if (!file.isFile()) continue;
      const text = readFileSync(join(file.parentPath, file.name));
      expect(text.includes(TOKEN), file.name).toBe(false);
      expect(text.includes('PRIVATE KEY'), file.name).toBe(false);
    }
  });

  it('exits 3 naming the step when the server cannot be reached, 2 on a bad address', async () => {
    expect(await run('grpc', 'add', 'gone', `127.0.0.1:${closedPort}`)).toMatchObject({ code: 3, stderr: expect.stringContaining('Cannot connect (tcp)') });
    expect(await run('grpc', 'add', 'bad', 'not an address')).toMatchObject({ code: 2 });
    expect(await run('grpc', 'call', `127.0.0.1:${closedPort}`, 'grpc.health.v1.Health/Check')).toMatchObject({ code: 3 });
  });

  it('lists and calls any service through reflection, streams included, and says when there is none', async () => {
    const listed = await run('grpc', 'list', reflecting.address);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('grpc.health.v1.Health\n  Check(grpc.health.v1.HealthCheckRequest) returns (grpc.health.v1.HealthCheckResponse)');
    expect(listed.stdout).toContain('Watch(grpc.health.v1.HealthCheckRequest) returns (stream grpc.health.v1.HealthCheckResponse)');
    const none = await run('grpc', 'list', silent.address);
    expect(none).toMatchObject({ code: 1, stderr: expect.stringContaining('does not offer gRPC server reflection') });

    const check = await run('grpc', 'call', reflecting.address, 'grpc.health.v1.Health/Check', '--data', '{"service":"explorer.v1.Explorer"}');
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({ status: 'SERVING' });
    const withStatus = await run('grpc', 'call', reflecting.address, 'explorer.v1.Explorer.Echo', '--data', '{"text":"x","times":2}', '--json');
    expect(JSON.parse(withStatus.stdout).structuredContent).toMatchObject({ status: { name: 'OK' }, trailers: { 'x-echo-count': '2' } });
    const streamed = await run('grpc', 'call', reflecting.address, 'explorer.v1.Explorer/Count', '--data', '{"to":3}');
    expect(streamed.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect((await run('grpc', 'call', reflecting.address, 'explorer.v1.Explorer/Fail', '--data', '{"code":"INVALID_ARGUMENT"}')).code).toBe(2);
    expect((await run('grpc', 'call', reflecting.address, 'explorer.v1.Explorer/Echo', '--data', '{"nope":1}')).code).toBe(2);
    expect((await run('grpc', 'call', reflecting.address, 'explorer.v1.Explorer/Nope')).code).toBe(1);
  });

  it('runs a reflected method saved in a collection', async () => {
    expect((await run('grpc', 'add', 'peer', reflecting.address, '--reflection')).code).toBe(0);
    const file = join(dataDir, 'health.yaml');
    writeFileSync(
      file,
      stringify({
        name: 'health',
        requests: [{ name: 'check', target: 'grpc:peer', tool: 'grpc.health.v1.Health/Check', arguments: {}, assertions: [{ path: '$.structuredContent.response.status', equals: 'SERVING' }] }],
      }),
    );
    const ran = await run('run', file, '--reporter', 'json');
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ ok: true, requests: { passed: 1 }, assertions: { passed: 1 } });
  });

  it('removes a source and its secrets', async () => {
    expect((await run('grpc', 'remove', 'guarded')).code).toBe(0);
    expect((await run('call', 'grpc:guarded.forecast', '--args', '{"city":"x"}')).code).toBe(1);
    expect((await run('grpc', 'remove', 'guarded')).code).toBe(1);
  });
});
