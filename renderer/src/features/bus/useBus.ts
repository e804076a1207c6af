import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { BusOverview } from '../../../../shared/bus';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC } from '../../rpc/client';

/** The bridge's state and traffic, pushed again as they change. */
export function useBusOverview(): { overview: BusOverview | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.bus.watch.subscriptionOptions());
  return { overview: sub.data as BusOverview | undefined, error: sub.error?.message };
}

/** Start and stop; failures show as a notification. The view updates through the subscription. */
export function useBusActions() {
  const trpc = useTRPC();
  const onError = (title: string) => (error: unknown) => notifications.show({ color: 'red', title, message: appErrorOf(error).message });
  const start = useMutation(trpc.bus.start.mutationOptions({ onError: onError('The bus bridge did not start') }));
  const stop = useMutation(trpc.bus.stop.mutationOptions({ onError: onError('The bus bridge did not stop') }));
  return { start, stop };
}

/** The bridge's dead letters, read on demand, and what can be done with them. */
export function useBusDeadLetters(enabled: boolean) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const letters = useQuery({ ...trpc.bus.deadLetters.queryOptions(), enabled });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.bus.deadLetters.queryKey() });
  const onError = (title: string) => (error: unknown) => notifications.show({ color: 'red', title, message: appErrorOf(error).message });
  const replay = useMutation(
    trpc.bus.replayDeadLetters.mutationOptions({
      onSuccess: ({ replayed }) => notifications.show({ title: `Replayed ${replayed} request${replayed === 1 ? '' : 's'}`, message: 'Published again on their topic; the bridge answers them as new.' }),
      onError: onError('Not replayed'),
      onSettled: refresh,
    }),
  );
  const purge = useMutation(
    trpc.bus.purgeDeadLetters.mutationOptions({
      onSuccess: ({ purged }) => notifications.show({ color: 'orange', title: `Purged ${purged} dead letter${purged === 1 ? '' : 's'}`, message: 'They are gone for good.' }),
      onError: onError('Not purged'),
      onSettled: refresh,
    }),
  );
  return { letters, refresh, replay, purge };
}
