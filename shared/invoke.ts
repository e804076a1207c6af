import { z } from 'zod';
import { AppErrorShape } from './errors';
import { InvocationOutcome, InvocationProgress } from './registry';

/** What a streaming invocation yields: progress while it runs, then exactly one outcome. */
export const InvokeEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), at: z.number() }),
  InvocationProgress.extend({ type: z.literal('progress'), at: z.number() }),
  z.object({ type: z.literal('outcome'), outcome: InvocationOutcome }),
  z.object({ type: z.literal('failed'), error: AppErrorShape }),
]);
export type InvokeEvent = z.infer<typeof InvokeEvent>;
