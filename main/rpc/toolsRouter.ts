import { z } from 'zod';
import { AppErrorShape } from '../../shared/errors';
import { InvokeRequest, SearchQuery, ToolListFilter, type InvokeEvent } from '../../shared/registry';
import { watch } from '../platform/AsyncQueue';
import { startCancellableRun } from '../platform/CancellableRun';
import { ToolSource } from '../../shared/invocation';
import { prepareSource } from '../registry/ToolSourceKind';
import { classifyError } from '../registry/classifyError';
import type { Core } from '../core';
import type { InvocationRequest } from '../registry/InvocationPipeline';
import { procedure, router, type RpcContext } from './trpc';

function toolViews(core: Core, filter?: z.infer<typeof ToolListFilter>) {
  return core.catalog.list(filter).map((entry) => core.pipeline.policy.view(entry));
}

/** The host's caller, in the run the request names (a run id sent with a call joins that run's ledger). */
function invocationOf(ctx: RpcContext, { runId, ...request }: InvokeRequest): InvocationRequest {
  return { ...request, caller: runId === undefined ? ctx.caller : { ...ctx.caller, runId } };
}

export const toolsRouter = router({
  list: procedure.input(ToolListFilter.optional()).query(({ ctx, input }) => toolViews(ctx.core, input)),
  watch: procedure.subscription(async function* ({ ctx, signal }) {
    // Approving or rejecting in the lockfile changes verdicts without touching the catalog.
    yield* watch(
      (notify) => {
        const stopCatalog = ctx.core.catalog.onChange(notify);
        const stopLock = ctx.core.lock.onChange(notify);
        return () => {
          stopCatalog();
          stopLock();
        };
      },
      () => toolViews(ctx.core),
      signal,
      100,
    );
  }),
  /** BM25 over tools, skills and agents: names, titles, descriptions, sources and tags; scores 0..1. */
  search: procedure.input(SearchQuery).query(async ({ ctx, input }) =>
    (await ctx.core.searchAll(input.query, { limit: input.limit, kinds: input.kinds })).map((hit) => {
      const entry = hit.kind === 'agent' ? undefined : ctx.core.catalog.get(hit.id);
      return entry ? { ...hit, verdict: ctx.core.pipeline.policy.verdict(entry).verdict } : hit;
    }),
  ),
  get: procedure.input(z.object({ name: z.string() })).query(({ ctx, input }) => {
    const entry = ctx.core.catalog.get(input.name);
    return entry ? ctx.core.pipeline.policy.view(entry) : null;
  }),
  /**
   * Makes a source's tools registry entries before a call names one (connects a saved MCP server,
   * reads a saved agent's card, lists a gRPC source): NotFound for no such source,
   * ConnectionFailed when it cannot be reached.
   */
  prepareSource: procedure.input(ToolSource).mutation(({ ctx, input }) => prepareSource(ctx.core.sourceKinds, input)),
  /** One call, no streaming: for scripts and the CLI-like uses of the UI (replay). */
  invoke: procedure.input(InvokeRequest).mutation(({ ctx, input, signal }) => ctx.core.pipeline.invoke({ ...invocationOf(ctx, input), signal })),
  /**
   * A call with live progress. Unsubscribing cancels it: the signal reaches the executor, which sends
   * the protocol's cancel (notifications/cancelled for MCP).
   */
  invokeStream: procedure.input(InvokeRequest).subscription(async function* ({ ctx, input, signal }): AsyncGenerator<InvokeEvent> {
    const call = startCancellableRun<InvokeEvent, void>(
      async ({ signal: callSignal, emit }) => {
        emit({ type: 'started', at: Date.now() });
        try {
          const outcome = await ctx.core.pipeline.invoke({
            ...invocationOf(ctx, input),
            signal: callSignal,
            onProgress: (p) => emit({ type: 'progress', at: Date.now(), ...p }),
            onTask: (update) => emit({ type: 'task', ...update }),
          });
          emit({ type: 'outcome', outcome });
        } catch (error) {
          emit({ type: 'failed', error: AppErrorShape.parse(classifyError(error).toShape()) });
        }
      },
      { signal },
    );
    yield* call;
  }),
});
