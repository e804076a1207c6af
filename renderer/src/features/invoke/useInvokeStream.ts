import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AppErrorShape } from '../../../../shared/errors';
import type { InvocationOutcome, InvokeEvent, InvokeRequest } from '../../../../shared/registry';
import { appErrorOf } from '../../rpc/appError';
import { useTRPCClient } from '../../rpc/client';

/** The events a view folds while the call runs (everything but its start and its end). */
export type InvokeStreamUpdate = Extract<InvokeEvent, { type: 'progress' | 'task' }>;

/** How a view turns a running call's updates into what it shows (for the invoke panel: the last progress and the task). */
export interface InvokeStreamFold<Running> {
  initial(): Running;
  step(running: Running, update: InvokeStreamUpdate): Running;
}

/** A streaming call's state; `running` (what the updates folded into) stays after the call ends. */
export type InvokeStreamState<Running> =
  | { phase: 'idle' }
  | { phase: 'running'; startedAt: number; running: Running }
  | { phase: 'done'; outcome: InvocationOutcome; running: Running }
  | { phase: 'failed'; error: AppErrorShape; running: Running }
  | { phase: 'canceled'; elapsedMs: number; running: Running };

const endedWithoutResult: AppErrorShape = { code: 'Internal', message: 'The call ended without a result.', retryable: true };

/**
 * One streaming call at a time through `tools.invokeStream`, the one home for what every view that
 * calls a tool with live progress needs: the call ends exactly once (outcome, failure, a stream that
 * closed without a result, or cancel), and cancelling — or leaving the view — unsubscribes, which
 * aborts the procedure's signal and so cancels the call at the server (MCP
 * notifications/cancelled, the gRPC call's cancel).
 *
 * `fold` says what the view keeps of the updates; pass a module-level constant.
 */
export function useInvokeStream<Running>(fold: InvokeStreamFold<Running>) {
  const client = useTRPCClient();
  const [state, setState] = useState<InvokeStreamState<Running>>({ phase: 'idle' });
  const subscription = useRef<{ unsubscribe(): void } | null>(null);
  const running = useRef<Running>(fold.initial());
  const startedAt = useRef(0);
  const folding = useRef(fold);
  folding.current = fold;

  const start = useCallback(
    (request: InvokeRequest) => {
      if (subscription.current) return;
      running.current = folding.current.initial();
      startedAt.current = Date.now();
      setState({ phase: 'running', startedAt: startedAt.current, running: running.current });
      let settled = false;
      const settle = (next: InvokeStreamState<Running>) => {
        if (settled) return;
        settled = true;
        subscription.current = null;
        setState(next);
      };
      subscription.current = client.tools.invokeStream.subscribe(request, {
        onData(event) {
          if (settled) return;
          if (event.type === 'progress' || event.type === 'task') {
            const next = folding.current.step(running.current, event);
            running.current = next;
            setState((prev) => (prev.phase === 'running' ? { ...prev, running: next } : prev));
          } else if (event.type === 'outcome') settle({ phase: 'done', outcome: event.outcome, running: running.current });
          else if (event.type === 'failed') settle({ phase: 'failed', error: event.error, running: running.current });
        },
        onError: (error) => settle({ phase: 'failed', error: appErrorOf(error), running: running.current }),
        onComplete: () => settle({ phase: 'failed', error: endedWithoutResult, running: running.current }),
      });
    },
    [client],
  );

  const cancel = useCallback(() => {
    if (!subscription.current) return;
    subscription.current.unsubscribe();
    subscription.current = null;
    setState({ phase: 'canceled', elapsedMs: Date.now() - startedAt.current, running: running.current });
  }, []);

  useEffect(
    () => () => {
      subscription.current?.unsubscribe();
      subscription.current = null;
    },
    [],
  );

  return { state, start, cancel };
}

/** A view's own state shape made from the stream's, recomputed only when the stream's changes. */
export function useInvokeStreamAs<Running, View>(fold: InvokeStreamFold<Running>, view: (state: InvokeStreamState<Running>) => View) {
  const { state, start, cancel } = useInvokeStream(fold);
  // `view` is a module-level function, so the state alone decides when this recomputes.
  const shown = useMemo(() => view(state), [state, view]);
  return { state: shown, start, cancel };
}
