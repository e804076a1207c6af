import type { TRPCBuiltRouter } from '@trpc/server';
import { ApplyYamlInput, ApproveDefinitionsInput, ClusterSchemas, DryRunInput, GatewayReplicasStatus, KubeconfigInput, NamespaceFilter, OperatorStatus, SelectContextInput, ToolRef, type ClusterInventory } from '../../shared/kubeApi';
import { watch } from '../platform/AsyncQueue';
import type { KubeSession } from '../kube/KubeSession';
import { procedure, router, type RpcContext } from './trpc';

/**
 * The Cluster section: kubeconfig contexts, the live LanguageTool inventory, and server-side apply.
 * Mounted by the app router: `kube: createKubeRouter((ctx) => ctx.core.kube)`. `applyYaml` (tRPC reserves `apply`) and `dryRun`
 * take the whole YAML, so they are mutations.
 */
export function createKubeRouter(sessionOf: (ctx: RpcContext) => KubeSession) {
  return router({
    contexts: procedure.input(KubeconfigInput).query(({ ctx, input }) => sessionOf(ctx).contexts(input.kubeconfig)),
    select: procedure.input(SelectContextInput).mutation(({ ctx, input }) => sessionOf(ctx).select(input)),
    /** Reachability and server version, checked on every call. */
    status: procedure.query(({ ctx }) => sessionOf(ctx).status()),
    namespaces: procedure.query(({ ctx }) => sessionOf(ctx).namespaces()),
    /** The tools (of one namespace, or all), again after every informer event and context switch. */
    inventory: procedure.input(NamespaceFilter).subscription(async function* ({ ctx, input, signal }): AsyncGenerator<ClusterInventory> {
      const session = sessionOf(ctx);
      await session.status();
      yield* watch((notify) => session.onChange(notify), () => session.inventory(input.namespace), signal, 100);
    }),
    /** The connected cluster's kinds as JSON Schema for the YAML editors; `available: false` until a cluster is connected. */
    schemas: procedure.output(ClusterSchemas).query(({ ctx }) => sessionOf(ctx).schemas()),
    /** The in-cluster operator: leader, lease age and renewals, replicas, last reconcile, recent Events and problems. */
    operator: procedure.output(OperatorStatus).query(({ ctx }) => sessionOf(ctx).operator()),
    /** The gateway's replicas: each pod's calls, errors and held calls per agent, from its /metrics through the API server's pod proxy. */
    gateway: procedure.output(GatewayReplicasStatus).query(({ ctx }) => sessionOf(ctx).gatewayReplicas()),
    tool: procedure.input(ToolRef).query(({ ctx, input }) => sessionOf(ctx).tool(input.namespace, input.name)),
    /** Approves the discovered definitions the reviewer saw: the annotation langop.io/approved-definitions, with server-side apply. */
    approveDefinitions: procedure.input(ApproveDefinitionsInput).mutation(({ ctx, input }) => sessionOf(ctx).approveDefinitions(input.namespace, input.name, input.hash)),
    dryRun: procedure.input(DryRunInput).mutation(({ ctx, input }) => sessionOf(ctx).dryRun(input.yaml)),
    applyYaml: procedure.input(ApplyYamlInput).mutation(({ ctx, input }) => sessionOf(ctx).apply(input.yaml, input.force)),
  });
}

export type KubeRouter = ReturnType<typeof createKubeRouter>;

/** A router with this one under `kube`, as the app router mounts it: the renderer's cluster calls are typed with it. */
export type KubeHostRouter = TRPCBuiltRouter<KubeRouter['_def']['_config']['$types'], { kube: KubeRouter['_def']['record'] }>;
