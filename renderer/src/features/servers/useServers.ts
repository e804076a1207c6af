import { useSubscription } from '@trpc/tanstack-react-query';
import type { ServerSnapshot } from '../../../../shared/mcp';
import { useTRPC } from '../../rpc/client';

/** The live server list: the backend pushes a fresh snapshot after every change. */
export function useServers(): { servers: ServerSnapshot[] | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.mcp.watch.subscriptionOptions());
  return { servers: sub.data as ServerSnapshot[] | undefined, error: sub.error?.message };
}
