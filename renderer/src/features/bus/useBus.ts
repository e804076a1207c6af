import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
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
