import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { LockStatus, SourceReview } from '../../../../shared/lock';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';

/** The lockfile's view of every source, pushed again whenever the lock or any source's definitions change. */
export function useLockStatus(): { status: LockStatus | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.lock.watch.subscriptionOptions());
  return { status: sub.data as LockStatus | undefined, error: sub.error?.message };
}

export function useSourceReview(source: string): SourceReview | undefined {
  return useLockStatus().status?.sources.find((candidate) => candidate.source === source);
}

/** Approve and reject, with a notification either way; history and diffs are refetched after. */
export function useLockDecisions() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.lock.pathKey() });
  const onError = (error: unknown) => notifications.show({ color: 'red', title: 'tooldeck.lock not changed', message: appErrorOf(error).message });
  const approve = useMutation(
    trpc.lock.approve.mutationOptions({
      onSuccess: (review, input) => {
        refresh();
        notifications.show({ color: 'teal', title: `Approved in tooldeck.lock`, message: `${input.tools?.length ? input.tools.join(', ') : 'every tool'} of ${review.source}` });
      },
      onError,
    }),
  );
  const reject = useMutation(
    trpc.lock.reject.mutationOptions({
      onSuccess: (review, input) => {
        refresh();
        notifications.show({ color: 'orange', title: `Rejected in tooldeck.lock`, message: `${input.tools?.length ? input.tools.join(', ') : 'every held tool'} of ${review.source}: denied until approved` });
      },
      onError,
    }),
  );
  return { approve, reject };
}
