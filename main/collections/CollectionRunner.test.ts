import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeers, type PeerSet } from '../../e2e/peers/a2a/startPeers';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { validateJunit } from '../../e2e/peers/junit/validateJunit';
import { Collection, collectionSecretKey, type CollectionInput, type RunEvent, type SavedRequestInput } from '../../shared/collections';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import type { CollectionRunOptions } from './CollectionRunner';
import { junitReport } from './junitReport';
import { loadCollectionFile } from './loadCollectionFile';

let core: Core;

beforeAll(async () => {
  core = await createCore({ exampleWorkspace: false,
    appVersion: '0.0.0-test',
    host: 'cli',
    dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-runner-')),
    secretStore: new MemorySecretStore(),
    logger: silentLogger,
    shutdownGraceMs: 200,
  });
  // Saved but not connected: the runner has to connect it.
  await core.mcp.save({ config: { ...everythingStdio('everything'), enabled: false } as never });
});
afterAll(() => core?.close());

const echo = (name: string, message: string, extra: Partial<SavedRequestInput> = {}): SavedRequestInput => ({ name, target: 'mcp:everything', tool: 'echo', arguments: { message }, ...extra });

function collection(requests: SavedRequestInput[], extra: Partial<CollectionInput> = {}): Collection {
  return Collection.parse({ name: 'test', requests, ...extra });
}

async function run(c: Collection, options: CollectionRunOptions = {}) {
  const events: RunEvent[] = [];
  const started = core.collections.run(c, options);
  for await (const event of started) events.push(event);
  return { events, summary: await started.summary, runId: started.runId };
}

