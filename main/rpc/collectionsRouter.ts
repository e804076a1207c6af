import { z } from 'zod';
import { Collection, CollectionFormat, CollectionName, RunOptions, SavedRequest, type RunEvent } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import { INPUT_LIMITS } from '../../shared/inputLimits';
import { LoadOptions, type LoadEvent } from '../../shared/loadRuns';
import { junitReport } from '../collections/junitReport';
import { loadJsonReport, loadJunitReport } from '../collections/load/loadReport';
import { requestFromCall, requestFromHistory } from '../collections/requestDrafts';
import { procedure, router } from './trpc';

const byName = z.object({ name: CollectionName });
const MAX_TEXT = INPUT_LIMITS.collectionFile.maxBytes;

/** A saved collection by name, or one given whole (an unsaved edit being tried out). */
const RunInput = RunOptions.extend({ name: CollectionName.optional(), collection: Collection.optional() }).refine((input) => (input.name === undefined) !== (input.collection === undefined), {
  message: 'Give either the name of a saved collection or a collection',
});

const LoadInput = z.intersection(LoadOptions, z.object({ name: CollectionName }));

export const collectionsRouter = router({
  list: procedure.query(({ ctx }) => ctx.core.collections.store.list()),
  /** The collection and its file's text (comments included), for the YAML editor. */
  read: procedure.input(byName).query(({ ctx, input }) => ctx.core.collections.store.read(input.name)),
  /** Creates or updates; `previousName` renames. Comments in the file survive. */
  save: procedure
    .input(z.object({ collection: Collection, previousName: CollectionName.optional() }))
    .mutation(({ ctx, input }) => ctx.core.collections.store.save(input.collection, { previousName: input.previousName })),
  /** Saves YAML from the editor as written (after validation and moving literal secrets out). */
  saveText: procedure
    .input(z.object({ text: z.string().max(MAX_TEXT), previousName: CollectionName.optional() }))
    .mutation(({ ctx, input }) => ctx.core.collections.store.saveText(input.text, { previousName: input.previousName })),
  remove: procedure.input(byName).mutation(({ ctx, input }) => ctx.core.collections.store.remove(input.name)),
  /** JSON or YAML; `name` saves it under another name; `replace` overwrites a collection of that name. */
  import: procedure
    .input(z.object({ text: z.string().max(MAX_TEXT), name: CollectionName.optional(), replace: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => ctx.core.collections.store.import(input.text, { name: input.name, replace: input.replace })),
  export: procedure.input(byName.extend({ format: CollectionFormat })).query(({ ctx, input }) => ctx.core.collections.store.export(input.name, input.format)),
  /** Adds a request to a collection (created if missing), or replaces the one with the same name. */
  saveRequest: procedure
    .input(z.object({ collection: CollectionName, request: SavedRequest, description: z.string().optional() }))
    .mutation(({ ctx, input }) => ctx.core.collections.store.saveRequest(input.collection, input.request, { description: input.description })),
  /** A request draft from a call in the invoke panel (registry name + arguments), to edit and then saveRequest. */
  draftFromCall: procedure
    .input(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}), timeoutMs: z.number().int().positive().optional() }))
    .query(({ input }) => SavedRequest.parse(requestFromCall(input))),
  /** A request draft from a recorded call, expecting the status it had. */
  draftFromHistory: procedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const record = await ctx.core.history.get(input.id);
    if (!record) throw new AppError('NotFound', `No recorded call with id ${input.id}`);
    return SavedRequest.parse(requestFromHistory(record));
  }),
  /**
   * Runs a collection: request started/finished events with assertion results, then the summary.
   * Unsubscribing cancels the run — no new requests start and the calls in flight are canceled.
   */
  run: procedure.input(RunInput).subscription(async function* ({ ctx, input, signal }): AsyncGenerator<RunEvent> {
    const collections = ctx.core.collections;
    const collection = input.collection ?? (await collections.store.read(input.name!)).collection;
    const run = collections.run(collection, { environment: input.environment, concurrency: input.concurrency, bail: input.bail, confirm: input.confirm, signal });
    try {
      yield* run;
    } finally {
      run.cancel();
    }
  }),
  /**
   * A load run of a saved collection: `load-started`, a `load-tick` every second, then
   * `load-finished` with the summary (also kept in history). Unsubscribing stops it.
   */
  load: procedure.input(LoadInput).subscription(async function* ({ ctx, input, signal }): AsyncGenerator<LoadEvent> {
    const collections = ctx.core.collections;
    const { collection } = await collections.store.read(input.name);
    const { name: _name, ...options } = input;
    const run = collections.load(collection, { ...options, signal });
    try {
      yield* run;
    } finally {
      run.cancel();
    }
  }),
  /** Stops a load run; its subscription still delivers `load-finished` with the summary so far. */
  stopLoad: procedure.input(z.object({ runId: z.string() })).mutation(({ ctx, input }) => ({ stopped: ctx.core.collections.stopLoad(input.runId) })),
  /** A run's report, for download: JUnit XML or JSON (secrets masked in both); load runs get the load report. */
  report: procedure.input(z.object({ runId: z.string(), format: z.enum(['junit', 'json']) })).query(async ({ ctx, input }) => {
    const stored = await ctx.core.history.getRun(input.runId);
    if (stored?.kind === 'load') return input.format === 'junit' ? loadJunitReport(stored.summary) : `${JSON.stringify(loadJsonReport(stored.summary), null, 2)}\n`;
    const summary = stored?.kind === 'collection' ? stored.summary : ctx.core.collections.summary(input.runId);
    return input.format === 'junit' ? junitReport([summary]) : `${JSON.stringify(summary, null, 2)}\n`;
  }),
});
