import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { ResourceStatuses } from '../../../../shared/resources/statuses';
import type { WorkspaceEvent, WorkspaceListing } from '../../../../shared/resources/workspace';
import { useTRPC } from '../../rpc/client';

export interface WorkspaceState {
  listing: WorkspaceListing | undefined;
  statuses: ResourceStatuses | undefined;
  error: string | undefined;
}

/** The workspace files and the local statuses, kept current by the watch subscription. */
export function useWorkspace(): WorkspaceState {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const files = useQuery(trpc.resources.files.queryOptions());
  const statuses = useQuery(trpc.resources.statuses.queryOptions());
  const sub = useSubscription(
    trpc.resources.watch.subscriptionOptions(undefined, {
      onData: (data) => {
        const event = data as WorkspaceEvent;
        queryClient.setQueryData(trpc.resources.files.queryKey(), { dir: event.dir, files: event.files });
        queryClient.setQueryData(trpc.resources.statuses.queryKey(), event.statuses);
        for (const path of event.changed) void queryClient.invalidateQueries({ queryKey: trpc.resources.read.queryKey({ path }) });
      },
    }),
  );
  return {
    listing: files.data,
    statuses: statuses.data,
    error: files.error?.message ?? statuses.error?.message ?? sub.error?.message,
  };
}
