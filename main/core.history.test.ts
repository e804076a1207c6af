import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { everythingStdio } from '../e2e/peers/mcp/everything';
import { operatorCaller } from '../shared/caller';
import type { InvocationRecord } from '../shared/invocation';
import { createCore, type Core } from './core';
import { silentLogger } from './platform/Logger';
import { MemorySecretStore } from './platform/SecretStore';
import { PostgresHistory } from './store/PostgresHistory';
import { startPostgresRig, type PostgresRig } from './store/testing/postgresHistoryRig';
import { invocation } from './store/testing/testRecords';

/**
 * The wiring in main/core.ts: with a history URL the core records into PostgreSQL under its replica
 * name, other replicas' calls join its live feed, and with OTEL_EXPORTER_OTLP_LOGS_ENDPOINT each
 * call also goes out as an OTLP log record. Real parts throughout: PostgreSQL, server-everything,
 * the OpenTelemetry exporter (to an HTTP endpoint that keeps what it receives).
 */
let rig: PostgresRig;
let url: string;
let core: Core;
let dataDir: string;
let otlp: Server;
const logged: string[] = [];

beforeAll(async () => {
  rig = await startPostgresRig();
  url = await rig.database();
  otlp = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      logged.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => otlp.once('listening', resolve));
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-core-history-'));
  process.env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT = `http://127.0.0.1:${(otlp.address() as AddressInfo).port}/v1/logs`;
  try {
    core = await createCore({ appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, exampleWorkspace: false, shutdownGraceMs: 200, historyUrl: url, replicaName: 'core-test', historyLive: true });
  } finally {
    delete process.env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT;
  }
  await core.mcp.save({ config: everythingStdio('ev') as never });
  await core.mcp.connect('ev');
  await vi.waitFor(() => expect(core.catalog.get('mcp:ev.echo')).toBeDefined(), { timeout: 15_000 });
}, 120_000);

afterAll(async () => {
  await core?.close();
  otlp?.close();
  await rig?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('createCore with a PostgreSQL history', { timeout: 60_000 }, () => {
  it('records each call into PostgreSQL under its replica name, and sends it as an OTLP log record', async () => {
    const outcome = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:ev.echo', arguments: { message: 'to the fleet' } });
    expect(outcome.record.status).toBe('ok');
    expect(core.history.kind).toBe('postgres');
    expect(await core.history.get(outcome.record.id)).toMatchObject({ tool: 'echo', replica: 'core-test', via: 'cli' });
    await vi.waitFor(() => expect(logged.join('\n')).toContain(outcome.record.id), { timeout: 15_000 });
    expect(logged.join('\n')).toContain('"gen_ai.tool.name"');
  });

  it("publishes another replica's calls into the live feed the History view follows", async () => {
    const live = core.liveCalls.subscribe();
    const other = await PostgresHistory.open({ url, retention: false });
    other.record(invocation({ id: 'from-gateway-b', replica: 'gateway-b', via: 'gateway', agent: 'planner-bot' }));
    await other.close();
    let seen: InvocationRecord | undefined;
    for await (const record of live) {
      if (record.id === 'from-gateway-b') {
        seen = record;
        break;
      }
    }
    expect(seen).toMatchObject({ replica: 'gateway-b', agent: 'planner-bot' });
  });
});
