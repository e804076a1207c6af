import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio, startEverythingHttp, type RunningPeer } from '../../../e2e/peers/mcp/everything';
import { Collection, collectionSecretKey, type CollectionInput, type SavedRequestInput } from '../../../shared/collections';
import type { LoadEvent } from '../../../shared/loadRuns';
import { createCore, type Core } from '../../core';
import { silentLogger } from '../../platform/Logger';
import { MemorySecretStore } from '../../platform/SecretStore';
import type { LoadRunOptions } from './CollectionLoadRunner';

// Real load against the reference server over stdio and Streamable HTTP. Rates are modest and
// nothing asserts a timing: counts, codes, history and the stored run are what must hold.

let core: Core;
let http: RunningPeer;

beforeAll(async () => {
  http = await startEverythingHttp('streamableHttp');
  core = await createCore({
    exampleWorkspace: false,
    appVersion: '0.0.0-test',
    host: 'cli',
    dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-load-')),
    secretStore: new MemorySecretStore(),
    logger: silentLogger,
    shutdownGraceMs: 200,
  });
  await core.mcp.save({ config: { ...everythingStdio('stdio'), enabled: false } as never });
  await core.mcp.save({ config: { name: 'http', transport: 'http', url: http.url, enabled: false } as never });
});
afterAll(async () => {
  await core?.close();
  await http?.close();
});

const echo = (name: string, target: string, extra: Partial<SavedRequestInput> = {}): SavedRequestInput => ({ name, target, tool: 'echo', arguments: { message: name }, ...extra });
const collection = (requests: SavedRequestInput[], extra: Partial<CollectionInput> = {}) => Collection.parse({ name: 'load-test', requests, ...extra });

async function load(c: Collection, options: LoadRunOptions) {
  const run = core.collections.load(c, options);
  const events: LoadEvent[] = [];
  for await (const event of run) events.push(event);
  return { events, summary: await run.summary, run };
}

describe('load runs against server-everything', () => {
  it.each(['stdio', 'http'])('sends every scheduled call over %s through the pipeline, records them under the run, and stores the run', async (server) => {
    const { summary, events } = await load(collection([echo('one', `mcp:${server}`), echo('two', `mcp:${server}`)]), {
      rps: 20,
      durationMs: 2_000,
      thresholds: ['p99<60s', 'error_rate<1%', 'p50<0.001ms'],
    });
    expect(summary.connectFailures).toEqual([]);
    expect(summary.scheduled).toBe(40);
    expect(summary.sent + summary.dropped).toBe(40);
    expect(summary.requests).toBe(summary.sent);
    expect(summary.errors).toBe(0);
    expect(summary.latency.p50).toBeGreaterThan(0);
    expect(summary.latency.p999).toBeGreaterThanOrEqual(summary.latency.p99!);
    expect(summary.perRequest.map((r) => [r.name, r.tool])).toEqual([
      ['one', `mcp:${server}.echo`],
      ['two', `mcp:${server}.echo`],
    ]);
    expect(summary.thresholds.map((t) => t.passed)).toEqual([true, true, false]);
    expect(summary.ok).toBe(false);
    expect(events[0]).toMatchObject({ type: 'load-started', collection: 'load-test', settings: { rps: 20, concurrency: 100 } });
    expect(events.at(-1)).toMatchObject({ type: 'load-finished', summary: { runId: summary.runId } });
    expect(events.filter((e) => e.type === 'load-tick').length).toBeGreaterThanOrEqual(1);

    await core.history.flush();
    const calls = await core.history.count({ runId: summary.runId });
    expect(calls).toBe(summary.requests);
    const stored = await core.history.getRun(summary.runId);
    expect(stored).toMatchObject({ kind: 'load', collection: 'load-test', requests: summary.requests, failures: 0, ok: false });
    expect(stored?.summary).toEqual(summary);
    expect((await core.history.listRuns({ kind: 'load' })).map((r) => r.runId)).toContain(summary.runId);
    const series = await core.history.timeSeries({ since: summary.startedAt - 60_000, until: summary.startedAt + 60_000, bucketMs: 60_000, filter: { runId: summary.runId } });
    expect(series.series[0]!.points.reduce((n, p) => n + p.count, 0)).toBe(summary.requests);
  });

  it('counts failures by code: arguments the schema refuses and failed assertions', async () => {
    const { summary } = await load(
      collection([
        echo('bad-arguments', 'mcp:stdio', { arguments: { message: 42 } }),
        { name: 'bad-sum', target: 'mcp:stdio', tool: 'get-sum', arguments: { a: 'x', b: 1 } },
        echo('wrong-answer', 'mcp:stdio', { assertions: [{ path: 'text', equals: 'Echo: something else' }] }),
        echo('fine', 'mcp:stdio'),
      ]),
      { rps: 20, durationMs: 1_000 },
    );
    expect(summary.requests).toBe(20);
    expect(summary.perRequest.map((r) => [r.name, r.errors])).toEqual([
      ['bad-arguments', 5],
      ['bad-sum', 5],
      ['wrong-answer', 5],
      ['fine', 0],
    ]);
    expect(summary.errorsByCode).toMatchObject({ InvalidArguments: 10, AssertionFailed: 5 });
    expect(summary.errors).toBe(15);
  });

  it('gets captured variables from one pass in order before the load, and resolves secrets without recording them', async () => {
    await core.secrets.set(collectionSecretKey('load-token'), 'load-secret-value-1');
    const { summary } = await load(
      collection([
        echo('source', 'mcp:stdio', { arguments: { message: 'captured-word' }, capture: { word: 'text' } }),
        echo('uses', 'mcp:stdio', { arguments: { message: '{{word}} {{secret:load-token}}' }, assertions: [{ path: 'text', contains: 'captured-word' }] }),
      ]),
      { rps: 10, durationMs: 1_000 },
    );
    expect(summary.errors).toBe(0);
    await core.history.flush();
    const recorded = (await core.history.list({ runId: summary.runId })).items;
    expect(recorded.length).toBe(summary.requests + 2);
    expect(JSON.stringify(recorded)).not.toContain('load-secret-value-1');
    expect(recorded.some((r) => r.argumentsJson.includes('Echo: captured-word ***'))).toBe(true);
  });

  it('stops when canceled: no new calls, the run is stored as canceled', async () => {
    const run = core.collections.load(collection([echo('one', 'mcp:stdio')]), { rps: 20, durationMs: 60_000 });
    for await (const event of run) if (event.type === 'load-tick') run.cancel();
    const summary = await run.summary;
    expect(summary.canceled).toBe(true);
    expect(summary.ok).toBe(false);
    expect(summary.dropped).toBeGreaterThan(1_000);
    expect(await core.history.getRun(summary.runId)).toMatchObject({ canceled: true });
  });

  it('does not start when a target cannot be connected, and says which', async () => {
    const { summary, events } = await load(collection([echo('one', 'mcp:nowhere')]), { rps: 5, durationMs: 1_000 });
    expect(summary.sent).toBe(0);
    expect(summary.connectFailures).toEqual([{ target: 'mcp:nowhere', error: expect.objectContaining({ code: 'NotFound' }) }]);
    expect(events.map((e) => e.type)).toEqual(['load-finished']);
  });
});
