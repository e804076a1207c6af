import { operatorCaller } from '../../shared/caller';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { ExportFormat, InvocationFilter, InvocationListQuery } from '../../shared/history';
import type { InvocationRecord } from '../../shared/invocation';
import { RunListQuery } from '../../shared/runs';
import { toolEntryName } from '../registry/ToolCatalog';
import type { Core } from '../core';
import { procedure, router } from './trpc';

/** The JSON-RPC traffic of one recorded MCP call, from the server's transcript (while it is still held). */
function transcriptSlice(core: Core, record: InvocationRecord) {
  if (record.sourceKind !== 'mcp') return [];
  const transcript = core.mcp.transcript(record.sourceName)?.slice(record.startedAt - 5, record.startedAt + record.latencyMs + 50) ?? [];
  return transcript.filter((e) => e.kind !== 'stderr' || e.at <= record.startedAt + record.latencyMs);
}

export async function replayInvocation(core: Core, id: string) {
  const original = await core.history.get(id);
  if (!original) throw new AppError('NotFound', `No recorded call with id ${id}`);
  let args: unknown;
  try {
    args = JSON.parse(original.argumentsJson);
  } catch {
    throw new AppError('InvalidInput', 'The recorded arguments are not JSON; this call cannot be replayed');
  }
  if (!args || typeof args !== 'object' || Array.isArray(args) || JSON.stringify(args).includes('"***"') || '_truncated' in (args as object)) {
    throw new AppError('InvalidInput', 'The recorded arguments were masked or cut to size, so the call cannot be replayed exactly');
  }
  return core.pipeline.invoke({ caller: operatorCaller('replay'), name: toolEntryName({ kind: original.sourceKind, name: original.sourceName }, original.tool), arguments: args as Record<string, unknown>, replayOf: id, confirmed: true });
}

export const historyRouter = router({
  list: procedure.input(InvocationListQuery).query(({ ctx, input }) => ctx.core.history.list(input)),
  count: procedure.input(InvocationFilter).query(({ ctx, input }) => ctx.core.history.count(input)),
  get: procedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const record = await ctx.core.history.get(input.id);
    if (!record) throw new AppError('NotFound', `No recorded call with id ${input.id}`);
    return { record, transcript: transcriptSlice(ctx.core, record) };
  }),
  export: procedure.input(z.object({ filter: InvocationFilter, format: ExportFormat })).query(({ ctx, input }) => ctx.core.history.export(input.filter, input.format)),
  /** Sends the same arguments through the pipeline again; the new record points back at the original. */
  replay: procedure.input(z.object({ id: z.string() })).mutation(({ ctx, input }) => replayInvocation(ctx.core, input.id)),
  /** Calls as they are recorded, from any entry point. */
  live: procedure.subscription(async function* ({ ctx, signal }) {
    yield* ctx.core.liveCalls.subscribe(signal);
  }),
  status: procedure.query(({ ctx }) => ({ open: ctx.core.historyReport, health: ctx.core.history.health(), kind: ctx.core.history.kind, location: ctx.core.history.location })),
  /** Runs of collections (passes and load runs), newest first, each as one item. */
  runs: procedure.input(RunListQuery).query(({ ctx, input }) => ctx.core.history.listRuns(input)),
  /** One run with its whole summary. */
  run: procedure.input(z.object({ runId: z.string() })).query(async ({ ctx, input }) => {
    const run = await ctx.core.history.getRun(input.runId);
    if (!run) throw new AppError('NotFound', `No run ${input.runId} in history`);
    return run;
  }),
});
