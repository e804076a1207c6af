import { useCallback, useEffect, useRef, useState } from 'react';
import type { AppErrorShape } from '../../../../shared/errors';
import type { GrpcCallResult } from '../../../../shared/grpc';
import type { InvocationOutcome, InvokeRequest } from '../../../../shared/registry';
import { useTRPCClient } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';

export type GrpcCallState =
  | { phase: 'idle' }
  | { phase: 'running'; startedAt: number; messages: unknown[] }
  | { phase: 'done'; outcome: InvocationOutcome; call?: GrpcCallResult; messages: unknown[] }
  | { phase: 'failed'; error: AppErrorShape; messages: unknown[] }
  | { phase: 'canceled'; elapsedMs: number; messages: unknown[] };

/**
 * One call of a reflected method through the pipeline (`tools.invokeStream`): streamed responses
 * arrive as progress and are kept in order as they come; cancelling unsubscribes, which cancels the
 * gRPC call at the server.
 */
export function useGrpcCall() {
  const client = useTRPCClient();
  const [state, setState] = useState<GrpcCallState>({ phase: 'idle' });
  const subscription = useRef<{ unsubscribe(): void } | null>(null);
  const messages = useRef<unknown[]>([]);
  const startedAt = useRef(0);

  const start = useCallback(
    (request: InvokeRequest) => {
      if (subscription.current) return;
      messages.current = [];
      startedAt.current = Date.now();
      setState({ phase: 'running', startedAt: startedAt.current, messages: [] });
      let settled = false;
      const settle = (next: GrpcCallState) => {
        if (settled) return;
        settled = true;
        subscription.current = null;
        setState(next);
      };
      subscription.current = client.tools.invokeStream.subscribe(request, {
        onData(event) {
          if (event.type === 'progress' && event.message !== undefined) {
            try {
              messages.current = [...messages.current, JSON.parse(event.message)];
            } catch {
              messages.current = [...messages.current, event.message];
            }
            const list = messages.current;
            setState((prev) => (prev.phase === 'running' ? { ...prev, messages: list } : prev));
          } else if (event.type === 'outcome') {
            const call = event.outcome.result?.structuredContent as GrpcCallResult | undefined;
            if (event.outcome.error) settle({ phase: 'failed', error: event.outcome.error, messages: messages.current });
            else settle({ phase: 'done', outcome: event.outcome, ...(call ? { call } : {}), messages: call?.responses ?? messages.current });
          } else if (event.type === 'failed') settle({ phase: 'failed', error: event.error, messages: messages.current });
        },
        onError: (error) => settle({ phase: 'failed', error: appErrorOf(error), messages: messages.current }),
        onComplete: () => settle({ phase: 'failed', error: { code: 'Internal', message: 'The call ended without a result.', retryable: true }, messages: messages.current }),
      });
    },
    [client],
  );

  const cancel = useCallback(() => {
    if (!subscription.current) return;
    subscription.current.unsubscribe();
    subscription.current = null;
    setState({ phase: 'canceled', elapsedMs: Date.now() - startedAt.current, messages: messages.current });
  }, []);

  useEffect(() => () => subscription.current?.unsubscribe(), []);

  return { state, start, cancel };
}
