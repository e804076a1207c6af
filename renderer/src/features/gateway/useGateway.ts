import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { GatewayAgentOverview, GatewayCallView, GatewaySessionView, GatewayStatus } from '../../../../shared/gateway';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC } from '../../rpc/client';

export interface GatewayOverview {
  status: GatewayStatus;
  agents: GatewayAgentOverview[];
}

export interface GatewayTrafficView {
  sessions: GatewaySessionView[];
  calls: GatewayCallView[];
}

/** The gateway's state and its agents, pushed again when either changes (here, from the CLI, or by a grant). */
export function useGatewayOverview(): { overview: GatewayOverview | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.gateway.watch.subscriptionOptions());
  return { overview: sub.data as GatewayOverview | undefined, error: sub.error?.message };
}

/** The agents' sessions and calls as they happen. */
export function useGatewayTraffic(): { traffic: GatewayTrafficView | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.gateway.watchTraffic.subscriptionOptions());
  return { traffic: sub.data as GatewayTrafficView | undefined, error: sub.error?.message };
}

/** Start, stop and revoke; failures show as a notification. The views update through the subscriptions. */
export function useGatewayActions() {
  const trpc = useTRPC();
  const onError = (title: string) => (error: unknown) => notifications.show({ color: 'red', title, message: appErrorOf(error).message });
  const start = useMutation(trpc.gateway.start.mutationOptions({ onError: onError('The gateway did not start') }));
  const stop = useMutation(trpc.gateway.stop.mutationOptions({ onError: onError('The gateway did not stop') }));
  const revoke = useMutation(
    trpc.gateway.revoke.mutationOptions({
      onSuccess: (_result, input) => notifications.show({ color: 'orange', title: `Revoked ${input.name}`, message: 'Its credential opens nothing from now on; its open sessions have ended.' }),
      onError: onError('Not revoked'),
    }),
  );
  return { start, stop, revoke };
}
