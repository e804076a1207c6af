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
