import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { AppError } from '../../shared/errors';
import { INPUT_LIMITS } from '../../shared/inputLimits';
import { decodeText, readBoundedSync } from '../platform/readBounded';
import { KubeRest } from './KubeRest';
import type { RequestStats } from './RequestStats';

export interface KubeTargetOptions {
  /** Kubeconfig file; default: $KUBECONFIG, then ~/.kube/config, then in-cluster. */
  kubeconfig?: string;
  /** Context to use instead of the current one. */
  context?: string;
  /** Limit to one namespace; all namespaces when left out. */
  namespace?: string;
  /** The pod's ServiceAccount (its token and CA, the API server from the environment), whatever the kubeconfig says. */
  inCluster?: boolean;
}

export interface KubeConnection {
  kc: KubeConfig;
  rest: KubeRest;
  context: string;
  server: string;
  namespace?: string;
  close(): void;
}

export function connectKube(options: KubeTargetOptions = {}, stats?: RequestStats): KubeConnection {
  const kc = new KubeConfig();
  try {
    if (options.inCluster) {
      if (!process.env.KUBERNETES_SERVICE_HOST) throw new AppError('InvalidInput', 'Not running in a Kubernetes pod (KUBERNETES_SERVICE_HOST is not set): give --kubeconfig instead of --in-cluster');
      kc.loadFromCluster();
    } else if (options.kubeconfig) {
      if (!existsSync(options.kubeconfig)) throw new AppError('InvalidInput', `Kubeconfig not found: ${options.kubeconfig}`);
      // What loadFromFile does, with the read counted: `--kubeconfig /dev/zero` stops at the limit.
      kc.loadFromString(decodeText(readBoundedSync(options.kubeconfig, INPUT_LIMITS.kubeconfig), options.kubeconfig, INPUT_LIMITS.kubeconfig));
      kc.makePathsAbsolute(dirname(options.kubeconfig));
    } else kc.loadFromDefault();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('InvalidInput', `Cannot read the kubeconfig: ${(error as Error).message}`, { cause: error });
  }
  if (options.context) {
    if (!kc.getContextObject(options.context)) throw new AppError('InvalidInput', `No context "${options.context}" in the kubeconfig`);
    kc.setCurrentContext(options.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new AppError('InvalidInput', 'The kubeconfig has no current cluster');
  const rest = new KubeRest(kc, stats);
  return {
    kc,
    rest,
    context: kc.getCurrentContext(),
    server: rest.server,
    namespace: options.namespace,
    close: () => rest.close(),
  };
}

/** Fails with ConnectionFailed (CLI exit 3) when the apiserver does not answer /version. */
export async function checkReachable(rest: KubeRest): Promise<{ gitVersion: string }> {
  try {
    return await rest.request<{ gitVersion: string }>('GET', '/version', { timeoutMs: 10_000 });
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 401 || status === 403) throw new AppError('Unauthorized', `The cluster at ${rest.server} refused the credentials`, { cause: error });
    throw new AppError('ConnectionFailed', `Cannot reach the cluster at ${rest.server}: ${(error as Error).message}`, { cause: error });
  }
}
