import { useSubscription } from '@trpc/tanstack-react-query';
import { useTRPC } from '../../rpc/client';
import type { ToolView } from '../invoke/types';

/** Every registry entry with its policy verdict, pushed again whenever the catalog changes. */
export function useTools(): { tools: ToolView[] | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.tools.watch.subscriptionOptions());
  return { tools: sub.data as ToolView[] | undefined, error: sub.error?.message };
}
