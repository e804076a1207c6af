import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeers, type PeerSet } from '../../../e2e/peers/a2a/startPeers';
import { startWeatherService } from '../../../e2e/peers/http/weatherService';
import { createCore } from '../../../main/core';
import { FileSecretStore } from '../../../main/platform/FileSecretStore';
import { silentLogger } from '../../../main/platform/Logger';
import { runTooldeck } from '../testing/runTooldeck';

/**
 * `tooldeck call` on the two kinds of registry entry app/cli/commands/grpc.test.ts does not reach:
 * `a2a:<agent>.<skill>` (a saved agent's card read on demand, the skill run as one call) and
 * `http:<service>.<tool>` (a claw.describe descriptor imported earlier). Real peers in this process:
 * the @a2a-js/sdk sample agent and the small HTTP weather service. The exit codes are those of
 * `mcp call` (README "CLI"): 0 ok, 1 failed or isError, 2 usage or arguments against the schema,
 * 3 cannot connect.
 */
describe('tooldeck call on A2A skills and HTTP tools', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-call-cli-'));
  let agents: PeerSet;
  let weather: Awaited<ReturnType<typeof startWeatherService>>;

  beforeAll(async () => {
    [agents, weather] = await Promise.all([startPeers({ sample: { kind: 'sample', options: { stepDelayMs: 5 } } }), startWeatherService()]);
    // A port nobody listens on: an agent saved there cannot be reached (exit 3).
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
    // No CLI command saves an agent or imports a descriptor, so the sources are registered the way
    // the app does it, on the same data folder the CLI then opens (as app/cli/commands/lint.test.ts does).
    const core = await createCore({ exampleWorkspace: false, appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore: new FileSecretStore(join(dataDir, 'secrets')), logger: silentLogger, shutdownGraceMs: 200 });
    try {
      await core.a2a.save({ name: 'sample', url: agents.urls.sample! });
      await core.a2a.save({ name: 'gone', url: `http://127.0.0.1:${closedPort}` });
      await core.http.add({ service: 'forecasts', location: weather.descriptorUrl });
    } finally {
      await core.close();
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([agents?.stop(), weather?.close()]);
  });

  const run = (...argv: string[]) => runTooldeck(dataDir, argv);

  it('calls an A2A skill: exit 0 and the reply as JSON', async () => {
    const echoed = await run('call', 'a2a:sample.echo', '--args', '{"text":"ping"}', '--json');
    expect(echoed.code, echoed.stderr).toBe(0);
    expect(JSON.parse(echoed.stdout)).toMatchObject({ content: [{ type: 'text', text: 'ping' }] });
    // A skill that runs as a task: its artifacts come back as structured content.
    const report = await run('call', 'a2a:sample.report', '--args', '{"text":"sales"}', '--json');
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout)).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining('# Report on sales') }],
      structuredContent: { state: 'COMPLETED', artifacts: expect.arrayContaining([expect.objectContaining({ name: 'report.json' })]) },
    });
  });

  it('calls an HTTP tool from a claw.describe descriptor: exit 0 and the response as JSON', async () => {
    const forecast = await run('call', 'http:forecasts.get_forecast', '--args', '{"city":"Oslo","days":2}', '--json');
    expect(forecast.code, forecast.stderr).toBe(0);
    // The service's own JSON answer: the city went into the path, the days into the query.
    const body = { city: 'Oslo', days: [{ day: 1, tempC: 18, conditions: 'sunny' }, { day: 2, tempC: 19, conditions: 'sunny' }] };
    expect(JSON.parse(forecast.stdout)).toEqual({ content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body });
  });

  it('ends unknown ids, bad arguments, failed skills and unreachable agents with the codes of mcp call', async () => {
    // 1: the source is known but has no such tool; the message lists what it has.
    expect(await run('call', 'a2a:sample.nope', '--args', '{"text":"x"}')).toMatchObject({ code: 1, stderr: expect.stringMatching(/No tool named a2a:sample\.nope .*echo/) });
    expect(await run('call', 'http:forecasts.nope')).toMatchObject({ code: 1, stderr: expect.stringMatching(/No tool named http:forecasts\.nope .*get_forecast/) });
    // 1: no such source.
    expect(await run('call', 'a2a:nobody.echo', '--args', '{"text":"x"}')).toMatchObject({ code: 1, stderr: expect.stringContaining('No saved agent named "nobody"') });
    expect(await run('call', 'http:nobody.get_forecast')).toMatchObject({ code: 1, stderr: expect.stringContaining('No HTTP service named "nobody"') });
    // 2: not a registry id at all, arguments that are not an object, arguments against the schema.
    expect((await run('call', 'forecasts.get_forecast')).code).toBe(2);
    expect((await run('call', 'http:forecasts.get_forecast', '--args', '[1]')).code).toBe(2);
    expect(await run('call', 'http:forecasts.get_forecast', '--args', '{"days":2}')).toMatchObject({ code: 2, stderr: expect.stringContaining('/city is required') });
    expect((await run('call', 'a2a:sample.echo', '--args', '{}')).code).toBe(2);
    // 1: the skill ran and failed (the A2A task ended FAILED, reported as isError).
    const failed = await run('call', 'a2a:sample.fail', '--args', '{"text":"disk full"}', '--json');
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('disk full') }] });
    // 3: the agent's card cannot be fetched.
    expect(await run('call', 'a2a:gone.echo', '--args', '{"text":"x"}')).toMatchObject({ code: 3, stderr: expect.stringContaining('Cannot connect to a2a:gone') });
  });

  it('records the calls in the history like any other', async () => {
    const history = await run('history', '--json');
    expect(history.code, history.stderr).toBe(0);
    expect(JSON.parse(history.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ sourceKind: 'a2a', sourceName: 'sample', tool: 'echo', status: 'ok' }),
        expect.objectContaining({ sourceKind: 'http', sourceName: 'forecasts', tool: 'get_forecast', status: 'ok' }),
      ]),
    );
  });
});
