import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { AgentListItem, AgentView } from '../../../../shared/agents';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC } from '../../rpc/client';
import { useLiveCalls } from '../history/useLiveCalls';

/**
 * Every agent and the one selected, read again whenever the answer may have changed: the gateway's
 * overview moves on a credential created or revoked, grants or tools changed (a pod file saved, a
 * server connected) and sessions opened or closed; the selected agent is read again as each of its
 * calls is recorded (through any door), so its recent calls and session counts follow.
 */
export function useAgentRights(requested: string | undefined): {
  agents: AgentListItem[] | undefined;
  listError: string | undefined;
  /** The agent shown: the one asked for (the URL's), else the first. */
  selected: string | undefined;
  agent: AgentView | undefined;
  agentError: string | undefined;
} {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.agents.list.queryOptions());
  const selected = requested ?? list.data?.[0]?.name;
  const show = useQuery(trpc.agents.show.queryOptions({ name: selected ?? '' }, { enabled: selected !== undefined }));
  useSubscription(trpc.gateway.watch.subscriptionOptions(undefined, { onData: () => void queryClient.invalidateQueries({ queryKey: trpc.agents.pathKey() }) }));
  useLiveCalls((record) => {
    if (record.agent !== undefined && record.agent === selected) void queryClient.invalidateQueries({ queryKey: trpc.agents.show.queryKey({ name: record.agent }) });
  });
  return {
    agents: list.data,
    listError: list.error ? appErrorOf(list.error).message : undefined,
    selected,
    agent: selected !== undefined ? show.data : undefined,
    agentError: selected !== undefined && show.error ? appErrorOf(show.error).message : undefined,
  };
}

/** Grants an agent exactly these model patterns (and a daily budget, null: none); the view reads the answer again. */
export function useGrantModels() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.agents.grantModels.mutationOptions({
      onSuccess: (granted, input) => {
        notifications.show({ color: 'teal', title: `Models of ${input.name} saved`, message: granted.length === 0 ? `${input.name} may use no model.` : `${input.name} may use ${granted.join(', ')}.` });
        void queryClient.invalidateQueries({ queryKey: trpc.agents.pathKey() });
      },
      onError: (error) => notifications.show({ color: 'red', title: 'Models not saved', message: appErrorOf(error).message }),
    }),
  );
}
