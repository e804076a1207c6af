import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeTasksExtensionStdio } from '../e2e/peers/mcp/fakeTasksExtension';
import { createCore, type Core } from './core';
import { silentLogger } from './platform/Logger';
import { MemorySecretStore } from './platform/SecretStore';
import { operatorCaller } from '../shared/caller';

const server = 'tasks2026';
let core: Core;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-core-task-status-'));
  core = await createCore({ appVersion: '0.0.0-test', host: 'cli', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, exampleWorkspace: false, shutdownGraceMs: 200 });
  // The test server on the official server SDK that turns calls into tasks (SEP-2663).
  await core.mcp.save({ config: fakeTasksExtensionStdio(server) as never });
  await core.mcp.connect(server);
  // The catalog fills from the connection's tool list.
  await vi.waitFor(() => expect(core.catalog.get(`mcp:${server}.slow_compute`)).toBeDefined(), { timeout: 15_000 });
}, 30_000);
afterAll(async () => {
  await core?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The wiring in main/core.ts: a task the ledger sees end (here through tasks/result) reaches
 * history.setTaskStatus, so the record a detached call left with "working" ends with the task's
 * final status. Not a mock of either side: the real ledger, task service and SQLite store.
 */
describe('createCore: a detached task’s history record', () => {
  it('gets the task’s final status when the task ends after the call was recorded', async () => {
    const outcome = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: `mcp:${server}.slow_compute`, arguments: { seconds: 0.3, label: 'dunes' }, confirmed: true, task: { mode: 'detach' } });
    const taskId = outcome.task!.taskId;
    expect(outcome.record).toMatchObject({ taskId, taskStatus: 'working' });
    await core.history.flush();
    expect((await core.history.get(outcome.record.id))?.taskStatus).toBe('working');

    // Waits for the task to end, as the Tasks tab's "Wait for result" does; the ledger's settled
    // event is what history listens to.
    expect((await core.mcp.tasks.result(server, taskId)).task.status).toBe('completed');
    expect(await core.history.get(outcome.record.id)).toMatchObject({ taskId, taskStatus: 'completed' });
  }, 30_000);

  it('records a cancelled task as cancelled', async () => {
    const outcome = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: `mcp:${server}.slow_compute`, arguments: { seconds: 60, label: 'long' }, confirmed: true, task: { mode: 'detach' } });
    const taskId = outcome.task!.taskId;
    await core.mcp.tasks.cancel(server, taskId);
    // cancel answers with the server's view; the ledger settles when the status is next read.
    expect((await core.mcp.tasks.get(server, taskId)).status).toBe('cancelled');
    expect((await core.history.get(outcome.record.id))?.taskStatus).toBe('cancelled');
  }, 30_000);
});
