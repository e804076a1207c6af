import type { Collection, RunSummary } from '../../shared/collections';
import { AppError } from '../../shared/errors';
import type { Logger } from '../platform/Logger';
import type { SecretStore } from '../platform/SecretStore';
import type { InvocationPipeline } from '../registry/InvocationPipeline';
import { prepareSource, type SourceKinds } from '../registry/ToolSourceKind';
import type { HistoryStore } from '../store/HistoryStore';
import { CollectionRunner, type CollectionRun, type CollectionRunOptions, type RunTarget } from './CollectionRunner';
import { CollectionStore } from './CollectionStore';
import { CollectionLoadRunner, type LoadRun, type LoadRunOptions } from './load/CollectionLoadRunner';

/** What collections need: where to keep them, the pipeline their requests go through, and the source kinds that prepare a source. */
export interface CollectionsDeps {
  readonly sourceKinds: SourceKinds;
  readonly dataDir: string;
  /** The redacting SecretStore (Core.secrets). */
  readonly secrets: SecretStore;
  readonly pipeline: InvocationPipeline;
  readonly history: Pick<HistoryStore, 'saveRun'>;
  readonly logger: Logger;
}

/** How many finished runs are kept for reports (JUnit, JSON) after their events are gone. */
const RECENT_RUNS = 20;

/** The saved collections of a data dir and a runner wired to the core's pipeline and connections. */
export class Collections {
  readonly store: CollectionStore;
  readonly runner: CollectionRunner;
  readonly loadRunner: CollectionLoadRunner;
  private readonly recent = new Map<string, RunSummary>();
  private readonly active = new Map<string, LoadRun>();

  constructor(private readonly core: CollectionsDeps) {
    this.store = new CollectionStore(core.dataDir, core.secrets);
    this.runner = new CollectionRunner({ pipeline: core.pipeline, secretStore: core.secrets, prepareTarget: (target) => this.prepareTarget(target) });
    this.loadRunner = new CollectionLoadRunner({ pipeline: core.pipeline, secretStore: core.secrets, prepareTarget: (target) => this.prepareTarget(target) });
  }

  /** Starts a run; its summary is kept among the recent ones and, with the run, in history. */
  run(collection: Collection, options: CollectionRunOptions = {}): CollectionRun {
    const run = this.runner.run(collection, options);
    run.summary.then(
      (summary) => {
        this.recent.set(summary.runId, summary);
        if (this.recent.size > RECENT_RUNS) this.recent.delete(this.recent.keys().next().value!);
        this.keep({ kind: 'collection', summary });
      },
      () => undefined,
    );
    return run;
  }

  /** Starts a load run; it lands in history as one run with its summary. */
  load(collection: Collection, options: LoadRunOptions): LoadRun {
    const run = this.loadRunner.run(collection, options);
    this.active.set(run.runId, run);
    run.summary.then(
      (summary) => this.keep({ kind: 'load', summary }),
      () => undefined,
    );
    void run.summary.catch(() => undefined).finally(() => this.active.delete(run.runId));
    return run;
  }

  /** Stops a load run in progress (its summary still comes, marked stopped); false when none has that id. */
  stopLoad(runId: string): boolean {
    const run = this.active.get(runId);
    run?.cancel();
    return run !== undefined;
  }

  private keep(run: Parameters<HistoryStore['saveRun']>[0]) {
    this.core.history.saveRun(run).catch((error: unknown) => {
      this.core.logger.warn('run summary not saved', { runId: run.summary.runId, error: (error as Error).message });
    });
  }

  /** The summary of a recent run; NotFound once it has been forgotten. */
  summary(runId: string): RunSummary {
    const summary = this.recent.get(runId);
    if (!summary) throw new AppError('NotFound', `No recent run ${runId}`);
    return summary;
  }

  /** Connects a saved server unless it is ready, reads a saved agent's card, lists a gRPC source. */
  prepareTarget({ kind, name }: RunTarget): Promise<void> {
    return prepareSource(this.core.sourceKinds, { kind, name });
  }
}
