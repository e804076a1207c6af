import { afterEach, describe, expect, it } from 'vitest';
import { InvocationStore } from './InvocationStore';
import { invocation } from './testing/testRecords';

const open: InvocationStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});

function memoryStore(): InvocationStore {
  const store = new InvocationStore(':memory:', { retention: false });
  open.push(store);
  return store;
}

describe('InvocationStore.setTaskStatus', () => {
  it('gives a detached task’s record its final status, and only that record', () => {
    const store = memoryStore();
    // A detached call is recorded while its task still works; task ids are the server's, so the
    // same id may turn up on another server or from another kind of source.
    store.record(invocation({ id: 'detached', sourceName: 'everything', tool: 'simulate-research-query', taskId: 'task-1', taskStatus: 'working' }));
    store.record(invocation({ id: 'other-server', sourceName: 'git', taskId: 'task-1', taskStatus: 'working' }));
    store.record(invocation({ id: 'a2a-same-name', sourceKind: 'a2a', sourceName: 'everything', taskId: 'task-1', taskStatus: 'working' }));
    store.record(invocation({ id: 'other-task', sourceName: 'everything', taskId: 'task-2', taskStatus: 'working' }));

    // Straight after record(), before any read: the batched writes must land first, or the update
    // would find no row and the final status would be lost.
    store.setTaskStatus('everything', 'task-1', 'completed');

    expect(store.get('detached')).toMatchObject({ taskId: 'task-1', taskStatus: 'completed', status: 'ok' });
    expect(store.get('other-server')?.taskStatus).toBe('working');
    expect(store.get('a2a-same-name')?.taskStatus).toBe('working');
    expect(store.get('other-task')?.taskStatus).toBe('working');
    // History's task filter finds it with the new status.
    expect(store.list({ taskId: 'task-1', sourceName: 'everything', sourceKind: 'mcp' }).items.map((r) => [r.id, r.taskStatus])).toEqual([['detached', 'completed']]);
  });

  it('changes nothing else of the record, and a later final status replaces an earlier one', () => {
    const store = memoryStore();
    const recorded = invocation({ id: 'detached', sourceName: 'everything', taskId: 'task-1', taskStatus: 'working', latencyMs: 40, resultPreview: 'task task-1 started' });
    store.record(recorded);
    store.setTaskStatus('everything', 'task-1', 'input_required');
    store.setTaskStatus('everything', 'task-1', 'cancelled');
    expect(store.get('detached')).toEqual({ ...recorded, taskStatus: 'cancelled' });
  });

  it('is a no-op for an unknown task and after the store closed', async () => {
    const store = memoryStore();
    store.record(invocation({ id: 'detached', taskId: 'task-1', taskStatus: 'working' }));
    store.setTaskStatus('everything', 'no-such-task', 'failed');
    expect(store.get('detached')?.taskStatus).toBe('working');
    await store.close();
    // The ledger may settle a task while the console shuts down: that must not throw.
    expect(() => store.setTaskStatus('everything', 'task-1', 'failed')).not.toThrow();
  });
});
