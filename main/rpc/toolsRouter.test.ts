import { describe, expect, it } from 'vitest';
import { agentCaller, operatorCaller } from '../../shared/caller';
import type { InvocationRequest } from '../registry/InvocationPipeline';
import { toolsRouter } from './toolsRouter';
import { createCallerFactory } from './trpc';

/** A core with only the pipeline's invoke, which keeps the requests it is handed. */
function coreKeepingRequests() {
  const requests: InvocationRequest[] = [];
  const core = {
    pipeline: {
      invoke: (request: InvocationRequest) => {
        requests.push(request);
        return Promise.resolve({ record: {}, truncated: false });
      },
    },
  };
  return { core: core as never, requests };
}

describe('tools.invoke', () => {
  it('hands the pipeline the host’s caller, never one the request claims, and puts a run id the request names on it', async () => {
    const { core, requests } = coreKeepingRequests();
    const rpc = createCallerFactory(toolsRouter)({ core, fromBrowser: true, caller: operatorCaller('ui') });
    await rpc.invoke({ name: 'mcp:everything.echo', arguments: {}, caller: agentCaller('planner-bot', 'gateway') } as never);
    await rpc.invoke({ name: 'mcp:everything.echo', arguments: {}, runId: 'run-1' });
    expect(requests.map((r) => r.caller)).toEqual([
      { who: 'operator', via: 'ui' },
      { who: 'operator', via: 'ui', runId: 'run-1' },
    ]);
    expect(requests[1]).not.toHaveProperty('runId');
  });
});

describe('tools.invokeStream', () => {
  it('yields started, the call’s progress and task updates as they come, then exactly one outcome', async () => {
    const core = {
      pipeline: {
        invoke: async (request: InvocationRequest) => {
          request.onProgress?.({ progress: 1, total: 2, message: 'half' });
          request.onTask?.({ taskId: 't1', status: 'working', source: 'created', at: 5 } as never);
          return { record: { id: 'r1' }, truncated: false };
        },
      },
    };
    const rpc = createCallerFactory(toolsRouter)({ core: core as never, caller: operatorCaller('ui') });
    const events = [];
    for await (const event of await rpc.invokeStream({ name: 'mcp:everything.echo', arguments: {} })) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['started', 'progress', 'task', 'outcome']);
    expect(events[1]).toMatchObject({ progress: 1, total: 2, message: 'half' });
    expect(events[3]).toMatchObject({ outcome: { record: { id: 'r1' } } });
  });

  it('ends with a failed event carrying the classified error when the pipeline throws', async () => {
    const core = { pipeline: { invoke: () => Promise.reject(new Error('the transport broke')) } };
    const rpc = createCallerFactory(toolsRouter)({ core: core as never, caller: operatorCaller('ui') });
    const events = [];
    for await (const event of await rpc.invokeStream({ name: 'mcp:everything.echo', arguments: {} })) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['started', 'failed']);
    expect(events[1]).toMatchObject({ error: { message: expect.stringContaining('the transport broke') } });
  });

  it('cancels the call (its signal aborts) when the subscriber stops reading', async () => {
    let callSignal: AbortSignal | undefined;
    const core = {
      pipeline: {
        invoke: (request: InvocationRequest) =>
          new Promise((resolve) => {
            callSignal = request.signal;
            request.onProgress?.({ progress: 1 });
            request.signal?.addEventListener('abort', () => resolve({ record: {}, truncated: false }), { once: true });
          }),
      },
    };
    const rpc = createCallerFactory(toolsRouter)({ core: core as never, caller: operatorCaller('ui') });
    for await (const event of await rpc.invokeStream({ name: 'mcp:everything.echo', arguments: {} })) {
      if (event.type === 'progress') break;
    }
    await expect.poll(() => callSignal?.aborted).toBe(true);
  });
});
