import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createClients, TRPCProvider } from './rpc/client';
import { ApprovalsProvider } from './features/approvals/useApprovals';
import { InteractionsHost } from './features/interactions/InteractionsHost';
import { AppLayout } from './shell/AppLayout';
import { CommandPalette } from './shell/CommandPalette';
import { NavigationProvider } from './shell/useSection';

export function App({ token }: { token?: string }) {
  const [{ kind, trpcClient, queryClient }] = useState(() => createClients(token));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <NavigationProvider>
          <ApprovalsProvider>
            <AppLayout linkKind={kind} />
          </ApprovalsProvider>
          <InteractionsHost />
          <CommandPalette />
        </NavigationProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
