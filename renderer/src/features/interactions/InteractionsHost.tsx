import { useSubscription } from '@trpc/tanstack-react-query';
import { lazy, Suspense } from 'react';
import { useTRPC } from '../../rpc/client';

// The dialog brings the schema form (rjsf, ajv): fetched when a server first asks for something,
// not with the console's first view.
const InteractionDialog = lazy(() => import('./InteractionDialog').then((m) => ({ default: m.InteractionDialog })));

/** Requests servers send to the operator (elicitation, sampling). Mounted once in the app shell. */
export function InteractionsHost() {
  const trpc = useTRPC();
  const pending = useSubscription(trpc.mcp.pendingInteractions.subscriptionOptions());
  if (!pending.data?.length) return null;
  return (
    <Suspense fallback={null}>
      <InteractionDialog pending={pending.data} />
    </Suspense>
  );
}
