import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRabbitMq, type PrivateRabbitMq } from './privateRabbitMq';
import { RockBotShapedBridge } from './rockbotShapedBridge';

/**
 * `tooldeck call bus:<agent>.<tool>` as an operator runs it — the built CLI, one-off, joining a
 * private RabbitMQ node named in $TOOLDECK_AMQP_URL — against a RockBot-shaped bridge on amqplib.
 */
const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'out/main/cli.js');

let broker: PrivateRabbitMq;
let weather: RockBotShapedBridge;
let dataDir: string;

function tooldeck(env: Record<string, string>, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, '--data-dir', dataDir, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (status) => done({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
  broker = await startPrivateRabbitMq();
  weather = await RockBotShapedBridge.start(broker.url, 'weather', [
    {
      serverName: 'forecasts',
      tools: {
        forecast: { description: 'The forecast for a city', parametersSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, run: (args) => `sunny in ${String(args.city)}` },
        delete_city: { description: 'Deletes a city', parametersSchema: { type: 'object' }, run: () => 'deleted' },
      },
    },
  ]);
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bus-call-'));
  const workspaceDir = join(dataDir, 'workspace');
  await tooldeck({}, 'info');
  writeFileSync(
    join(workspaceDir, 'no-deleting-cities.yaml'),
    'apiVersion: orloj.dev/v1\nkind: ToolPermission\nmetadata:\n  name: no-deleting-cities\nspec:\n  tool_ref: "bus:weather.delete_city"\n  operation_rules:\n    - {operation_class: "*", verdict: deny}\n',
  );
}, 120_000);

afterAll(async () => {
  await weather?.close();
  await broker?.stop();
}, 60_000);

describe('tooldeck call bus:<agent>.<tool>', { timeout: 120_000 }, () => {
  it('joins the broker named in $TOOLDECK_AMQP_URL, calls the other bridge through the pipeline, and records the call', async () => {
    const call = await tooldeck({ TOOLDECK_AMQP_URL: broker.url }, 'call', 'bus:weather.forecast', '--args', '{"city":"Oslo"}');
    expect(call.stderr).toBe('');
    expect(call.status).toBe(0);
    expect(call.stdout).toContain('sunny in Oslo');
    expect(weather.requests.at(-1)).toMatchObject({ toolName: 'forecast', server: 'forecasts', destination: 'mcp-bridge.weather' });
    const history = await tooldeck({}, 'history', '--json', '--tool', 'forecast');
    expect(JSON.parse(history.stdout)).toEqual([expect.objectContaining({ sourceKind: 'bus', sourceName: 'weather', tool: 'forecast', status: 'ok', via: 'cli' })]);
  });

  it('a call the workspace’s policy denies is refused without reaching the bus', async () => {
    const before = weather.requests.length;
    const call = await tooldeck({ TOOLDECK_AMQP_URL: broker.url }, 'call', 'bus:weather.delete_city');
    expect(call.status).toBe(1);
    expect(call.stderr).toMatch(/PolicyDenied: .*no-deleting-cities/);
    expect(weather.requests.length).toBe(before);
  });

  it('says in one sentence what is missing: the broker, or the bridge', async () => {
    const noBroker = await tooldeck({ TOOLDECK_AMQP_URL: '' }, 'call', 'bus:weather.forecast', '--args', '{"city":"Oslo"}');
    expect(noBroker.status).toBe(3);
    expect(noBroker.stderr).toMatch(/TOOLDECK_AMQP_URL/);
    const noBridge = await tooldeck({ TOOLDECK_AMQP_URL: broker.url }, 'call', 'bus:nobody.forecast');
    expect(noBridge.status).toBe(1);
    expect(noBridge.stderr).toMatch(/No bridge named "nobody" has announced its servers on the bus/);
    expect(noBridge.stderr).not.toContain('guest:guest');
  });
});
