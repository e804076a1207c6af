import { appErrorOf } from '../../rpc/appError';
import { useTRPCClient } from '../../rpc/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AppErrorShape } from '../../../../shared/errors';
import type { InvocationOutcome, InvocationProgress, InvokeRequest } from '../../../../shared/registry';
import type { RunningTask } from './RunStatus';

export type InvocationState =
  | { phase: 'idle' }
  | { phase: 'running'; startedAt: number; progress?: InvocationProgress; task?: RunningTask }
  | { phase: 'done'; outcome: InvocationOutcome }
  | { phase: 'failed'; error: AppErrorShape }
  | { phase: 'canceled'; elapsedMs: number };

/**
 * One streaming call at a time through `tools.invokeStream`. Cancelling unsubscribes, which aborts
 * the procedure's signal and so cancels the call at the server (MCP notifications/cancelled).
 */
export function useInvocation() {
  const client = useTRPCClient();
  const [state, setState] = useState<InvocationState>({ phase: 'idle' });
  const subscription = useRef<{ unsubscribe(): void } | null>(null);
  const startedAt = useRef(0);

  const stop = () => {
    subscription.current?.unsubscribe();
    subscription.current = null;
  };

  const start = useCallback(
    (request: InvokeRequest) => {
      if (subscription.current) return;
      startedAt.current = Date.now();
      setState({ phase: 'running', startedAt: startedAt.current });
      let settled = false;
      const settle = (next: InvocationState) => {
        if (settled) return;
        settled = true;
        subscription.current = null;
        setState(next);
      };
      subscription.current = client.tools.invokeStream.subscribe(request, {
        onData(event) {
          if (event.type === 'progress') {
            const { progress, total, message } = event;
            setState((prev) => (prev.phase === 'running' ? { ...prev, progress: { progress, total, message } } : prev));
          } else if (event.type === 'task') {
            const { type: _type, taskId, ...update } = event;
            setState((prev) =>
              prev.phase === 'running' ? { ...prev, task: { taskId, events: [...(prev.task?.taskId === taskId ? prev.task.events : []), update] } } : prev,
            );
          } else if (event.type === 'outcome') settle({ phase: 'done', outcome: event.outcome });
          else if (event.type === 'failed') settle({ phase: 'failed', error: event.error });
        },
        onError(error) {
          settle({ phase: 'failed', error: appErrorOf(error) });
        },
        onComplete() {
          settle({ phase: 'failed', error: { code: 'Internal', message: 'The call ended without a result.', retryable: true } });
        },
      });
    },
    [client],
  );

  const cancel = useCallback(() => {
    if (!subscription.current) return;
    stop();
    setState({ phase: 'canceled', elapsedMs: Date.now() - startedAt.current });
  }, []);

  useEffect(() => stop, []);

  return { state, start, cancel };
}
