import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvocationRecord } from '../../shared/invocation';
import { startPostgresRig, type PostgresRig } from '../../main/store/testing/postgresHistoryRig';
import { cliPath, startTooldeckServer, type TooldeckServer } from '../support/tooldeckServer';

/**
 * The fleet's record with the built CLI: two Tooldeck processes (replica-a, replica-b) write into
 * one private PostgreSQL, the CLI reads both; SIGTERM mid-burst loses no answered call; kill -9
 * loses only the newest; the database stopped and restarted under load loses none, and no call
 * waits for it.
 */
const PASSWORD = 'fleet-pw-7:@/x';
let rig: PostgresRig;
const servers: TooldeckServer[] = [];

beforeAll(async () => {
  rig = await startPostgresRig({ password: PASSWORD });
}, 120_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await rig?.stop();
}, 60_000);

async function replica(url: string, name: string): Promise<TooldeckServer> {
  const server = await startTooldeckServer({ args: ['--history-url', url, '--replica-name', name] });
  servers.push(server);
  return server;
}

async function invoke(server: TooldeckServer, message: string): Promise<string | undefined> {
  const response = await fetch(`${server.origin}/trpc/tools.invoke`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'mcp:everything.echo', arguments: { message } }),
  });
  return ((await response.json()) as { result?: { data: { record: { status: string } } } }).result?.data.record.status;
}

/** The example workspace's server-everything connects on start; wait until echo answers. */
async function ready(server: TooldeckServer) {
  for (let attempt = 0; (await invoke(server, 'ready?')) !== 'ok'; attempt++) {
    if (attempt > 300) throw new Error('echo never became callable');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function sigterm(server: TooldeckServer): Promise<number | null> {
  const exited = new Promise<number | null>((done) => server.process.once('exit', (code) => done(code)));
  server.process.kill('SIGTERM');
  return exited;
}

function historyOf(url: string, dataDir: string): InvocationRecord[] {
  // The URL through the environment, as a Secret would give it: not on the command line.
  const out = execFileSync(process.execPath, [cliPath, '--data-dir', dataDir, 'history', 'export', '--format', 'jsonl'], { encoding: 'utf8', env: { ...process.env, TOOLDECK_HISTORY_URL: url }, maxBuffer: 256 * 1024 * 1024 });
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as InvocationRecord);
}

const messages = (rows: InvocationRecord[], prefix: string, replicaName: string) =>
  rows
    .filter((row) => row.replica === replicaName)
    .map((row) => (JSON.parse(row.argumentsJson) as { message: string }).message)
    .filter((message) => message.startsWith(prefix))
    .sort();

describe('one PostgreSQL history for several Tooldeck processes (built CLI)', { timeout: 180_000 }, () => {
  it('two replicas write concurrently; SIGTERM mid-burst loses no answered call; the CLI reads both', async () => {
    const url = await rig.database();
    const [a, b] = await Promise.all([replica(url, 'replica-a'), replica(url, 'replica-b')]);
    await Promise.all([ready(a), ready(b)]);
    // `ps` shows the command line with the password masked.
    const cmdline = readFileSync(`/proc/${a.process.pid}/cmdline`, 'utf8');
    expect(cmdline).not.toContain(PASSWORD);
    expect(cmdline).not.toContain(encodeURIComponent(PASSWORD));

    const burst = (server: TooldeckServer, name: string) => Promise.all(Array.from({ length: 80 }, (_, i) => invoke(server, `burst-${name}-${i}`)));
    const answered = await Promise.all([burst(a, 'a'), burst(b, 'b')]);
    expect(answered.flat().every((status) => status === 'ok')).toBe(true);
    // Batches are written every 100 ms: the last ones are still queued when the signal arrives.
    expect(await Promise.all([sigterm(a), sigterm(b)])).toEqual([143, 143]);

    const rows = historyOf(url, a.dataDir);
    expect(messages(rows, 'burst-a-', 'replica-a')).toEqual(Array.from({ length: 80 }, (_, i) => `burst-a-${i}`).sort());
    expect(messages(rows, 'burst-b-', 'replica-b')).toEqual(Array.from({ length: 80 }, (_, i) => `burst-b-${i}`).sort());
    const readBack = spawnSync(process.execPath, [cliPath, '--data-dir', b.dataDir, 'history', '--history-url', url, '--replica', 'replica-b', '--limit', '3'], { encoding: 'utf8' });
    expect(readBack.status).toBe(0);
    expect(readBack.stdout.trim().split('\n').every((line) => line.endsWith('on replica-b'))).toBe(true);
  });

  it('kill -9 loses only the last moments: every call answered 5 s before it is stored, and what is lost is the newest calls', async () => {
    const url = await rig.database();
    const server = await replica(url, 'replica-k');
    await ready(server);
    const answered: { message: string; at: number }[] = [];
    // Calls keep coming until well past the point the check looks back to, then the process dies mid-stream.
    for (let i = 0; answered.length < 300 || performance.now() - answered[0]!.at < 8_000; i++) {
      expect(await invoke(server, `steady-${i}`)).toBe('ok');
      answered.push({ message: `steady-${i}`, at: performance.now() });
    }
    const exited = new Promise((done) => server.process.once('exit', done));
    // Not stopped again after the file: a killed process sends no second exit.
    servers.splice(servers.indexOf(server), 1);
    server.process.kill('SIGKILL');
    const killedAt = performance.now();
    await exited;
    const stored = new Set(messages(historyOf(url, server.dataDir), 'steady-', 'replica-k'));
    // Generous for a loaded machine: a batch waits 100 ms, then is one transaction away.
    const settled = answered.filter((call) => killedAt - call.at > 5_000);
    expect(settled.length).toBeGreaterThan(0);
    expect(settled.filter((call) => !stored.has(call.message))).toEqual([]);
    // Whatever was lost is a tail of the calls: nothing earlier is missing.
    const lost = answered.filter((call) => !stored.has(call.message));
    expect(lost).toEqual(answered.slice(answered.length - lost.length));
  });

  it('the database stopped and restarted under load: every call is answered meanwhile, and none is lost', async () => {
    const url = await rig.database();
    const server = await replica(url, 'replica-c');
    await ready(server);
    const load = async (prefix: string, count: number) => {
      const statuses = [];
      for (let i = 0; i < count; i++) statuses.push(await invoke(server, `${prefix}-${i}`));
      return statuses;
    };
    const before = load('before', 30);
    await rig.pause();
    let during: (string | undefined)[];
    try {
      during = await load('during', 40);
    } finally {
      await rig.resume();
    }
    const after = await load('after', 30);
    expect([...(await before), ...during, ...after].every((status) => status === 'ok')).toBe(true);
    expect(await sigterm(server)).toBe(143);
    const rows = historyOf(url, server.dataDir);
    for (const [prefix, count] of [
      ['before', 30],
      ['during', 40],
      ['after', 30],
    ] as const) {
      expect(messages(rows, `${prefix}-`, 'replica-c')).toHaveLength(count);
    }
  });
});
