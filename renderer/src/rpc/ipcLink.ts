import { TRPCClientError, type TRPCLink } from '@trpc/client';
import { observable } from '@trpc/server/observable';
import type { AppRouter } from '../../../main/rpc/router';
import type { TooldeckBridge } from './bridge';

/** tRPC link over the Electron preload bridge: calls via invoke, subscriptions via events. */
export function ipcLink(bridge: TooldeckBridge): TRPCLink<AppRouter> {
  return () =>
    ({ op }) =>
      observable((observer) => {
        if (op.type === 'subscription') {
          return bridge.subscribe(op.path, op.input, (event) => {
            if (event.kind === 'data') observer.next({ result: { type: 'data', data: event.data } });
            else if (event.kind === 'error') observer.error(TRPCClientError.from({ error: event.error } as never));
            else observer.complete();
          });
        }
        let cancelled = false;
        bridge
          .call({ type: op.type, path: op.path, input: op.input })
          .then((result) => {
            if (cancelled) return;
            if (result.ok) {
              observer.next({ result: { type: 'data', data: result.data } });
              observer.complete();
            } else {
              observer.error(TRPCClientError.from({ error: result.error } as never));
            }
          })
          .catch((error: unknown) => observer.error(TRPCClientError.from(error as Error)));
        return () => {
          cancelled = true;
        };
      });
}
