import { useQuery } from '@tanstack/react-query';
import type { A2aCardReport } from '../../../../shared/a2a';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import type { Reachability } from './AgentStatusBadges';

/**
 * The saved agent's card and validation report, fetched fresh from the agent (so it doubles as the
 * reachability check); the list and the detail share one cached query per agent.
 */
export function useAgentCard(agent: string) {
  const trpc = useTRPC();
  const query = useQuery({ ...trpc.a2a.inspect.queryOptions({ target: agent }), staleTime: 60_000, retry: false });
  const reachability: Reachability = query.isPending
    ? { checking: true }
    : query.error
      ? { checking: false, error: appErrorOf(query.error).message }
      : { checking: false };
  return { report: query.data as A2aCardReport | undefined, reachability, query };
}
