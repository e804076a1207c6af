import { useCallback, useEffect, useRef, useState } from 'react';
import type { RunOptionsInput } from '../../../../shared/collections';
import { useTRPCClient } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { applyRunEvent, IDLE_RUN, type RunProgress } from './runProgress';

/** One run of a saved collection at a time; stopping unsubscribes, which cancels the run at the server. */
export function useCollectionRun(name: string) {
  const client = useTRPCClient();
  const [progress, setProgress] = useState<RunProgress>(IDLE_RUN);
  const subscription = useRef<{ unsubscribe(): void } | null>(null);

  const stop = useCallback(() => {
    subscription.current?.unsubscribe();
    subscription.current = null;
  }, []);

  useEffect(() => stop, [stop]);

  const start = useCallback(
    (options: RunOptionsInput) => {
      stop();
      setProgress({ phase: 'running', rows: [] });
      subscription.current = client.collections.run.subscribe(
        { name, ...options },
        {
          onData(event) {
            setProgress((current) => applyRunEvent(current, event));
            if (event.type === 'run-finished') stop();
          },
          onError(error) {
            subscription.current = null;
            setProgress((current) => ({ ...current, phase: 'failed', error: appErrorOf(error) }));
          },
        },
      );
    },
    [client, name, stop],
  );

  const cancel = useCallback(() => {
    stop();
    setProgress((current) => ({
      ...current,
      phase: 'failed',
      rows: current.rows.map((row) => (row.state === 'pending' || row.state === 'running' ? { ...row, state: 'skipped' } : row)),
      error: { code: 'Canceled', message: 'The run was stopped; requests not finished were canceled.', retryable: true },
    }));
  }, [stop]);

  return { progress, start, cancel };
}
