import { readFileSync } from 'node:fs';
import { isAppError } from '../../shared/errors';
import { CliExit, ExitCode, type CliContext } from './CliContext';
import { connectKubeTarget } from './connectKubeTarget';
import { safeForTerminal } from './terminalText';
// Where `kube install --gateway` runs the gateway: its ToolApprovals live there unless told otherwise.
import { DEFAULT_OPERATOR_NAMESPACE } from '../../main/kube/operator/operatorManifests';

export interface ClusterApprovalFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  inCluster?: boolean;
}

/**
 * The core keeps held calls as ToolApprovals in the cluster (`gateway --kubeconfig`, `serve
 * --approvals-kubeconfig`): checked before anything listens (the CRD is installed, these
 * credentials may list them), one sentence and exit 1 otherwise.
 */
export async function useClusterApprovals(ctx: CliContext, options: ClusterApprovalFlags) {
  if (options.inCluster && options.kubeconfig !== undefined) throw new CliExit(ExitCode.Usage, 'Use --kubeconfig or --in-cluster, not both');
  const connection = await connectKubeTarget(options);
  const namespace = options.namespace ?? (options.inCluster ? (process.env.POD_NAMESPACE ?? podNamespace()) : undefined) ?? DEFAULT_OPERATOR_NAMESPACE;
  const { ClusterApprovals } = await import('../../main/kube/ClusterApprovals');
  let store;
  try {
    store = await ClusterApprovals.open({ connection, namespace, watch: false });
    await store.close();
  } catch (error) {
    connection.close();
    if (isAppError(error)) throw new CliExit(ExitCode.Failed, error.message);
    throw error;
  }
  ctx.useApprovalStore(async (logger) => {
    const opened = await ClusterApprovals.open({ connection, namespace, logger });
    return {
      hold: (request, holdOptions) => opened.hold(request, holdOptions),
      list: () => opened.list(),
      get: (name) => opened.get(name),
      decide: (name, verdict, decidedBy, comment) => opened.decide(name, verdict, decidedBy, comment),
      onChange: (listener) => opened.onChange(listener),
      close: async () => {
        await opened.close();
        connection.close();
      },
    };
  });
  ctx.io.stderr(`Approvals: ToolApproval objects in namespace ${namespace} on ${connection.server}\n`);
}

/** The namespace of the pod's ServiceAccount, as Kubernetes mounts it. */
function podNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}


/**
 * The gateway lets in the Language Operator agents of these namespaces with the credentials the
 * operator issued them, and grants each its LanguageAgent's `spec.tools` (`gateway
 * --agent-namespace`); the LanguageTools there are its MCP sources. Checked before anything listens: one sentence and exit 1 when these
 * credentials may not read LanguageAgents there.
 */
export async function useClusterAgents(ctx: CliContext, options: ClusterApprovalFlags & { agentNamespaces: string[] }) {
  if (options.inCluster && options.kubeconfig !== undefined) throw new CliExit(ExitCode.Usage, 'Use --kubeconfig or --in-cluster, not both');
  const invalid = options.agentNamespaces.find((namespace) => !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace));
  if (invalid !== undefined) throw new CliExit(ExitCode.Usage, `--agent-namespace takes a namespace name, not "${safeForTerminal(invalid, 100)}"`);
  const connection = await connectKubeTarget(options);
  const { ClusterAgents } = await import('../../main/kube/ClusterAgents');
  const { silentLogger } = await import('../../main/platform/Logger');
  try {
    await (await ClusterAgents.open({ connection, namespaces: options.agentNamespaces, logger: silentLogger })).close();
  } catch (error) {
    connection.close();
    if (isAppError(error)) throw new CliExit(ExitCode.Failed, error.message);
    throw error;
  }
  // In a pod the tools' Services are reached by their cluster DNS names; from outside, through the API server's service proxy.
  const toolReach = options.inCluster ? 'cluster-dns' : 'service-proxy';
  ctx.useClusterAgents((logger) => ClusterAgents.open({ connection, namespaces: options.agentNamespaces, logger, closeConnection: true, toolReach }));
  ctx.io.stderr(`Agents: LanguageAgents opted in to the gateway in namespace${options.agentNamespaces.length > 1 ? 's' : ''} ${options.agentNamespaces.join(', ')} on ${connection.server}\n`);
}