describe('CollectionRunner against server-everything', () => {
  it('connects the saved server and runs the example collection green, every call in history under the run id', async () => {
    const example = await loadCollectionFile(join(import.meta.dirname, '../../examples/collections/everything.yaml'));
    const { summary, events } = await run(example);
    expect(summary.results.filter((r) => r.status !== 'passed').map((r) => [r.name, r.error, r.assertions.filter((a) => !a.passed)])).toEqual([]);
    expect(summary).toMatchObject({ ok: true, canceled: false, requests: { total: 6, passed: 6 }, connectFailures: [] });
    expect(summary.assertions.failed).toBe(0);
    expect(events[0]).toMatchObject({ type: 'run-started', collection: 'everything' });
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', summary: { runId: summary.runId } });
    await core.history.flush();
    const recorded = (await core.history.list({ runId: summary.runId })).items;
    expect(recorded).toHaveLength(6);
    expect(new Set(recorded.map((r) => r.id))).toEqual(new Set(summary.results.map((r) => r.recordId)));
  });

  it('reports a failed assertion with the actual value next to the passing ones', async () => {
    const { summary } = await run(
      collection([
        echo('passes', 'hi', { assertions: [{ path: 'text', equals: 'Echo: hi' }] }),
        echo('fails', 'hi', {
          arguments: { message: 'hello' },
          assertions: [{ path: '$.content[0].text', equals: 'Echo: goodbye' }, { path: 'text', matches: '^Echo' }, { status: 'isError' }],
        }),
      ]),
    );
    expect(summary.ok).toBe(false);
    expect(summary.requests).toMatchObject({ passed: 1, failed: 1 });
    expect(summary.assertions).toEqual({ total: 4, passed: 2, failed: 2 });
    const [equals, matches, status] = summary.results[1]!.assertions;
    expect(equals).toEqual({ description: '$.content[0].text equals "Echo: goodbye"', passed: false, message: 'expected "Echo: goodbye", got "Echo: hello"', actual: 'Echo: hello' });
    expect(matches).toMatchObject({ passed: true, actual: 'Echo: hello' });
    expect(status).toMatchObject({ passed: false, message: 'expected isError, got ok', actual: 'ok' });
  });

  it('feeds captured values into later requests, keeping a whole-placeholder number a number', async () => {
    const { summary } = await run(
      collection([
        { name: 'weather', target: 'mcp:everything', tool: 'get-structured-content', arguments: { location: 'Chicago' }, capture: { temp: '$.structuredContent.temperature', sky: '$.structuredContent.conditions' } },
        echo('say it', 'It is {{temp}} degrees with {{sky}}', { assertions: [{ path: 'text', equals: 'Echo: It is 36 degrees with Light rain / drizzle' }] }),
        { name: 'add one', target: 'mcp:everything', tool: 'get-sum', arguments: { a: '{{temp}}', b: 1 }, assertions: [{ path: 'text', contains: 'is 37.' }] },
      ]),
    );
    expect(summary.results.map((r) => r.status)).toEqual(['passed', 'passed', 'passed']);
    expect(summary.results[0]!.captured).toEqual({ temp: 36, sky: 'Light rain / drizzle' });
    expect(summary.results[2]!.arguments).toEqual({ a: 36, b: 1 });
  });

  it('fails a capture whose path matches nothing, and errors a request that uses an undefined variable', async () => {
    const { summary } = await run(collection([echo('capture nothing', 'x', { capture: { v: '$.structuredContent.nope' } }), echo('use it', '{{missing}}')]));
    expect(summary.results[0]!.assertions.at(-1)).toEqual({ description: 'capture v from $.structuredContent.nope', passed: false, message: 'nothing at $.structuredContent.nope' });
    expect(summary.results[1]).toMatchObject({ status: 'errored', error: { code: 'InvalidInput', message: expect.stringContaining('{{missing}} is not defined') } });
  });

  it('lets environment values override collection variables and resolves secrets without ever reporting them', async () => {
    const secret = 'tk-9f8e7d6c5b4a';
    await core.deps.secretStore.set(collectionSecretKey('API_TOKEN'), secret);
    const c = collection(
      [
        echo('greets', 'hello {{who}}', { assertions: [{ path: 'text', equals: 'Echo: hello tooldeck' }] }),
        echo('uses the secret', 'token={{auth}}', { assertions: [{ path: 'text', contains: '{{secret:API_TOKEN}}' }] }),
        echo('shows it failing', 'again {{secret:API_TOKEN}}', { assertions: [{ path: 'text', equals: 'something else' }] }),
        echo('secret not set', '{{secret:NOT_SET}}'),
      ],
      { variables: { who: 'world', auth: '{{secret:API_TOKEN}}' } },
    );
    const { summary, events } = await run(c, { environment: { who: 'tooldeck' } });
    expect(summary.results.map((r) => r.status)).toEqual(['passed', 'passed', 'failed', 'errored']);
    expect(summary.results[1]!.arguments).toEqual({ message: 'token=***' });
    expect(summary.results[2]!.assertions[0]).toMatchObject({ passed: false, actual: 'Echo: again ***', message: 'expected "something else", got "Echo: again ***"' });
    expect(summary.results[3]!.error).toMatchObject({ code: 'NotFound', message: 'The secret "NOT_SET" is not set (secret store key collections:NOT_SET)' });
    const reported = JSON.stringify(events) + junitReport([summary]);
    expect(reported).not.toContain(secret);
    expect(reported).not.toContain(secret.slice(0, 8));
  });

  it('returns the duplicate-call result for a repeated identical call within a run, and not across runs', async () => {
    const c = collection([
      echo('first', 'same'),
      echo('again', 'same', { assertions: [{ status: 'isError' }, { path: '$.structuredContent.error.code', equals: 'duplicate_tool_call' }, { path: '$.structuredContent.tool_trace.original_round', equals: 1 }] }),
      echo('different', 'other'),
    ]);
    const first = await run(c);
    expect(first.summary.results.map((r) => [r.status, r.duplicate ?? false])).toEqual([
      ['passed', false],
      ['passed', true],
      ['passed', false],
    ]);
    const second = await run(c);
    expect(second.summary.runId).not.toBe(first.summary.runId);
    expect(second.summary.results[0]).toMatchObject({ status: 'passed' });
    expect(second.summary.results[0]!.duplicate).toBeUndefined();
  });

  it('stops at the first request that does not pass with bail, reporting the rest as skipped', async () => {
    const c = collection([echo('one', '1'), echo('two', '2', { assertions: [{ path: 'text', equals: 'nope' }] }), echo('three', '3')]);
    const { summary, events } = await run(c, { bail: true });
    expect(summary.results.map((r) => r.status)).toEqual(['passed', 'failed', 'skipped']);
    expect(summary.results[2]!.reason).toMatch(/bail/);
    expect(events.filter((e) => e.type === 'request-started')).toHaveLength(2);
    expect((await run(c)).summary.results.map((r) => r.status)).toEqual(['passed', 'failed', 'passed']);
  });

  it('keeps at most N requests in flight, starting them in order, while a capture still waits for its source', async () => {
    const requests = Array.from({ length: 6 }, (_, i) => echo(`echo ${i}`, `message ${i}`));
    const inFlight = (events: RunEvent[]) => {
      let now = 0;
      let peak = 0;
      for (const e of events) {
        if (e.type === 'request-started') peak = Math.max(peak, ++now);
        if (e.type === 'request-finished') now--;
      }
      return peak;
    };
    const three = await run(collection(requests), { concurrency: 3 });
    expect(three.summary.ok).toBe(true);
    expect(inFlight(three.events)).toBe(3);
    expect(three.events.slice(1, 4).map((e) => e.type)).toEqual(['request-started', 'request-started', 'request-started']);
    expect(three.events.filter((e) => e.type === 'request-started').map((e) => (e.type === 'request-started' ? e.index : -1))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(inFlight((await run(collection(requests), { concurrency: 1 })).events)).toBe(1);

    const chained = await run(
      collection([
        { name: 'source', target: 'mcp:everything', tool: 'get-structured-content', arguments: { location: 'New York' }, capture: { t: '$.structuredContent.temperature' } },
        echo('independent', 'meanwhile'),
        echo('uses t', 't={{t}}', { assertions: [{ path: 'text', equals: 'Echo: t=33' }] }),
      ]),
      { concurrency: 3 },
    );
    expect(chained.summary.ok).toBe(true);
    const order = chained.events.map((e) => (e.type === 'request-started' ? `start ${e.index}` : e.type === 'request-finished' ? `end ${e.result.index}` : e.type));
    expect(order.indexOf('start 2')).toBeGreaterThan(order.indexOf('end 0'));
  });

  it('cancels the call in flight and skips the rest when the run is canceled', async () => {
    const c = collection([
      { name: 'slow', target: 'mcp:everything', tool: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
      echo('never', 'x'),
    ]);
    const started = core.collections.run(c);
    for await (const event of started) if (event.type === 'request-started') started.cancel();
    const summary = await started.summary;
    expect(summary.canceled).toBe(true);
    expect(summary.results.map((r) => r.status)).toEqual(['errored', 'skipped']);
    expect(summary.results[0]!.error?.code).toBe('Canceled');
    await core.history.flush();
    expect((await core.history.list({ runId: summary.runId })).items.map((r) => r.status)).toEqual(['canceled']);
  });

  it('errors the requests of a target that is not saved, and says so in the summary', async () => {
    const { summary } = await run(collection([{ name: 'ghost', target: 'mcp:nosuch', tool: 'echo' }, echo('real', 'still runs')]));
    expect(summary.connectFailures).toEqual([{ target: 'mcp:nosuch', error: expect.objectContaining({ code: 'NotFound' }) }]);
    expect(summary.results.map((r) => r.status)).toEqual(['errored', 'passed']);
  });

  it('produces a JUnit report that passes the schema checks, with a failure per failed assertion', async () => {
    const { summary } = await run(collection([echo('ok', 'a'), echo('bad', 'b', { assertions: [{ path: 'text', equals: 1 }, { path: 'text', type: 'number' }] }), echo('broken', '{{nope}}')]));
    const root = validateJunit(junitReport([summary]));
    const cases = root.children[0]!.children.filter((c) => c.name === 'testcase');
    expect(cases.map((c) => c.children.filter((k) => k.name !== 'system-out').map((k) => k.name))).toEqual([[], ['failure', 'failure'], ['error']]);
    expect(cases[1]!.children[0]!.attributes.message).toBe('text equals 1: expected 1, got "Echo: b"');
    expect(cases[1]!.children[0]!.text).toContain('actual: "Echo: b"');
  });
});

describe('CollectionRunner against an A2A agent', () => {
  let peers: PeerSet;
  beforeAll(async () => {
    peers = await startPeers({ sample: { kind: 'sample', options: { stepDelayMs: 10 } } });
    await core.a2a.save({ name: 'sample', url: peers.urls.sample! });
  });
  afterAll(() => peers?.stop());

  it("reads the saved agent's card and calls its skills as requests", async () => {
    const { summary } = await run(
      collection(
        [
          { name: 'echo skill', target: 'a2a:sample', tool: 'echo', arguments: { text: '{{word}}' }, assertions: [{ path: 'text', equals: 'ping' }] },
          { name: 'report skill', target: 'a2a:sample', tool: 'report', arguments: { text: 'sales' }, assertions: [{ path: '$.structuredContent.state', equals: 'COMPLETED' }, { path: 'text', contains: '# Report on sales' }] },
        ],
        { variables: { word: 'ping' } },
      ),
    );
    expect(summary.results.map((r) => [r.tool, r.status])).toEqual([
      ['a2a:sample.echo', 'passed'],
      ['a2a:sample.report', 'passed'],
    ]);
  });
});
