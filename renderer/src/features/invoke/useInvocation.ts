import type { AppErrorShape } from '../../../../shared/errors';
import type { InvocationOutcome, InvocationProgress } from '../../../../shared/registry';
import type { RunningTask } from './RunStatus';
import { useInvokeStreamAs, type InvokeStreamFold, type InvokeStreamState } from './useInvokeStream';

export type InvocationState =
  | { phase: 'idle' }
  | { phase: 'running'; startedAt: number; progress?: InvocationProgress; task?: RunningTask }
  | { phase: 'done'; outcome: InvocationOutcome }
  | { phase: 'failed'; error: AppErrorShape }
  | { phase: 'canceled'; elapsedMs: number };

interface RunningCall {
  progress?: InvocationProgress;
  task?: RunningTask;
}

/** The invoke panel shows the last progress and the task's events (of the task the call runs as). */
const lastProgressAndTask: InvokeStreamFold<RunningCall> = {
  initial: () => ({}),
  step(running, update) {
    if (update.type === 'progress') {
      const { progress, total, message } = update;
      return { ...running, progress: { progress, total, message } };
    }
    const { type: _type, taskId, ...event } = update;
    return { ...running, task: { taskId, events: [...(running.task?.taskId === taskId ? running.task.events : []), event] } };
  },
};

function invocationState(state: InvokeStreamState<RunningCall>): InvocationState {
  switch (state.phase) {
    case 'idle':
      return state;
    case 'running':
      return { phase: 'running', startedAt: state.startedAt, ...state.running };
    case 'done':
      return { phase: 'done', outcome: state.outcome };
    case 'failed':
      return { phase: 'failed', error: state.error };
    case 'canceled':
      return { phase: 'canceled', elapsedMs: state.elapsedMs };
  }
}

/** One streaming call at a time for the invoke panel (useInvokeStream, showing progress and task status). */
export function useInvocation() {
  return useInvokeStreamAs(lastProgressAndTask, invocationState);
}
