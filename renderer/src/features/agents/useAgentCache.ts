import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTRPC } from '../../rpc/client';

/**
 * Refreshes or drops the cached queries of one agent. Refreshing every `a2a.*` query instead would
 * re-fetch and re-validate every agent's card, and one slow agent would hold the whole batch.
 */
export function useAgentCache() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMemo(() => {
    const keysOf = (name: string) => [
      trpc.a2a.inspect.queryKey({ target: name }),
      trpc.a2a.connectionInfo.queryKey({ agent: name }),
      trpc.a2a.supportsListTasks.queryKey({ agent: name }),
    ];
    return {
      /** After a save or on request: the list, and this agent's card, connection and capabilities. */
      refresh: async (name: string) => {
        await Promise.all([trpc.a2a.list.queryKey(), ...keysOf(name)].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      },
      /** After a removal: nothing of the agent is kept, and the list is read again. */
      forget: async (name: string) => {
        for (const queryKey of [...keysOf(name), trpc.a2a.threads.queryKey({ agent: name }), trpc.a2a.transcript.queryKey({ agent: name })]) {
          queryClient.removeQueries({ queryKey });
        }
        await queryClient.invalidateQueries({ queryKey: trpc.a2a.list.queryKey() });
      },
    };
  }, [trpc, queryClient]);
}
