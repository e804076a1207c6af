import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createClients, TRPCProvider } from './rpc/client';
import { AppLayout } from './shell/AppLayout';

export function App() {
  const [{ kind, trpcClient, queryClient }] = useState(createClients);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <AppLayout linkKind={kind} />
      </TRPCProvider>
    </QueryClientProvider>
  );
}
