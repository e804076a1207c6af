import { useQuery } from '@tanstack/react-query';
import type { AvailableClusterSchemas } from '../../../../shared/kubeApi';
import { useKubeTRPC } from './useKubeTRPC';

/**
 * The connected cluster's kinds as JSON Schema, or undefined while no cluster is connected (or
 * the host has no Cluster section). Asking never connects: the Cluster section does that.
 */
export function useClusterSchemas(): AvailableClusterSchemas | undefined {
  const kube = useKubeTRPC();
  // The answer is large and changes rarely; the Cluster section marks it stale when the connection changes.
  const query = useQuery({ ...kube.schemas.queryOptions(), staleTime: 60_000, retry: false, refetchOnWindowFocus: false });
  return query.data?.available ? query.data : undefined;
}
