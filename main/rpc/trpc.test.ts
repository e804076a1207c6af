import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { createCallerFactory, procedure, router } from './trpc';
import { operatorCaller } from '../../shared/caller';

const testRouter = router({
  failingQuery: procedure.query(() => {
    throw new AppError('ConnectionFailed', 'agent unreachable');
  }),
  withInput: procedure.input(z.object({ url: z.url({ protocol: /^https?$/ }), timeoutMs: z.number().int().positive() })).query(({ input }) => input.timeoutMs),
  failingStream: procedure.input(z.object({ after: z.number() })).subscription(async function* ({ input }) {
    for (let i = 0; i < input.after; i++) yield i;
    throw new AppError('ExecutionFailed', 'the turn failed');
  }),
});
const caller = createCallerFactory(testRouter)({ core: undefined as never, caller: operatorCaller('ui') });

describe('errors across the contract', () => {
  it('maps an AppError to its tRPC code, keeping the message', async () => {
    await expect(caller.failingQuery()).rejects.toMatchObject({ code: 'BAD_GATEWAY', message: 'agent unreachable' });
  });

  it('ends a subscription with a code the HTTP link does not reconnect on, so the call is not re-sent', async () => {
    const seen: number[] = [];
    const iterate = async () => {
      for await (const value of await caller.failingStream({ after: 2 })) seen.push(value);
    };
    await expect(iterate()).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: 'the turn failed' });
    expect(seen).toEqual([0, 1]);
  });

  it('answers input that fails its schema with one readable line over HTTP, not the JSON dump of zod issues', async () => {
    const input = encodeURIComponent(JSON.stringify({ url: 'not a url', timeoutMs: -5 }));
    const response = await fetchRequestHandler({
      endpoint: '/trpc',
      req: new Request(`http://127.0.0.1/trpc/withInput?input=${input}`),
      router: testRouter,
      createContext: () => ({ core: undefined as never, caller: operatorCaller('ui') }),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; data: { app: { code: string; message: string } } } };
    expect(error.message).toBe('url: Invalid URL; timeoutMs: Too small: expected number to be >0');
    expect(error.data.app).toMatchObject({ code: 'InvalidInput', message: error.message });
  });
});
