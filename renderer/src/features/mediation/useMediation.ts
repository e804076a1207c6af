import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { MediatedTurn, ModelProviderView } from '../../../../shared/mediation';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC } from '../../rpc/client';

/** The model providers mediation forwards to (never their keys). */
export function useProviders(): { providers: ModelProviderView[] | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const query = useQuery(trpc.mediation.providers.queryOptions());
  return { providers: query.data, error: query.error?.message };
}

/** Every agent's mediated turns, newest first, pushed again as each turn ends. */
export function useMediatedTurns(): { turns: MediatedTurn[] | undefined; error: string | undefined } {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.mediation.watchTurns.subscriptionOptions());
  return { turns: sub.data as MediatedTurn[] | undefined, error: sub.error?.message };
}

/** Add, remove and import providers; the list is read again after each. */
export function useProviderActions() {
  const trpc = useTRPC();
  const client = useQueryClient();
  // The Playground and Evals read the same providers (and their models) under their own keys.
  const refresh = () =>
    Promise.all([trpc.mediation.providers, trpc.evals.providers, trpc.evals.models].map((procedure) => client.invalidateQueries({ queryKey: procedure.queryKey() })));
  const onError = (title: string) => (error: unknown) => notifications.show({ color: 'red', title, message: appErrorOf(error).message });
  const add = useMutation(trpc.mediation.addProvider.mutationOptions({ onSuccess: refresh, onError: onError('Provider not saved') }));
  const remove = useMutation(trpc.mediation.removeProvider.mutationOptions({ onSuccess: refresh, onError: onError('Provider not removed') }));
  const importFile = useMutation(
    trpc.mediation.importProviders.mutationOptions({
      onSuccess: (result) => {
        void refresh();
        notifications.show({
          color: result.skipped.length > 0 ? 'orange' : 'green',
          title: `Imported ${result.saved.length} provider${result.saved.length === 1 ? '' : 's'}`,
          message: result.skipped.length > 0 ? result.skipped.map((skip) => `${skip.name}: ${skip.reason}`).join('\n') : 'Their keys are in the secret store.',
        });
      },
      onError: onError('Nothing imported'),
    }),
  );
  return { add, remove, importFile };
}
