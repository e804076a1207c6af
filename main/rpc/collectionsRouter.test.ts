import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio } from '../../e2e/peers/mcp/everything';
import { validateJunit } from '../../e2e/peers/junit/validateJunit';
import type { RunEvent } from '../../shared/collections';
import { createCore, type Core } from '../core';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { collectionsRouter } from './collectionsRouter';
import { createCallerFactory } from './trpc';
import { operatorCaller } from '../../shared/caller';

let core: Core;
const callerFor = createCallerFactory(collectionsRouter);
const example = readFileSync(join(import.meta.dirname, '../../examples/collections/everything.yaml'), 'utf8');

beforeAll(async () => {
  core = await createCore({ exampleWorkspace: false,
    appVersion: '0.0.0-test',
    host: 'cli',
    dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-collections-rpc-')),
    secretStore: new MemorySecretStore(),
    logger: silentLogger,
    shutdownGraceMs: 200,
  });
  await core.mcp.save({ config: everythingStdio('everything') as never });
});
afterAll(() => core?.close());

describe('collections router', () => {
  it('imports, lists, reads, exports and removes collections', async () => {
    const rpc = callerFor({ core, caller: operatorCaller('ui') });
    await rpc.import({ text: example });
    expect(await rpc.list()).toEqual([{ name: 'everything', description: expect.stringContaining('Echo, sums'), requestCount: 6 }]);
    expect((await rpc.read({ name: 'everything' })).text).toBe(example);
    expect(JSON.parse(await rpc.export({ name: 'everything', format: 'json' })).name).toBe('everything');
    await rpc.import({ text: example, name: 'scratch' });
    await rpc.remove({ name: 'scratch' });
    expect((await rpc.list()).map((c) => c.name)).toEqual(['everything']);
    await expect(rpc.read({ name: 'scratch' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('saves a call from the invoke panel and one from history into a collection that then runs', async () => {
    const rpc = callerFor({ core, caller: operatorCaller('ui') });
    const fromPanel = await rpc.draftFromCall({ name: 'mcp:everything.echo', arguments: { message: 'saved from the panel' } });
    expect(fromPanel).toMatchObject({ name: 'echo', target: 'mcp:everything', tool: 'echo', assertions: [{ status: 'ok' }] });
    await rpc.saveRequest({ collection: 'saved-calls', request: { ...fromPanel, name: 'panel echo' }, description: 'calls worth keeping' });

    const call = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: 'mcp:everything.get-sum', arguments: { a: 'x', b: 1 } });
    await core.history.flush();
    const fromHistory = await rpc.draftFromHistory({ id: call.record.id });
    expect(fromHistory).toMatchObject({ target: 'mcp:everything', tool: 'get-sum', arguments: { a: 'x', b: 1 }, assertions: [{ status: 'error', code: 'InvalidArguments' }] });
    await rpc.saveRequest({ collection: 'saved-calls', request: { ...fromHistory, name: 'bad sum' } });

    const events: RunEvent[] = [];
    for await (const event of await rpc.run({ name: 'saved-calls' })) events.push(event);
    const finished = events.at(-1);
    expect(finished?.type).toBe('run-finished');
    if (finished?.type !== 'run-finished') return;
    expect(finished.summary).toMatchObject({ ok: true, requests: { total: 2, passed: 2 } });
    validateJunit(await rpc.report({ runId: finished.runId, format: 'junit' }));
  });

  it('cancels the run when the subscriber goes away', async () => {
    const controller = new AbortController();
    const rpc = callerFor({ core, caller: operatorCaller('ui') }, { signal: controller.signal });
    const collection = {
      name: 'slow',
      requests: [
        { name: 'long', target: 'mcp:everything', tool: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
        { name: 'after', target: 'mcp:everything', tool: 'echo', arguments: { message: 'x' } },
      ],
    };
    let runId = '';
    const events: RunEvent['type'][] = [];
    try {
      for await (const event of await rpc.run({ collection })) {
        events.push(event.type);
        if (event.type === 'run-started') runId = event.runId;
        if (event.type === 'request-started') controller.abort();
      }
    } catch {
      // The caller rejects an aborted subscription; what matters is what happened to the run.
    }
    expect(events.slice(0, 2)).toEqual(['run-started', 'request-started']);
    await expect.poll(() => callerFor({ core, caller: operatorCaller('ui') }).report({ runId, format: 'json' }).then((text) => JSON.parse(text).canceled), { timeout: 10_000 }).toBe(true);
    await core.history.flush();
    expect((await core.history.list({ runId })).items.map((r) => [r.tool, r.status])).toEqual([['trigger-long-running-operation', 'canceled']]);
  });
});
