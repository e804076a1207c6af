import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { createCallerFactory, procedure, router } from './trpc';

const testRouter = router({
  failingQuery: procedure.query(() => {
    throw new AppError('ConnectionFailed', 'agent unreachable');
  }),
  failingStream: procedure.input(z.object({ after: z.number() })).subscription(async function* ({ input }) {
    for (let i = 0; i < input.after; i++) yield i;
    throw new AppError('ExecutionFailed', 'the turn failed');
  }),
});
const caller = createCallerFactory(testRouter)({ core: undefined as never });

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
});
