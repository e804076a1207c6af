import type { TRPCOptionsProxy } from '@trpc/tanstack-react-query';
import type { AppRouter } from '../../../../main/rpc/router';
import { useTRPC } from '../../rpc/client';

/** The `kube` procedures of the app router. */
export function useKubeTRPC(): TRPCOptionsProxy<AppRouter>['kube'] {
  return useTRPC().kube;
}
