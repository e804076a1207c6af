import { z } from 'zod';
import { AppErrorShape } from './errors';
import { InvocationOutcome, InvocationProgress } from './registry';
import { TaskEvent } from './tasks';

/** What a streaming invocation yields: progress (and task status) while it runs, then exactly one outcome. */
export const InvokeEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), at: z.number() }),
  InvocationProgress.extend({ type: z.literal('progress'), at: z.number() }),
  /** A task-augmented call: the task was created, or its status changed. */
  TaskEvent.extend({ type: z.literal('task'), taskId: z.string() }),
  z.object({ type: z.literal('outcome'), outcome: InvocationOutcome }),
  z.object({ type: z.literal('failed'), error: AppErrorShape }),
]);
export type InvokeEvent = z.infer<typeof InvokeEvent>;
