import { AppError } from '../../shared/errors';
import type { KubeConnection, KubeTargetOptions } from '../../main/kube/KubeConnection';
import { CliExit, ExitCode } from './CliContext';

/**
 * A checked connection to the cluster the flags name: a kubeconfig that cannot be used is a usage
 * error (2), an API server that does not answer is "cannot connect" (3). The Kubernetes client
 * loads here, only for commands that talk to a cluster.
 */
export async function connectKubeTarget(flags: KubeTargetOptions): Promise<KubeConnection> {
  const { checkReachable, connectKube } = await import('../../main/kube/KubeConnection');
  let connection: KubeConnection;
  try {
    connection = connectKube({ kubeconfig: flags.kubeconfig, context: flags.context, namespace: flags.namespace, inCluster: flags.inCluster });
  } catch (error) {
    throw new CliExit(ExitCode.Usage, (error as Error).message);
  }
  try {
    await checkReachable(connection.rest);
  } catch (error) {
    connection.close();
    if (error instanceof AppError && error.code === 'ConnectionFailed') throw new CliExit(ExitCode.CannotConnect, error.message);
    throw new CliExit(ExitCode.Failed, (error as Error).message);
  }
  return connection;
}
