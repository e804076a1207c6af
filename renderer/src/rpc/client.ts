import { QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchStreamLink, httpSubscriptionLink, splitLink, type TRPCLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { AppRouter } from '../../../main/rpc/router';
import { getBridge } from './bridge';
import { ipcLink } from './ipcLink';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export type LinkKind = 'ipc' | 'http';

/** IPC when the Electron bridge is present; otherwise HTTP for calls and SSE for subscriptions. */
export function createLinks(): { kind: LinkKind; links: TRPCLink<AppRouter>[] } {
  const bridge = getBridge();
  if (bridge) return { kind: 'ipc', links: [ipcLink(bridge)] };
  return {
    kind: 'http',
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url: '/trpc' }),
        // Streamed batches: one slow query (an agent card probe) does not hold back the others.
        false: httpBatchStreamLink({ url: '/trpc' }),
      }),
    ],
  };
}

export function createClients() {
  const { kind, links } = createLinks();
  const trpcClient = createTRPCClient<AppRouter>({ links });
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 } },
  });
  return { kind, trpcClient, queryClient };
}
