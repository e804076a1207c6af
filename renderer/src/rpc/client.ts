import { QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchStreamLink, httpLink, httpSubscriptionLink, splitLink, type TRPCLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { EventSource } from 'eventsource';
import type { AppRouter } from '../../../main/rpc/router';
import { getBridge } from './bridge';
import { ipcLink } from './ipcLink';
import { authorizationHeader } from './session';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export type LinkKind = 'ipc' | 'http';

/**
 * IPC when the Electron bridge is present; otherwise HTTP for calls and SSE for subscriptions, each
 * request carrying the console token as a header. The browser's own EventSource cannot send
 * headers, so subscriptions use a fetch-based one.
 */
export function createLinks(token?: string): { kind: LinkKind; links: TRPCLink<AppRouter>[] } {
  const bridge = getBridge();
  if (bridge) return { kind: 'ipc', links: [ipcLink(bridge)] };
  const headers = token ? authorizationHeader(token) : {};
  return {
    kind: 'http',
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url: '/trpc',
          EventSource,
          eventSourceOptions: {
            fetch: (input, init) => fetch(input, { ...init, credentials: 'omit', headers: { ...init?.headers, ...headers } }),
          },
        }),
        false: splitLink({
          condition: (op) => op.type === 'mutation',
          // A mutation is a click: its request leaves at once, not after the batch's timer (which
          // waits for the render the click caused), and it is never held back by queries.
          true: httpLink({ url: '/trpc', headers, fetch: (input, init) => fetch(input, { ...init, credentials: 'omit' }) }),
          // Streamed batches: one slow query (an agent card probe) does not hold back the others.
          false: httpBatchStreamLink({ url: '/trpc', headers, fetch: (input, init) => fetch(input, { ...init, credentials: 'omit' }) }),
        }),
      }),
    ],
  };
}

export function createClients(token?: string) {
  const { kind, links } = createLinks(token);
  const trpcClient = createTRPCClient<AppRouter>({ links });
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 } },
  });
  return { kind, trpcClient, queryClient };
}
