import { z } from 'zod';
import { listProviderModels } from '../evals/providerModels';
import { watch } from '../platform/AsyncQueue';
import { procedure, router } from './trpc';

const ModelName = z.string().trim().min(3).max(300);

/**
 * The console's Evals section: the workspace's eval suites (`evals/*.yml`), runs started from the
 * console (case × model, live), their reports and transcripts, and the models the providers offer.
 */
export const evalsRouter = router({
  /** Every eval suite file of the workspace, valid or with its first problem. */
  suites: procedure.query(({ ctx }) => ctx.core.evals.suites()),
  /** The configured providers (names and formats, never keys): what a model is picked from. */
  providers: procedure.query(async ({ ctx }) => (await ctx.core.providers.list()).map(({ name, format }) => ({ name, format }))),
  /** Each provider's model list, when it serves one (the model pickers' suggestions). */
  models: procedure.query(({ ctx }) => listProviderModels({ providers: () => ctx.core.providers.list(), apiKey: (name) => ctx.core.providers.apiKey(name) })),
  /** Starts a suite in the background; bad input (an unknown provider, an agent without tools) is refused here. */
  run: procedure
    .input(z.object({ file: z.string().min(1).max(1000), models: z.array(ModelName).min(1).max(8), iterations: z.number().int().min(1).max(100).optional(), execute: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.core.evals.start(input)),
  /** The drift review's question: run the suites that use a tool with its approved and its pending definition, side by side. */
  compareDefinitions: procedure
    .input(z.object({ tool: z.string().min(1).max(1000), models: z.array(ModelName).min(1).max(8), iterations: z.number().int().min(1).max(100).optional() }))
    .mutation(({ ctx, input, signal }) => ctx.core.evals.compareDefinitions({ ...input, ...(signal ? { signal } : {}) })),
  cancel: procedure.input(z.object({ id: z.string().min(1) })).mutation(({ ctx, input }) => ctx.core.evals.cancel(input.id)),
  /** The runs kept (newest first), then again as each run progresses. */
  watchRuns: procedure.subscription(async function* ({ ctx, signal }) {
    yield* watch((notify) => ctx.core.evals.onChange(notify), () => ctx.core.evals.list(), signal, 100);
  }),
});
