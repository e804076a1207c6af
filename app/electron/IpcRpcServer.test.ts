import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { appRouter } from '../../main/rpc/router';
import type { IpcEvent } from '../../shared/ipc';
import { IpcRpcServer } from './IpcRpcServer';

const core = await createCore({
  appVersion: '1.2.3',
  host: 'electron',
  dataDir: mkdtempSync(join(tmpdir(), 'tooldeck-ipc-')),
  secretStore: new MemorySecretStore(),
  logger: silentLogger,
  versions: { electron: '45.0.0' },
});
const server = new IpcRpcServer(appRouter, () => ({ core }));

describe('IPC tRPC server', () => {
  it('answers a query with the procedure result', async () => {
    const result = await server.call({ type: 'query', path: 'system.info', input: undefined });
    expect(result.ok).toBe(true);
    expect(result.ok && result.data).toMatchObject({ appVersion: '1.2.3', host: 'electron', versions: { electron: '45.0.0' } });
  });

  it('returns a tRPC error shape without a stack for an unknown procedure', async () => {
    const result = await server.call({ type: 'query', path: 'system.nope', input: undefined });
    expect(result.ok).toBe(false);
    const error = (result as { error: { message: string; data: { code: string; stack?: string } } }).error;
    expect(error.data.code).toBe('NOT_FOUND');
    expect(error.data.stack).toBeUndefined();
  });

  it('rejects invalid input with BAD_REQUEST', async () => {
    const events: IpcEvent[] = [];
    await server.subscribe({ id: 'bad', path: 'system.heartbeat', input: { intervalMs: 1 } }, (e) => events.push(e));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'error', error: { data: { code: 'BAD_REQUEST' } } });
  });

  it('streams subscription events until unsubscribed', async () => {
    const events: IpcEvent[] = [];
    const done = server.subscribe({ id: 'hb', path: 'system.heartbeat', input: { intervalMs: 50 } }, (event) => {
      events.push(event);
      if (events.length === 3) server.unsubscribe('hb');
    });
    await done;
    expect(events.map((e) => e.kind)).toEqual(['data', 'data', 'data']);
    expect(events.map((e) => (e as { data: { seq: number } }).data.seq)).toEqual([0, 1, 2]);
    expect(server.activeSubscriptions).toBe(0);
  });
});
