import { useCallback, useEffect, useRef, useState } from 'react';
import type { LoadOptionsInput } from '../../../../../shared/loadRuns';
import { useTRPCClient } from '../../../rpc/client';
import { appErrorOf } from '../../../rpc/appError';
import { applyLoadEvent, IDLE_LOAD, type LoadProgress } from './loadProgress';

/** One load run of a saved collection at a time; leaving the view unsubscribes, which stops the run at the server (its summary is still kept in history). */
export function useLoadRun(name: string) {
  const client = useTRPCClient();
  const [progress, setProgress] = useState<LoadProgress>(IDLE_LOAD);
  const subscription = useRef<{ unsubscribe(): void } | null>(null);

  const unsubscribe = useCallback(() => {
    subscription.current?.unsubscribe();
    subscription.current = null;
  }, []);

  useEffect(() => unsubscribe, [unsubscribe]);

  const start = useCallback(
    (options: LoadOptionsInput) => {
      unsubscribe();
      setProgress({ phase: 'preparing', ticks: [] });
      subscription.current = client.collections.load.subscribe(
        { name, ...options },
        {
          onData(event) {
            setProgress((current) => applyLoadEvent(current, event));
            if (event.type === 'load-finished') unsubscribe();
          },
          onError(error) {
            subscription.current = null;
            setProgress((current) => ({ ...current, phase: 'failed', error: appErrorOf(error) }));
          },
        },
      );
    },
    [client, name, unsubscribe],
  );

  /** Asks the server to stop; the subscription then delivers the summary of what ran. */
  const stop = useCallback(() => {
    const runId = progress.runId;
    if (runId) void client.collections.stopLoad.mutate({ runId });
    else unsubscribe();
  }, [client, progress.runId, unsubscribe]);

  return { progress, start, stop };
}
